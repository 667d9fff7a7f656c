/// The common case of RIFF/WAVE read and written without FFmpeg: plain or extensible PCM
/// (unsigned 8, signed 16/24/32 bit) or IEEE float (32/64 bit), mono or stereo, 8–192 kHz.
///
/// Why: `stretch` of a WAV file then never loads FFmpeg's libraries (most of a short run's time,
/// Docs/Architecture.md "Loading FFmpeg"). Anything else — RF64, other codecs, more channels, odd
/// masks, a header that does not add up — is `nil` here and goes through FFmpeg as before, so this
/// path only has to be right, not complete. Sample conversions are FFmpeg's (libswresample's
/// formulas), so both paths give the same floats and the same 16-bit output, sample for sample.
public enum WAV {
    public enum SampleFormat: Sendable, Equatable {
        case u8, s16, s24, s32, f32, f64
        public var bytes: Int {
            switch self {
            case .u8: 1
            case .s16: 2
            case .s24: 3
            case .s32, .f32: 4
            case .f64: 8
            }
        }
    }

    /// Where a WAV file's samples are and how they are stored.
    public struct Layout: Sendable, Equatable {
        public var format: SampleFormat
        public var channels: Int
        public var sampleRate: Int
        /// Byte offset of the first sample, and the whole frames that follow it.
        public var dataOffset: Int64
        public var frames: Int64
        /// FFmpeg's name for the channel layout (what `DecodedAudioSource` reports for the same file).
        public var channelLayout: String
        public var blockAlign: Int { format.bytes * channels }
    }

    /// Reads the chunk headers through `read(offset, count)` (fewer bytes at the end of the file)
    /// and returns the layout, or nil when the file is not one this path handles.
    public static func layout(fileSize: Int64, read: (Int64, Int) -> [UInt8]) -> Layout? {
        let head = read(0, 12)
        guard head.count == 12, head.ascii(0, 4) == "RIFF", head.ascii(8, 4) == "WAVE" else { return nil }
        var offset: Int64 = 12
        var fmt: (format: SampleFormat, channels: Int, rate: Int, layout: String)?
        while offset + 8 <= fileSize {
            let chunk = read(offset, 8)
            guard chunk.count == 8 else { return nil }
            let id = chunk.ascii(0, 4), size = Int64(chunk.le32(4))
            let body = offset + 8
            switch id {
            case "fmt ":
                guard fmt == nil, (16...64).contains(size) else { return nil }
                fmt = parseFormat(read(body, Int(size)))
                guard fmt != nil else { return nil }
            case "data":
                guard let f = fmt, size > 0, size != 0xFFFF_FFFF, body + size <= fileSize else { return nil }
                let block = Int64(f.format.bytes * f.channels)
                guard size % block == 0 else { return nil }
                return Layout(
                    format: f.format, channels: f.channels, sampleRate: f.rate, dataOffset: body,
                    frames: size / block, channelLayout: f.layout)
            default:
                break
            }
            offset = body + size + (size & 1)  // chunks are padded to an even size
        }
        return nil
    }

    private static let subformatTail: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

    private static func parseFormat(_ b: [UInt8]) -> (SampleFormat, Int, Int, String)? {
        guard b.count >= 16 else { return nil }
        var tag = Int(b.le16(0))
        let channels = Int(b.le16(2)), rate = Int(b.le32(4)), blockAlign = Int(b.le16(12)), bits = Int(b.le16(14))
        var layout = "\(channels) channels"  // FFmpeg: plain PCM has no channel order
        if tag == 0xFFFE {
            guard b.count >= 40, b.le16(16) >= 22, Int(b.le16(18)) == bits, Array(b[26..<40]) == subformatTail else { return nil }
            tag = Int(b.le16(24))
            switch (channels, b.le32(20)) {
            case (_, 0): break
            case (1, 0x4): layout = "mono"
            case (2, 0x3): layout = "stereo"
            default: return nil
            }
        }
        let format: SampleFormat
        switch (tag, bits) {
        case (1, 8): format = .u8
        case (1, 16): format = .s16
        case (1, 24): format = .s24
        case (1, 32): format = .s32
        case (3, 32): format = .f32
        case (3, 64): format = .f64
        default: return nil
        }
        guard (1...2).contains(channels), (8000...192_000).contains(rate), blockAlign == channels * format.bytes else { return nil }
        return (format, channels, rate, layout)
    }

    /// Converts `frames` interleaved frames at `bytes` to planar Float, as libswresample does
    /// (integers scaled by 2^-(bits-1), u8 centred on 128, f64 rounded to the nearest Float).
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, format: SampleFormat, channels: Int, frames: Int,
        into planes: [UnsafeMutablePointer<Float>]
    ) {
        precondition(bytes.count >= frames * channels * format.bytes)
        let p = bytes.baseAddress!
        // 16-bit mono and stereo, the common files: constant strides, so that the loops vectorise
        if format == .s16 && channels == 1 {
            let out = planes[0]
            for k in 0..<frames { out[k] = Float(Int16(littleEndian: p.loadUnaligned(fromByteOffset: 2 * k, as: Int16.self))) * (1 / 32768) }
            return
        }
        if format == .s16 && channels == 2 {
            let l = planes[0], r = planes[1]
            for k in 0..<frames {
                l[k] = Float(Int16(littleEndian: p.loadUnaligned(fromByteOffset: 4 * k, as: Int16.self))) * (1 / 32768)
                r[k] = Float(Int16(littleEndian: p.loadUnaligned(fromByteOffset: 4 * k + 2, as: Int16.self))) * (1 / 32768)
            }
            return
        }
        decodeStrided(p, format: format, channels: channels, frames: frames, into: planes)
    }

    /// `decode` for every other format and channel count: one channel at a time, a sample a stride apart.
    private static func decodeStrided(
        _ p: UnsafeRawPointer, format: SampleFormat, channels: Int, frames: Int, into planes: [UnsafeMutablePointer<Float>]
    ) {
        for c in 0..<channels {
            let out = planes[c]
            var i = c * format.bytes
            let step = channels * format.bytes
            switch format {
            case .u8:
                for k in 0..<frames {
                    out[k] = Float(Int(p.load(fromByteOffset: i, as: UInt8.self)) - 0x80) * (1 / 128)
                    i += step
                }
            case .s16:
                for k in 0..<frames {
                    out[k] = Float(Int16(littleEndian: p.loadUnaligned(fromByteOffset: i, as: Int16.self))) * (1 / 32768)
                    i += step
                }
            case .s24:
                for k in 0..<frames {
                    let v =
                        Int32(p.load(fromByteOffset: i, as: UInt8.self)) | Int32(p.load(fromByteOffset: i + 1, as: UInt8.self)) << 8
                        | Int32(Int8(bitPattern: p.load(fromByteOffset: i + 2, as: UInt8.self))) << 16
                    out[k] = Float(v) * (1 / 8_388_608)
                    i += step
                }
            case .s32:
                for k in 0..<frames {
                    out[k] = Float(Int32(littleEndian: p.loadUnaligned(fromByteOffset: i, as: Int32.self))) * (1 / 2_147_483_648)
                    i += step
                }
            case .f32:
                for k in 0..<frames {
                    out[k] = Float(bitPattern: UInt32(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt32.self)))
                    i += step
                }
            case .f64:
                for k in 0..<frames {
                    out[k] = Float(Double(bitPattern: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt64.self))))
                    i += step
                }
            }
        }
    }

    /// Planar Float to interleaved 16-bit little-endian PCM, as libswresample does on x86-64:
    /// `x × 32768` rounded half to even and saturated (NaN saturates to −32768, as `cvtps2dq` does).
    public static func encode16(_ planes: [[Float]], frames: Int, into out: inout [UInt8]) {
        let channels = planes.count
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: frames * channels * 2))
        out.withUnsafeMutableBytes { raw in
            let base = (raw.baseAddress! + start).assumingMemoryBound(to: UInt16.self)
            switch channels {
            case 1:  // the common cases with constant strides, so that the loops vectorise
                planes[0].withUnsafeBufferPointer { s in for k in 0..<frames { base[k] = sample16(s[k]).littleEndian } }
            case 2:
                planes[0].withUnsafeBufferPointer { l in
                    planes[1].withUnsafeBufferPointer { r in
                        for k in 0..<frames {
                            base[2 * k] = sample16(l[k]).littleEndian
                            base[2 * k + 1] = sample16(r[k]).littleEndian
                        }
                    }
                }
            default:
                for c in 0..<channels {
                    planes[c].withUnsafeBufferPointer { s in
                        for k in 0..<frames { base[k * channels + c] = sample16(s[k]).littleEndian }
                    }
                }
            }
        }
    }

    /// One sample of `encode16`, branch-free so that the loop vectorises: the value is clamped,
    /// then 1.5 × 2²³ is added, which leaves the integer rounded to nearest even in the low
    /// mantissa bits (exact for |v| < 2²²), two's complement included.
    @inline(__always) static func sample16(_ x: Float) -> UInt16 {
        let y = x * 32768
        let clamped = y > 32767 ? 32767 : (y >= -32768 ? y : -32768)
        return UInt16(truncatingIfNeeded: (clamped + 12_582_912).bitPattern)
    }

    /// The 44-byte header of a 16-bit PCM file (mono or stereo) with `frames` frames, or nil when
    /// that would not fit RIFF's 32-bit sizes.
    public static func header16(channels: Int, sampleRate: Int, frames: Int64) -> [UInt8]? {
        precondition((1...2).contains(channels))
        let data = frames * Int64(channels * 2)
        guard data + 36 <= Int64(UInt32.max) else { return nil }
        var h: [UInt8] = []
        h.append(ascii: "RIFF")
        h.append(le32: UInt32(data + 36))
        h.append(ascii: "WAVE")
        h.append(ascii: "fmt ")
        h.append(le32: 16)
        h.append(le16: 1)
        h.append(le16: UInt16(channels))
        h.append(le32: UInt32(sampleRate))
        h.append(le32: UInt32(sampleRate * channels * 2))
        h.append(le16: UInt16(channels * 2))
        h.append(le16: 16)
        h.append(ascii: "data")
        h.append(le32: UInt32(data))
        return h
    }
}

extension [UInt8] {
    fileprivate func ascii(_ at: Int, _ n: Int) -> String { String(decoding: self[at..<at + n], as: Unicode.ASCII.self) }
    fileprivate func le16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    fileprivate func le32(_ at: Int) -> UInt32 { UInt32(le16(at)) | UInt32(le16(at + 2)) << 16 }
    fileprivate mutating func append(ascii s: String) { append(contentsOf: s.utf8) }
    fileprivate mutating func append(le16 v: UInt16) {
        append(UInt8(v & 0xFF))
        append(UInt8(v >> 8))
    }
    fileprivate mutating func append(le32 v: UInt32) {
        append(le16: UInt16(v & 0xFFFF))
        append(le16: UInt16(v >> 16))
    }
}
