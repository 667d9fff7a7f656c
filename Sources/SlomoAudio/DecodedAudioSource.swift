import SlomoCore
import SlomoFFmpeg

/// One audio stream of a file, decoded on demand and converted to planar Float, addressed by
/// source frame: frame 0 is absolute media time `origin`. Decoded frames are placed by their
/// timestamps: audio before the origin is dropped, gaps become silence, overlaps are trimmed
/// (jitter under 2 ms is ignored). Keeps only frames from the last `discard(before:)` mark on, so
/// memory stays bounded whatever the length. Damaged packets are skipped and counted.
public final class DecodedAudioSource: AudioFileSource {
    public let path: String
    public let streamIndex: Int
    public let sampleRate: Int
    public let channels: Int
    public let channelLayout: String?
    /// Packets or frames that failed to demux/decode and were skipped.
    public private(set) var corruptPackets = 0
    /// Frames placed so far (decoded audio after the origin, gaps excluded).
    public private(set) var decodedFrames: Int64 = 0

    private let demuxer: Demuxer
    private let decoder: Decoder
    private let converter: SampleConverter
    private let timeBase: Rational
    private let origin: Rational
    private let packet = Packet()
    private let frame = Frame()
    private var fifo: PlanarFIFO
    private var base: Int64 = 0  // source frame of fifo's first frame
    private var mark: Int64 = 0  // frames before it are never needed again
    private var placedEnd: Int64?  // source frame after the last placed frame
    private var pending: (samples: [[Float]], pos: Int64)?  // a frame after a long gap, placed when a read reaches it
    private var eof = false
    private var flushing = false
    private var pendingPacket = false

    /// Opens `path` and decodes its first frame (so that a stream without audio data fails here).
    public init(path: String, streamIndex: Int? = nil, origin: Rational) throws {
        self.path = path
        let d: Demuxer
        do { d = try Demuxer(path: path) } catch {
            throw AudioFailure(.decodeFailed, subject: path, operation: "open", cause: "\(error)")
        }
        demuxer = d
        let s = try AudioFiles.audioStream(of: d, requested: streamIndex)
        let info = d.streamInfo(s)
        guard (8000...192_000).contains(info.sampleRate) else {
            throw AudioFailure(
                .unsupportedFormat, subject: path, operation: "audio stream \(s)",
                cause: "sample rate \(info.sampleRate) Hz is outside 8–192 kHz")
        }
        guard (1...8).contains(info.channels) else {
            throw AudioFailure(
                .unsupportedFormat, subject: path, operation: "audio stream \(s)",
                cause: "\(info.channels) channels (slomo handles 1 to 8)")
        }
        self.streamIndex = s
        sampleRate = info.sampleRate
        channels = info.channels
        channelLayout = info.channelLayout
        timeBase = info.timeBase
        self.origin = origin
        do {
            decoder = try d.makeDecoder(stream: s)
            converter = try SampleConverter(
                channels: info.channels, inRate: info.sampleRate, inFormat: decoder.sampleFormat,
                outRate: info.sampleRate, outFormat: .floatPlanar)
        } catch {
            throw AudioFailure(
                .unsupportedFormat, subject: path, operation: "audio stream \(s) (\(info.codecName), \(info.sampleFormat ?? "?"))",
                cause: "\(error)")
        }
        d.keepOnly(streams: [s])
        // start near the origin instead of decoding (and dropping) everything before it: `play`
        // makes a new source at every seek and rate change; a second early covers codec priming
        if origin > Rational(2) { try? d.seek(stream: s, to: origin - Rational(1)) }
        fifo = PlanarFIFO(channels: info.channels)
        var decodedAny = false
        while !eof && !decodedAny { decodedAny = try decodeFrame() }
        guard decodedAny else {
            throw AudioFailure(
                .emptyAudio, subject: path, operation: "decode audio stream \(s)",
                cause: corruptPackets > 0 ? "no frame decoded (\(corruptPackets) damaged packets)" : "the audio stream is empty")
        }
    }

    public func read(at position: Int64, count: Int, into planes: [UnsafeMutablePointer<Float>]) throws {
        let end = position + Int64(count)
        if let p = pending, p.pos < end {
            pending = nil
            put(p.samples, at: p.pos)
        }
        while !eof && (placedEnd ?? Int64.min) < end {
            _ = try decodeFrame()
            if let p = pending, p.pos < end {
                pending = nil
                put(p.samples, at: p.pos)
            }
        }
        for c in 0..<channels { planes[c].initialize(repeating: 0, count: count) }
        let have = base + Int64(fifo.count)
        let a = Swift.max(position, base), b = Swift.min(end, have)
        guard a < b else { return }
        for c in 0..<channels {
            fifo.withChannel(c) { s in
                (planes[c] + Int(a - position)).update(from: s.baseAddress! + Int(a - base), count: Int(b - a))
            }
        }
    }

    public func discard(before position: Int64) {
        guard position > mark else { return }
        mark = position
        trim()
    }

    private func trim() {
        let d = Swift.min(mark - base, Int64(fifo.count))
        if d > 0 {
            fifo.drop(Int(d))
            base += d
        }
        if fifo.count == 0 && mark > base { base = mark }
    }

    /// Decodes until one frame is placed (true) or the stream ends (false).
    private func decodeFrame() throws -> Bool {
        var receiveErrors = 0
        while true {
            let r: CodecReceive
            do { r = try decoder.receive(into: frame) } catch {
                corruptPackets += 1
                receiveErrors += 1
                if receiveErrors > 1000 {
                    eof = true
                    return false
                }
                continue
            }
            switch r {
            case .got:
                guard frame.channelCount == channels, frame.sampleCount > 0 else {
                    corruptPackets += 1
                    continue
                }
                let samples: [[Float]]
                do { samples = try converter.planarFloat(from: frame) } catch {
                    corruptPackets += 1
                    continue
                }
                place(samples, pts: frame.bestEffortTimestamp)
                return true
            case .endOfStream:
                eof = true
                return false
            case .needsInput:
                if flushing {
                    eof = true
                    return false
                }
                feed(&receiveErrors)
            }
        }
    }

    /// Gives the decoder the stream's next packet (or the end: flushing); damaged data in the
    /// container is skipped, and after many damaged packets in a row the stream is ended.
    private func feed(_ receiveErrors: inout Int) {
        if !pendingPacket {
            let more: Bool
            do { more = try demuxer.readPacket(into: packet) } catch {
                corruptPackets += 1
                receiveErrors += 1
                if receiveErrors > 1000 {
                    flushing = true
                    _ = try? decoder.send(nil)
                }
                return
            }
            if !more {
                flushing = true
                _ = try? decoder.send(nil)
                return
            }
            guard packet.streamIndex == streamIndex else { return }
            if packet.isCorrupt { corruptPackets += 1 }
        }
        do {
            pendingPacket = !(try decoder.send(packet))
        } catch {
            corruptPackets += 1
            pendingPacket = false
        }
    }

    /// Puts decoded frames at their timestamp on the source grid.
    private func place(_ samples: [[Float]], pts: Int64?) {
        if let p = pending {
            pending = nil
            put(p.samples, at: p.pos)
        }  // (reads place it first; kept in order regardless)
        var s = samples
        let n = Int64(s[0].count)
        let stamped = pts.map { ((Rational(ticks: $0, timeBase: timeBase) - origin) * Rational(Int64(sampleRate))).rounded(.nearest) }
        var pos = stamped ?? placedEnd ?? 0
        if let end = placedEnd, abs(pos - end) <= Int64(sampleRate / 500) { pos = end }  // jitter: contiguous
        if let end = placedEnd, pos < end {  // overlap: trim
            let d = Int(Swift.min(end - pos, n))
            for c in 0..<channels { s[c].removeFirst(d) }
            pos = end
        }
        placedEnd = Swift.max(placedEnd ?? pos, pos + Int64(s[0].count))
        // a gap over a second (a damaged timestamp can put the next frame hours later): the frame
        // waits until a read reaches it, so the silence is never held in memory
        if pos > base + Int64(fifo.count) + Int64(sampleRate) {
            pending = (s, pos)
            return
        }
        put(s, at: pos)
    }

    /// Appends frames that start at source frame `pos` (≥ the end of what is placed).
    private func put(_ samples: [[Float]], at position: Int64) {
        var s = samples, pos = position
        if fifo.count == 0 { base = Swift.max(mark, Swift.min(pos, placedEnd ?? mark)) }
        let have = base + Int64(fifo.count)
        if pos > have {
            fifo.appendZeros(Int(pos - have))
        }  // gap: silence
        else if pos < have {  // before the origin/mark
            let d = Int(Swift.min(have - pos, Int64(s[0].count)))
            for c in 0..<channels { s[c].removeFirst(d) }
            pos = have
        }
        decodedFrames += Int64(s[0].count)
        fifo.append(s)
        trim()
    }
}
