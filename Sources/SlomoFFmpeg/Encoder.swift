internal import CFFmpeg
import SlomoCore

/// Settings for a video encoder.
public struct VideoEncoderSettings: Sendable {
    public var codec: String
    public var width: Int
    public var height: Int
    public var pixelFormat: PixelFormat
    /// Exact frame rate; the encoder's time base is its reciprocal unless `timeBase` is set.
    public var frameRate: Rational
    public var timeBase: Rational?
    public var gopSize: Int?
    public var maxBFrames: Int?
    /// Target bit rate in bit/s (`AVCodecContext.bit_rate`); nil: the encoder's rate control.
    public var bitRate: Int64?
    /// Private codec options (`preset`, `crf`, `tune`, `x264-params`...).
    public var options: [String: String]
    public var threads: Int

    public init(
        codec: String, width: Int, height: Int, pixelFormat: PixelFormat, frameRate: Rational,
        timeBase: Rational? = nil, gopSize: Int? = nil, maxBFrames: Int? = nil,
        options: [String: String] = [:], threads: Int = 0
    ) {
        self.codec = codec
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.frameRate = frameRate
        self.timeBase = timeBase
        self.gopSize = gopSize
        self.maxBFrames = maxBFrames
        self.options = options
        self.threads = threads
    }
}

/// Settings for an audio encoder.
public struct AudioEncoderSettings: Sendable {
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
    public var bitRate: Int
    /// Private codec options (`aac_pns`, `aac_is`, `compression_level`...).
    public var options: [String: String]
    /// Prefer 32-bit integer samples over 16-bit where the encoder takes both (FLAC, ALAC): for
    /// sources deeper than 16 bits.
    public var deep: Bool
    /// FFmpeg's name of the channel layout to write (`5.1(side)`, `quad`…); nil, unknown, or of
    /// another channel count: FFmpeg's default layout for `channels`.
    public var layout: String?
    public init(
        codec: String, sampleRate: Int, channels: Int, bitRate: Int = 128_000, options: [String: String] = [:],
        deep: Bool = false, layout: String? = nil
    ) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        self.options = options
        self.deep = deep
        self.layout = layout
    }
}

/// An open encoder (`AVCodecContext`); frees it in `deinit`. Confined to one thread.
public final class Encoder {
    public let path: String
    public let codecName: String
    /// A writable audio frame of `samples` samples in this encoder's sample format, rate and
    /// channel layout (copied, not parsed again for every frame).
    public func makeAudioFrame(samples: Int) throws(FFmpegError) -> Frame {
        try Frame(samples: samples, sampleRate: ctx!.pointee.sample_rate, format: ctx!.pointee.sample_fmt, layout: &ctx!.pointee.ch_layout)
    }
    var ctx: UnsafeMutablePointer<AVCodecContext>?
    /// The encoder's time base: frame pts and packet timestamps are in it.
    public let timeBase: Rational

    /// Opens a video encoder. `globalHeader` must be true for containers that want codec
    /// headers out of band (MP4, MOV, MKV).
    public init(path: String, video s: VideoEncoderSettings, globalHeader: Bool) throws(FFmpegError) {
        self.path = path
        let codec = try Encoder.find(s.codec, path: path)
        codecName = s.codec
        ctx = avcodec_alloc_context3(codec)
        guard let ctx else { throw FFmpegError(path: path, operation: "avcodec_alloc_context3", message: "out of memory", category: .internalError) }
        let tb = s.timeBase ?? (try? s.frameRate.reciprocal()) ?? Rational(1, 30)
        guard let avtb = tb.avRational, let avfr = s.frameRate.avRational else {
            throw FFmpegError(
                path: path, operation: "encoder \(s.codec)", message: "frame rate \(s.frameRate) does not fit FFmpeg's 32-bit rationals", category: .unsupported
            )
        }
        timeBase = tb
        ctx.pointee.width = Int32(s.width)
        ctx.pointee.height = Int32(s.height)
        ctx.pointee.pix_fmt = s.pixelFormat.raw
        ctx.pointee.time_base = avtb
        ctx.pointee.framerate = avfr
        ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        ctx.pointee.thread_count = Int32(s.threads)
        if let g = s.gopSize { ctx.pointee.gop_size = Int32(g) }
        if let b = s.bitRate { ctx.pointee.bit_rate = b }
        if let b = s.maxBFrames { ctx.pointee.max_b_frames = Int32(b) }
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        var options = s.options
        // x265 prints its banner past FFmpeg's log: keep it as quiet as FFmpeg's log is
        if s.codec == "libx265", options["x265-params"] == nil, av_log_get_level() < AV_LOG_INFO {
            options["x265-params"] = "log-level=error"
        }
        try open(codec, options: options)
    }

    /// Opens an audio encoder with the codec's first supported sample format (planar float preferred).
    public init(path: String, audio s: AudioEncoderSettings, globalHeader: Bool) throws(FFmpegError) {
        self.path = path
        let codec = try Encoder.find(s.codec, path: path)
        codecName = s.codec
        ctx = avcodec_alloc_context3(codec)
        guard let ctx else { throw FFmpegError(path: path, operation: "avcodec_alloc_context3", message: "out of memory", category: .internalError) }
        // float as the samples come (planar, then interleaved: libopus takes s16 or flt), else 32-bit
        // integers for a deep source, else the encoder's first
        let formats = Encoder.list(codec.pointee.sample_fmts, end: AV_SAMPLE_FMT_NONE)
        let deepFormats = s.deep ? [AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P] : []
        let format =
            formats.isEmpty
            ? AV_SAMPLE_FMT_FLTP
            : ([AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT] + deepFormats).first { formats.contains($0) } ?? formats[0]
        ctx.pointee.sample_fmt = format
        ctx.pointee.sample_rate = Int32(s.sampleRate)
        ChannelLayout.set(&ctx.pointee.ch_layout, name: s.layout, channels: s.channels)
        if !ChannelLayout.isAccepted(ctx.pointee.ch_layout, by: codec) {
            ChannelLayout.set(&ctx.pointee.ch_layout, name: nil, channels: s.channels)  // e.g. 5.1(side) into AAC
        }
        ctx.pointee.bit_rate = Int64(s.bitRate)
        ctx.pointee.time_base = AVRational(num: 1, den: Int32(s.sampleRate))
        timeBase = Rational(1, Int64(s.sampleRate))
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try open(codec, options: s.options)
    }

    deinit { avcodec_free_context(&ctx) }

    /// The pixel formats encoder `codec` accepts, in its order of preference; empty when the codec
    /// is unknown or does not say. Reads `AVCodec.pix_fmts`.
    public static func pixelFormats(codec name: String) -> [PixelFormat] {
        list(avcodec_find_encoder_by_name(name)?.pointee.pix_fmts, end: AV_PIX_FMT_NONE).map(PixelFormat.init(raw:))
    }

    /// The sample rates audio encoder `name` takes; empty when it takes any (or is unknown).
    public static func sampleRates(codec name: String) -> [Int] {
        list(avcodec_find_encoder_by_name(name)?.pointee.supported_samplerates, end: 0).map(Int.init)
    }

    /// The codec (`AVCodecDescriptor` name) that encoder `name` writes (`libopus` → `opus`); nil
    /// when this FFmpeg has no such encoder.
    public static func codecName(ofEncoder name: String) -> String? {
        guard let c = avcodec_find_encoder_by_name(name), let n = avcodec_get_name(c.pointee.id) else { return nil }
        return String(cString: n)
    }

    /// What encoder `name` writes (video, audio, subtitle…); nil when this FFmpeg has no such
    /// encoder. A codec's name that is not also an encoder's (`h264`, `hevc`) is nil.
    public static func mediaKind(ofEncoder name: String) -> MediaKind? {
        guard let c = avcodec_find_encoder_by_name(name) else { return nil }
        switch c.pointee.type {
        case AVMEDIA_TYPE_VIDEO: return .video
        case AVMEDIA_TYPE_AUDIO: return .audio
        case AVMEDIA_TYPE_SUBTITLE: return .subtitle
        default: return .unknown
        }
    }

    /// The items of one of `AVCodec`'s lists, which end with `end`.
    private static func list<T: Equatable>(_ p: UnsafePointer<T>?, end: T) -> [T] {
        guard let p else { return [] }
        var out: [T] = []
        while p[out.count] != end { out.append(p[out.count]) }
        return out
    }

    private static func find(_ name: String, path: String) throws(FFmpegError) -> UnsafePointer<AVCodec> {
        guard let c = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(
                path: path, operation: "avcodec_find_encoder_by_name(\(name))",
                message: "no encoder '\(name)' in this FFmpeg build", category: .unsupported)
        }
        return c
    }

    private func open(_ codec: UnsafePointer<AVCodec>, options: [String: String]) throws(FFmpegError) {
        var dict: OpaquePointer? = nil
        defer { av_dict_free(&dict) }
        for (k, v) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&dict, k, v, 0) }
        try ffcall(path, "avcodec_open2(\(codecName))", category: .unsupported) { avcodec_open2(ctx, codec, &dict) }
        if let left = av_dict_get(dict, "", nil, AV_DICT_IGNORE_SUFFIX) {
            throw FFmpegError(
                path: path, operation: "avcodec_open2(\(codecName))",
                message: "option '\(String(cString: left.pointee.key))' is not known to \(codecName)", category: .unsupported)
        }
    }

    /// Samples per audio frame the encoder wants (0 = any).
    public var frameSize: Int { Int(ctx!.pointee.frame_size) }
    /// Samples of priming the encoder puts before the first input sample (AAC: 1024): its first
    /// packet's pts is the first frame's minus this (`AVCodecContext.initial_padding`).
    public var initialPadding: Int { Int(ctx!.pointee.initial_padding) }
    /// The codec configuration the encoder wrote (AAC's AudioSpecificConfig), empty when none.
    public var extradata: [UInt8] {
        guard let p = ctx!.pointee.extradata, ctx!.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: Int(ctx!.pointee.extradata_size)))
    }
    public var sampleFormat: SampleFormat { SampleFormat(raw: ctx!.pointee.sample_fmt) }

    /// `avcodec_send_frame`; nil flushes. Returns false on EAGAIN (drain packets first).
    public func send(_ frame: Frame?) throws(FFmpegError) -> Bool {
        let rc = avcodec_send_frame(ctx, frame?.raw)
        if rc == averrorEAGAIN { return false }
        if rc == averrorEOF { return true }
        if rc < 0 { throw FFmpegError(path: path, operation: "avcodec_send_frame(\(codecName))", code: rc) }
        return true
    }

    /// `avcodec_receive_packet` into `packet`.
    public func receive(into packet: Packet) throws(FFmpegError) -> CodecReceive {
        packet.unref()
        let rc = avcodec_receive_packet(ctx, packet.raw)
        if rc == averrorEAGAIN { return .needsInput }
        if rc == averrorEOF { return .endOfStream }
        if rc < 0 { throw FFmpegError(path: path, operation: "avcodec_receive_packet(\(codecName))", code: rc) }
        return .got
    }
}
