internal import CFFmpeg
import SlomoCore

/// An output file (`AVFormatContext` from `avformat_alloc_output_context2` plus its `AVIOContext`).
/// `finish()` writes the trailer and closes the file; `deinit` only releases.
public final class Muxer {
    /// The file, pipe or URL written.
    public let path: String
    /// The name errors give: the output the user named when `path` is a temporary file beside it.
    public let name: String
    var ctx: UnsafeMutablePointer<AVFormatContext>?
    private var headerWritten = false
    private var finished = false

    /// Creates the muxer; the container comes from `formatName` or the extension of `path`.
    public init(path: String, formatName: String? = nil, name: String? = nil) throws(FFmpegError) {
        self.path = path
        self.name = name ?? path
        var c: UnsafeMutablePointer<AVFormatContext>?
        try ffcall(self.name, "avformat_alloc_output_context2", category: .unsupported) {
            avformat_alloc_output_context2(&c, nil, formatName, path)
        }
        ctx = c
    }

    deinit {
        if let ctx {
            if ctx.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 { avio_closep(&ctx.pointee.pb) }
            avformat_free_context(ctx)
        }
    }

    var context: UnsafeMutablePointer<AVFormatContext> { ctx! }

    /// The container's short name (`mp4`, `mov`, `matroska`...).
    public var formatName: String { String(cString: context.pointee.oformat.pointee.name) }

    /// True when the container can hold codec `codecName`: `avformat_query_codec`, less the
    /// pairs the muxer has a tag for but refuses when writing the header (`refusedAtHeader`).
    public func accepts(codecName: String) -> Bool {
        guard let d = avcodec_descriptor_get_by_name(codecName) else { return false }
        if Muxer.refusedAtHeader[formatName]?.contains(codecName) == true { return false }
        return avformat_query_codec(context.pointee.oformat, d.pointee.id, FF_COMPLIANCE_NORMAL) == 1
    }

    /// Whether raw frames of `pixelFormat` can be stored (rawvideo): a container with a tag table
    /// (Matroska's VFW one) holds only the formats whose tag it lists, as FFmpeg checks at the header.
    public func acceptsRaw(pixelFormat: String) -> Bool {
        guard let tags = context.pointee.oformat.pointee.codec_tag else { return true }
        let tag = avcodec_pix_fmt_to_codec_tag(av_get_pix_fmt(pixelFormat))
        return tag != 0 && av_codec_get_id(tags, tag) == AV_CODEC_ID_RAWVIDEO
    }

    /// Why this container cannot hold raw `pixelFormat` frames (the end of a sentence); nil when it can.
    public func rawRefusal(pixelFormat: String) -> String? {
        acceptsRaw(pixelFormat: pixelFormat) ? nil : Muxer.rawRefusal(formatName: formatName, pixelFormat: pixelFormat)
    }

    /// The one wording of a raw refusal, for capture's check before the camera opens and for the
    /// header FFmpeg refused (retime, export, convert).
    static func rawRefusal(formatName: String, pixelFormat: String) -> String {
        let name = formatName.contains("matroska") ? "Matroska" : formatName
        return
            "FFmpeg 5.1's \(name) holds raw video in 8-bit gray or YUV only, not \(pixelFormat); write .nut, which holds it, or encode it with ffv1 (every sample kept)"
    }

    /// MP4 and MOV (FFmpeg's `mp4`, `mov` muxers): the ISO base media family, with edit lists,
    /// `movflags`, sample entries such as `hvc1`.
    public static func isISOMedia(_ formatName: String) -> Bool { ["mp4", "mov"].contains(formatName) }
    public var isISOMedia: Bool { Muxer.isISOMedia(formatName) }

    /// True when the container writes a stream's display matrix (rotation): in FFmpeg 5.1 only the
    /// mov family (its `tkhd` matrix); Matroska and NUT drop it.
    public var storesDisplayMatrix: Bool { ["mp4", "mov", "ipod", "3gp", "3g2", "ismv", "f4v", "psp"].contains(formatName) }

    /// Codecs FFmpeg 5.1's mov muxer lists but refuses in `avformat_write_header` at normal
    /// compliance: FLAC only as an experimental feature of MP4, Opus only in MP4 (found by writing
    /// each audio encoder into .mp4, .mov and .mkv with the ffmpeg CLI).
    static let refusedAtHeader: [String: Set<String>] = ["mp4": ["flac"], "mov": ["flac", "opus"]]

    /// True when encoders must put codec headers out of band (`AVFMT_GLOBALHEADER`).
    public var wantsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    /// Adds a stream fed by `encoder` and returns its index.
    public func addStream(for encoder: Encoder) throws(FFmpegError) -> Int {
        guard let s = avformat_new_stream(context, nil) else {
            throw FFmpegError(path: name, operation: "avformat_new_stream", message: "out of memory", category: .internalError)
        }
        try ffcall(name, "avcodec_parameters_from_context") { avcodec_parameters_from_context(s.pointee.codecpar, encoder.ctx) }
        setAppleTag(s.pointee.codecpar)
        s.pointee.time_base = encoder.ctx!.pointee.time_base
        if encoder.ctx!.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            s.pointee.avg_frame_rate = encoder.ctx!.pointee.framerate
            s.pointee.r_frame_rate = encoder.ctx!.pointee.framerate
        }
        return Int(s.pointee.index)
    }

    /// Adds a stream that will receive packets copied from `demuxer`'s stream `index` unchanged
    /// (`avcodec_parameters_copy`), with its stream side data (display matrix…) and the given time base.
    public func addStream(copying index: Int, from demuxer: Demuxer, timeBase: Rational, frameRate: Rational?) throws(FFmpegError) -> Int {
        guard let s = avformat_new_stream(context, nil) else {
            throw FFmpegError(path: name, operation: "avformat_new_stream", message: "out of memory", category: .internalError)
        }
        let src = demuxer.stream(index)
        try ffcall(name, "avcodec_parameters_copy") { avcodec_parameters_copy(s.pointee.codecpar, src.pointee.codecpar) }
        // The source's codec tag where the output container knows it for this codec (an iPhone's
        // `hvc1` stays `hvc1`), else the container's own choice (as the ffmpeg CLI does)
        let par = s.pointee.codecpar!
        var tag: UInt32 = 0
        if let tags = context.pointee.oformat.pointee.codec_tag,
            av_codec_get_id(tags, par.pointee.codec_tag) != par.pointee.codec_id,
            av_codec_get_tag2(tags, par.pointee.codec_id, &tag) != 0
        {
            par.pointee.codec_tag = 0
        }
        if context.pointee.oformat.pointee.codec_tag == nil { par.pointee.codec_tag = 0 }
        // raw frames from a demuxer that names no tag (a Phantom .cine, a Photron .mraw): the tag of
        // their pixel format, which Matroska needs to store them (as the rawvideo encoder sets it)
        if par.pointee.codec_id == AV_CODEC_ID_RAWVIDEO, par.pointee.codec_tag == 0 {
            par.pointee.codec_tag = avcodec_pix_fmt_to_codec_tag(AVPixelFormat(par.pointee.format))
        }
        setAppleTag(par)
        if let tb = timeBase.avRational { s.pointee.time_base = tb }
        if let fr = frameRate?.avRational {
            s.pointee.avg_frame_rate = fr
            s.pointee.r_frame_rate = fr
        }
        for i in 0..<Int(src.pointee.nb_side_data) {
            let sd = src.pointee.side_data[i]
            if let dst = av_stream_new_side_data(s, sd.type, sd.size) { dst.update(from: sd.data, count: sd.size) }
        }
        return Int(s.pointee.index)
    }

    /// Adds a video stream for packets that are already encoded (a camera's MJPEG or H.264),
    /// described by codec name and size (`avcodec_parameters` filled by hand).
    public func addStream(encodedVideo codec: String, width: Int, height: Int, timeBase: Rational, extradata: [UInt8] = []) throws(FFmpegError) -> Int {
        guard let desc = avcodec_descriptor_get_by_name(codec) else {
            throw FFmpegError(path: name, operation: "addStream", message: "unknown codec '\(codec)'", category: .unsupported)
        }
        guard let s = avformat_new_stream(context, nil) else {
            throw FFmpegError(path: name, operation: "avformat_new_stream", message: "out of memory", category: .internalError)
        }
        let par = s.pointee.codecpar!
        par.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        par.pointee.codec_id = desc.pointee.id
        par.pointee.width = Int32(width)
        par.pointee.height = Int32(height)
        if codec == "mjpeg" { par.pointee.format = AV_PIX_FMT_YUVJ422P.rawValue }
        if !extradata.isEmpty {
            let p = av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))!.assumingMemoryBound(to: UInt8.self)
            p.update(from: extradata, count: extradata.count)
            par.pointee.extradata = p
            par.pointee.extradata_size = Int32(extradata.count)
        }
        if let tb = timeBase.avRational { s.pointee.time_base = tb }
        return Int(s.pointee.index)
    }

    /// HEVC in MP4/MOV is tagged `hvc1` (parameter sets in the sample description only), which
    /// Apple's players require, where no tag is set yet: FFmpeg's default, `hev1`, they refuse.
    private func setAppleTag(_ par: UnsafeMutablePointer<AVCodecParameters>) {
        guard par.pointee.codec_id == AV_CODEC_ID_HEVC, par.pointee.codec_tag == 0,
            isISOMedia, par.pointee.extradata_size > 0
        else { return }
        par.pointee.codec_tag = Muxer.fourCC("hvc1")
    }

    /// A four-character code as FFmpeg's `MKTAG` makes it (first character in the low byte).
    static func fourCC(_ s: String) -> UInt32 {
        s.utf8.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    /// The four-character code of output stream `index` (`hvc1`, `avc1`…), empty when none is set
    /// yet (the muxer chooses one when the header is written).
    public func codecTag(ofStream index: Int) -> String {
        let t = context.pointee.streams[index]!.pointee.codecpar.pointee.codec_tag
        return t == 0 ? "" : String(decoding: (0..<4).map { UInt8((t >> (8 * $0)) & 0xff) }, as: UTF8.self)
    }

    /// Copies the container's metadata of `demuxer` (creation time, title, camera make and model,
    /// location…), each key under the name `rename` gives it (nil: left out).
    public func copyMetadata(from demuxer: Demuxer, renaming rename: (String) -> String?) {
        for (k, v) in demuxer.metadata.sorted(by: { $0.key < $1.key }) {
            if let key = rename(k) { av_dict_set(&context.pointee.metadata, key, v, 0) }
        }
    }

    /// Copies a stream's metadata (language, title, handler name…), each key under the name
    /// `rename` gives it (nil: left out), and its disposition (default, forced, comment…) from
    /// `demuxer`'s stream `source` to output stream `index`.
    public func copyStreamMetadata(from demuxer: Demuxer, stream source: Int, to index: Int, renaming rename: (String) -> String?) {
        let src = demuxer.stream(source), dst = context.pointee.streams[index]!
        for (k, v) in Demuxer.dictionary(src.pointee.metadata).sorted(by: { $0.key < $1.key }) {
            if let key = rename(k) { av_dict_set(&dst.pointee.metadata, key, v, 0) }
        }
        dst.pointee.disposition = src.pointee.disposition
    }

    /// Sets a metadata tag of output stream `index`.
    public func setMetadata(_ key: String, _ value: String, ofStream index: Int) {
        av_dict_set(&context.pointee.streams[index]!.pointee.metadata, key, value, 0)
    }

    /// A metadata tag of output stream `index` (as set so far), nil when unset.
    public func metadata(_ key: String, ofStream index: Int) -> String? {
        av_dict_get(context.pointee.streams[index]!.pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) }
    }

    /// Copies stream side data (display matrix…) from a demuxer stream to output stream `index`;
    /// without the display matrix when `displayMatrix` is false (the pixels were turned upright).
    public func copySideData(from demuxer: Demuxer, stream source: Int, to index: Int, displayMatrix: Bool = true) {
        let src = demuxer.stream(source), dst = context.pointee.streams[index]!
        for i in 0..<Int(src.pointee.nb_side_data) {
            let sd = src.pointee.side_data[i]
            if !displayMatrix && sd.type == AV_PKT_DATA_DISPLAYMATRIX { continue }
            if let p = av_stream_new_side_data(dst, sd.type, sd.size) { p.update(from: sd.data, count: sd.size) }
        }
    }

    /// Sets a stream's declared frame rate (what players and ffprobe show as the rate).
    public func setFrameRate(_ rate: Rational, ofStream index: Int) {
        guard let r = rate.avRational else { return }
        context.pointee.streams[index]!.pointee.avg_frame_rate = r
        context.pointee.streams[index]!.pointee.r_frame_rate = r
    }

    /// Sets a container-level metadata tag.
    public func setMetadata(_ key: String, _ value: String) {
        av_dict_set(&context.pointee.metadata, key, value, 0)
    }

    /// Opens the file and writes the header (`avio_open` + `avformat_write_header`).
    /// `options` are muxer options such as `movflags`.
    public func writeHeader(options: [String: String] = [:]) throws(FFmpegError) {
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            try ffcall(name, "avio_open", category: .outputFailed) { avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE) }
        }
        var dict: OpaquePointer? = nil
        defer { av_dict_free(&dict) }
        for (k, v) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&dict, k, v, 0) }
        let rc = avformat_write_header(context, &dict)
        if rc < 0 {
            // the muxer refused the streams (a codec or combination the container cannot hold), unless
            // the system said otherwise (disk full, permissions)
            let kind = FFmpegError.classify(rc)
            guard kind == .invalidData || kind == .unsupported else {
                throw FFmpegError(path: name, operation: "avformat_write_header", code: rc, category: kind)
            }
            throw FFmpegError(
                path: name, operation: "avformat_write_header",
                message: "\(streamsDescription) cannot be stored in \(formatName) (\(FFmpegError.describe(rc)))\(rawHint)",
                category: .unsupportedOutput)
        }
        headerWritten = true
    }

    /// Why Matroska refused raw frames, and what holds them: FFmpeg 5.1 stores raw video in
    /// Matroska only in the pixel formats its VFW table names (8-bit gray, some YUV).
    var rawHint: String {
        let raw = (0..<Int(context.pointee.nb_streams)).compactMap { i -> String? in
            let par = context.pointee.streams[i]!.pointee.codecpar!
            guard par.pointee.codec_id == AV_CODEC_ID_RAWVIDEO else { return nil }
            return av_get_pix_fmt_name(AVPixelFormat(par.pointee.format)).map { String(cString: $0) } ?? "raw"
        }
        guard let f = raw.first, formatName.contains("matroska") else { return "" }
        return ": " + Muxer.rawRefusal(formatName: formatName, pixelFormat: f)
    }

    /// The streams by codec and kind: "h264 video and aac audio".
    var streamsDescription: String {
        (0..<Int(context.pointee.nb_streams)).map { i -> String in
            let par = context.pointee.streams[i]!.pointee.codecpar!
            let codec = avcodec_get_name(par.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
            let kind = par.pointee.codec_type == AVMEDIA_TYPE_VIDEO ? "video" : par.pointee.codec_type == AVMEDIA_TYPE_AUDIO ? "audio" : "data"
            return "\(codec) \(kind)"
        }.joined(separator: " and ")
    }

    /// The time base the muxer chose for stream `i` (valid after `writeHeader`).
    public func timeBase(ofStream i: Int) -> Rational {
        Rational(context.pointee.streams[i]!.pointee.time_base) ?? Rational(1, 90000)
    }

    /// Writes a packet whose timestamps are already in the stream's time base (`av_interleaved_write_frame`).
    public func write(_ packet: Packet) throws(FFmpegError) {
        try ffcall(name, "av_interleaved_write_frame", category: .io) { av_interleaved_write_frame(context, packet.raw) }
    }

    /// Pushes buffered bytes to the file, pipe or socket now (`avio_flush`), for live output.
    public func flush() {
        if let pb = context.pointee.pb { avio_flush(pb) }
    }

    /// Writes the trailer and closes the file (`av_write_trailer` + `avio_closep`).
    public func finish() throws(FFmpegError) {
        guard headerWritten, !finished else { return }
        finished = true
        try ffcall(name, "av_write_trailer", category: .io) { av_write_trailer(context) }
        if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            try ffcall(name, "avio_closep", category: .io) { avio_closep(&context.pointee.pb) }
        }
    }
}
