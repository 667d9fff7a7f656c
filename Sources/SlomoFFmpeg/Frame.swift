internal import CFFmpeg
import SlomoCore

/// One decoded picture or block of audio samples; owns its `AVFrame`.
public final class Frame {
    let raw: UnsafeMutablePointer<AVFrame>

    public init() {
        guard let f = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        raw = f
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = raw
        av_frame_free(&f)
    }

    /// A writable video frame with its own buffers (`av_frame_get_buffer`).
    public convenience init(width: Int, height: Int, pixelFormat: PixelFormat) throws(FFmpegError) {
        self.init()
        raw.pointee.width = Int32(width)
        raw.pointee.height = Int32(height)
        raw.pointee.format = pixelFormat.raw.rawValue
        try ffcall("frame", "av_frame_get_buffer(\(width)x\(height) \(pixelFormat.name))", category: .internalError) {
            av_frame_get_buffer(raw, 0)
        }
    }

    /// A writable audio frame of `samples` samples (`av_frame_get_buffer`), in the default
    /// layout for `channels` (`Encoder.makeAudioFrame` makes one in an encoder's own layout).
    public convenience init(samples: Int, sampleRate: Int, channels: Int, format: SampleFormat) throws(FFmpegError) {
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(channels))
        defer { av_channel_layout_uninit(&layout) }
        try self.init(samples: samples, sampleRate: Int32(sampleRate), format: format.raw, layout: &layout)
    }

    /// A writable audio frame with a copy of `layout`.
    convenience init(samples: Int, sampleRate: Int32, format: AVSampleFormat, layout: UnsafePointer<AVChannelLayout>) throws(FFmpegError) {
        self.init()
        raw.pointee.nb_samples = Int32(samples)
        raw.pointee.sample_rate = sampleRate
        raw.pointee.format = format.rawValue
        try ffcall("frame", "av_channel_layout_copy", category: .internalError) { av_channel_layout_copy(&raw.pointee.ch_layout, layout) }
        try ffcall("frame", "av_frame_get_buffer(audio)", category: .internalError) { av_frame_get_buffer(raw, 0) }
    }

    /// A frame that points into `bytes` (not copied, not owned), laid out as `layout` says: valid
    /// while `bytes` lives. For encoding or converting a camera buffer without a copy. Nil when
    /// `count` bytes are too few for the picture. No FFmpeg call: the layout was computed once.
    public convenience init?(
        borrowing bytes: UnsafeRawPointer, count: Int, width: Int, height: Int, pixelFormat: PixelFormat,
        layout: PlaneLayout
    ) {
        guard count >= layout.size else { return nil }
        self.init()
        raw.pointee.width = Int32(width)
        raw.pointee.height = Int32(height)
        raw.pointee.format = pixelFormat.raw.rawValue
        withUnsafeMutablePointer(to: &raw.pointee.data) { d in
            withUnsafeMutablePointer(to: &raw.pointee.linesize) { l in
                let data = UnsafeMutableRawPointer(d).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
                let sizes = UnsafeMutableRawPointer(l).assumingMemoryBound(to: Int32.self)
                for p in 0..<layout.offsets.count {
                    data[p] = UnsafeMutablePointer(mutating: (bytes + layout.offsets[p]).assumingMemoryBound(to: UInt8.self))
                    sizes[p] = layout.lineSizes[p]
                }
            }
        }
    }

    /// Bytes one picture of this size and format takes, packed (`av_image_get_buffer_size`, align 1).
    public static func bufferSize(width: Int, height: Int, pixelFormat: PixelFormat) -> Int {
        Int(av_image_get_buffer_size(pixelFormat.raw, Int32(width), Int32(height), 1))
    }

    public var width: Int { Int(raw.pointee.width) }
    public var height: Int { Int(raw.pointee.height) }
    public var pixelFormat: PixelFormat { PixelFormat(raw: AVPixelFormat(raw.pointee.format)) }
    public var sampleCount: Int { Int(raw.pointee.nb_samples) }
    public var channelCount: Int { Int(raw.pointee.ch_layout.nb_channels) }

    /// Presentation timestamp in the time base of whoever produced the frame; nil when unknown.
    public var pts: Int64? {
        get {
            let p = raw.pointee.pts != noPTS ? raw.pointee.pts : raw.pointee.best_effort_timestamp
            return p == noPTS ? nil : p
        }
        set { raw.pointee.pts = newValue ?? noPTS }
    }

    /// The decoder's best guess at the presentation time (`best_effort_timestamp`).
    public var bestEffortTimestamp: Int64? {
        raw.pointee.best_effort_timestamp == noPTS ? nil : raw.pointee.best_effort_timestamp
    }

    public var isKeyframe: Bool { raw.pointee.key_frame != 0 }

    /// Makes the buffers writable (copies if shared with an encoder or decoder).
    public func makeWritable() throws(FFmpegError) {
        try ffcall("frame", "av_frame_make_writable", category: .internalError) { av_frame_make_writable(raw) }
    }

    /// Plane `i`'s bytes and its line stride, valid only inside `body`.
    public func withPlane<R>(_ i: Int, _ body: (UnsafeMutablePointer<UInt8>, Int) throws -> R) rethrows -> R {
        let data: UnsafeMutablePointer<UInt8>? = withUnsafeBytes(of: raw.pointee.data) {
            $0.load(
                fromByteOffset: i * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride,
                as: UnsafeMutablePointer<UInt8>?.self)
        }
        let stride: Int32 = withUnsafeBytes(of: raw.pointee.linesize) {
            $0.load(fromByteOffset: i * MemoryLayout<Int32>.stride, as: Int32.self)
        }
        guard let data else { preconditionFailure("frame plane \(i) is empty") }
        return try body(data, Int(stride))
    }

    /// Clears the decoder's picture type so an encoder does not take it as a forced type.
    public func clearPictureType() {
        raw.pointee.pict_type = AV_PICTURE_TYPE_NONE
        raw.pointee.key_frame = 0
    }

    /// Keeps the top-left `width`×`height` of the picture (no resampling: the planes are not touched,
    /// only the visible size shrinks). The corresponding C function is `av_frame_apply_cropping`.
    public func cropBottomRight(toWidth width: Int, height: Int) throws(FFmpegError) {
        guard width < self.width || height < self.height else { return }
        raw.pointee.crop_right += Int(self.width - width)
        raw.pointee.crop_bottom += Int(self.height - height)
        try ffcall("frame", "av_frame_apply_cropping", category: .internalError) {
            av_frame_apply_cropping(raw, Int32(AV_FRAME_CROP_UNALIGNED))
        }
    }

    /// A new reference to the same buffers (`av_frame_ref`).
    public func reference() throws(FFmpegError) -> Frame {
        let f = Frame()
        try ffcall("frame", "av_frame_ref", category: .internalError) { av_frame_ref(f.raw, raw) }
        return f
    }

    /// Drops the buffers so the frame can receive the next decoded one.
    public func unref() { av_frame_unref(raw) }

    /// Gives the frame's samples another format of the same layout (one plane, the same bytes per
    /// sample): a raw sensor's gray samples read as the Bayer mosaic they are. Returns false, and
    /// changes nothing, when the two formats' layouts differ.
    @discardableResult
    public func relabel(as f: PixelFormat) -> Bool {
        guard let a = av_pix_fmt_desc_get(AVPixelFormat(raw.pointee.format)), let b = av_pix_fmt_desc_get(f.raw),
            a.pointee.nb_components == 1 || a.pointee.flags & UInt64(AV_PIX_FMT_FLAG_BAYER) != 0,
            b.pointee.nb_components == 1 || b.pointee.flags & UInt64(AV_PIX_FMT_FLAG_BAYER) != 0,
            av_get_bits_per_pixel(a) == av_get_bits_per_pixel(b)
        else { return false }
        raw.pointee.format = f.raw.rawValue
        return true
    }
}

/// A pixel format (`AVPixelFormat`), named as FFmpeg names it.
public struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    let raw: AVPixelFormat
    init(raw: AVPixelFormat) { self.raw = raw }

    public init?(name: String) {
        let f = av_get_pix_fmt(name)
        guard f != AV_PIX_FMT_NONE else { return nil }
        raw = f
    }

    public static let yuv420p = PixelFormat(raw: AV_PIX_FMT_YUV420P)
    public static let yuvj420p = PixelFormat(raw: AV_PIX_FMT_YUVJ420P)
    public static let gray = PixelFormat(raw: AV_PIX_FMT_GRAY8)
    public static let bgr0 = PixelFormat(raw: AV_PIX_FMT_BGR0)
    public static let yuv422p = PixelFormat(raw: AV_PIX_FMT_YUV422P)
    public static let yuv444p = PixelFormat(raw: AV_PIX_FMT_YUV444P)
    public static let yuv420p10 = PixelFormat(raw: AV_PIX_FMT_YUV420P10LE)
    public static let yuv422p10 = PixelFormat(raw: AV_PIX_FMT_YUV422P10LE)
    public static let yuv444p10 = PixelFormat(raw: AV_PIX_FMT_YUV444P10LE)
    public static let gray16 = PixelFormat(raw: AV_PIX_FMT_GRAY16LE)
    public static let rgb24 = PixelFormat(raw: AV_PIX_FMT_RGB24)
    public static let rgb48 = PixelFormat(raw: AV_PIX_FMT_RGB48LE)

    /// The Bayer mosaic format of a colour filter pattern (`RGGB`, `BGGR`, `GBRG`, `GRBG`), 8-bit or
    /// 16-bit little-endian samples; nil for another pattern.
    public static func bayer(_ pattern: String, sixteenBit: Bool) -> PixelFormat? {
        let table: [String: (AVPixelFormat, AVPixelFormat)] = [
            "BGGR": (AV_PIX_FMT_BAYER_BGGR8, AV_PIX_FMT_BAYER_BGGR16LE), "RGGB": (AV_PIX_FMT_BAYER_RGGB8, AV_PIX_FMT_BAYER_RGGB16LE),
            "GBRG": (AV_PIX_FMT_BAYER_GBRG8, AV_PIX_FMT_BAYER_GBRG16LE), "GRBG": (AV_PIX_FMT_BAYER_GRBG8, AV_PIX_FMT_BAYER_GRBG16LE),
        ]
        return table[pattern.uppercased()].map { PixelFormat(raw: sixteenBit ? $0.1 : $0.0) }
    }

    /// Bits per component (8 for yuv420p, 10 for yuv420p10le); 0 when FFmpeg does not describe it.
    /// The corresponding C function is `av_pix_fmt_desc_get`.
    public var bitDepth: Int {
        guard let d = av_pix_fmt_desc_get(raw) else { return 0 }
        return Int(d.pointee.comp.0.depth)
    }

    /// A planar YUV format's layout (three planes, little-endian): chroma subsampling as shifts
    /// (4:2:0: 1, 1), bytes per sample and bits; nil for any other format.
    public var planarYUV: (chromaShiftX: Int, chromaShiftY: Int, bytesPerSample: Int, bitDepth: Int)? {
        guard let d = av_pix_fmt_desc_get(raw) else { return nil }
        let flags = d.pointee.flags
        guard flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0, flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0,
            flags & UInt64(AV_PIX_FMT_FLAG_BE) == 0, d.pointee.nb_components == 3,
            d.pointee.comp.0.plane == 0, d.pointee.comp.1.plane == 1, d.pointee.comp.2.plane == 2
        else { return nil }
        return (Int(d.pointee.log2_chroma_w), Int(d.pointee.log2_chroma_h), Int(d.pointee.comp.0.step), Int(d.pointee.comp.0.depth))
    }

    /// True when chroma has fewer samples than luma across or down (4:2:0, 4:2:2), which makes
    /// odd sizes awkward for most encoders.
    public var subsamplesChroma: Bool {
        guard let d = av_pix_fmt_desc_get(raw) else { return false }
        return d.pointee.log2_chroma_w > 0 || d.pointee.log2_chroma_h > 0
    }

    /// The FFmpeg format of a raw V4L2 fourcc (`YUYV` → yuyv422…), from the capture pixel-format
    /// table; nil for compressed or unknown ones.
    public init?(v4l2FourCC: String) {
        guard let name = CapturePixelFormat.row(v4l2FourCC)?.ffmpeg else { return nil }
        self.init(name: name)
    }

    public var name: String {
        guard let c = av_get_pix_fmt_name(raw) else { return "none" }
        return String(cString: c)
    }

    public var description: String { name }

    /// Bits a pixel takes over every plane, padding excluded (yuyv422 16, nv12 12), as FFmpeg counts them.
    public var bitsPerPixel: Int { av_pix_fmt_desc_get(raw).map { Int(av_get_bits_per_pixel($0)) } ?? 0 }

    /// True for formats whose first plane is 8-bit luma (what the calibration reader samples).
    public var hasEightBitLumaPlane: Bool {
        guard let d = av_pix_fmt_desc_get(raw) else { return false }
        let isRGB = d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        return !isRGB && d.pointee.comp.0.depth == 8 && d.pointee.comp.0.plane == 0 && d.pointee.comp.0.step == 1
    }
}

/// An audio sample format (`AVSampleFormat`).
public struct SampleFormat: Hashable, Sendable, CustomStringConvertible {
    let raw: AVSampleFormat
    init(raw: AVSampleFormat) { self.raw = raw }
    public static let floatPlanar = SampleFormat(raw: AV_SAMPLE_FMT_FLTP)
    public static let float = SampleFormat(raw: AV_SAMPLE_FMT_FLT)
    public static let s16 = SampleFormat(raw: AV_SAMPLE_FMT_S16)
    public var name: String {
        guard let c = av_get_sample_fmt_name(raw) else { return "none" }
        return String(cString: c)
    }
    public var description: String { name }
    public var isPlanar: Bool { av_sample_fmt_is_planar(raw) != 0 }
}

/// Channel layouts by FFmpeg's names.
enum ChannelLayout {
    /// Sets `layout` to the one `name` names when it has `channels` channels, else to FFmpeg's
    /// default layout for `channels` (a source's `5.1(side)` stays `5.1(side)`, not `5.1`).
    static func set(_ layout: inout AVChannelLayout, name: String?, channels: Int) {
        av_channel_layout_uninit(&layout)
        // only a layout with named positions: an unspecified one ("6 channels") gets the default
        if let name, av_channel_layout_from_string(&layout, name) == 0, layout.nb_channels == Int32(channels),
            layout.order == AV_CHANNEL_ORDER_NATIVE
        {
            return
        }
        av_channel_layout_uninit(&layout)
        av_channel_layout_default(&layout, Int32(channels))
    }

    /// True when `codec` lists no layouts (it takes any) or lists `layout`.
    static func isAccepted(_ layout: AVChannelLayout, by codec: UnsafePointer<AVCodec>) -> Bool {
        guard var p = codec.pointee.ch_layouts else { return true }
        var wanted = layout
        while p.pointee.nb_channels != 0 {
            var listed = p.pointee
            if av_channel_layout_compare(&listed, &wanted) == 0 { return true }
            p += 1
        }
        return false
    }
}

/// Where a picture's planes lie in one buffer: each plane's bytes per line (padded rows kept) and
/// its offset, planes one after another, as V4L2 single-planar buffers (and slomo's ring, for
/// multi-planar ones) hold them.
public struct PlaneLayout: Sendable, Equatable {
    public let lineSizes: [Int32]
    public let offsets: [Int]
    /// Bytes per plane and for the whole picture.
    public let planeSizes: [Int]
    public let size: Int

    /// `bytesPerLine`: the driver's bytes per line, one per buffer plane; planes it does not name
    /// scale the first plane's padding as V4L2 does (YU12's chroma rows are half its luma rows).
    /// The corresponding C functions are `av_image_fill_linesizes` and `av_image_fill_plane_sizes`.
    public init(pixelFormat: PixelFormat, width: Int, height: Int, bytesPerLine: [Int]) throws(FFmpegError) {
        var packed: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        let rc = withUnsafeMutablePointer(to: &packed) {
            av_image_fill_linesizes(UnsafeMutableRawPointer($0).assumingMemoryBound(to: Int32.self), pixelFormat.raw, Int32(width))
        }
        if rc < 0 { throw FFmpegError(path: "frame", operation: "av_image_fill_linesizes", code: rc) }
        let natural = [Int(packed.0), Int(packed.1), Int(packed.2), Int(packed.3)]
        var lines = [Int32](repeating: 0, count: 4)
        for i in 0..<4 where natural[i] > 0 {
            if i < bytesPerLine.count, bytesPerLine[i] > 0 {
                lines[i] = Int32(bytesPerLine[i])
            } else if let first = bytesPerLine.first, first > 0 {
                lines[i] = Int32(natural[i] * first / natural[0])
            } else {
                lines[i] = Int32(natural[i])
            }
        }
        var sizes = [Int](repeating: 0, count: 4)
        let wide = lines.map { Int($0) }
        let src = sizes.withUnsafeMutableBufferPointer { sp in
            wide.withUnsafeBufferPointer { lp in
                av_image_fill_plane_sizes(sp.baseAddress, pixelFormat.raw, Int32(height), lp.baseAddress)
            }
        }
        if src < 0 { throw FFmpegError(path: "frame", operation: "av_image_fill_plane_sizes", code: src) }
        let count = lines.firstIndex(of: 0) ?? 4
        lineSizes = Array(lines.prefix(count))
        planeSizes = Array(sizes.prefix(count))
        var off = 0
        offsets = planeSizes.map { s in
            defer { off += s }
            return off
        }
        size = off
    }
}
