internal import CFFmpeg
import SlomoCore

/// What kind of elementary stream.
public enum MediaKind: String, Sendable, Codable {
    case video, audio, subtitle, data, attachment, unknown
}

/// A value snapshot of one stream of an open file. Never points into FFmpeg's memory.
public struct StreamInfo: Sendable {
    public var index: Int
    public var kind: MediaKind
    public var codecName: String
    public var codecLongName: String
    public var timeBase: Rational
    /// `avg_frame_rate` from the container (may be a guess; nil when unknown).
    public var averageFrameRate: Rational?
    /// `r_frame_rate`: the lowest rate that represents all timestamps (nil when unknown).
    public var realFrameRate: Rational?
    public var width: Int
    public var height: Int
    public var pixelFormat: String?
    public var sampleRate: Int
    public var channels: Int
    public var channelLayout: String?
    public var sampleFormat: String?
    /// Declared duration in `timeBase` ticks (nil when the container gives none).
    public var durationTicks: Int64?
    public var startTicks: Int64?
    /// Declared frame count (`nb_frames`; 0 or nil when unknown).
    public var declaredFrameCount: Int64?
    public var bitRate: Int64
    public var metadata: [String: String]
    /// Every frame is a keyframe (`AV_CODEC_PROP_INTRA_ONLY`: MJPEG, FFV1, ProRes…).
    public var intraOnly: Bool
    /// Codec extradata (avcC / hvcC…), for bitstream inspection.
    public var extradata: [UInt8]
    /// Display rotation in degrees from the display matrix side data (counter-clockwise), if any.
    public var rotation: Double?
    /// True when the display matrix also mirrors the picture (negative determinant).
    public var mirrored = false
    /// Samples per audio packet when the codec's frames have a fixed size (AAC: 1024); 0 when
    /// unknown or variable (`AVCodecParameters.frame_size`).
    public var frameSize = 0
    /// The codec profile's name (`LC`, `HE-AAC`, `High`…), nil when unknown (`avcodec_profile_name`).
    public var profile: String?
}

/// An open input file (`AVFormatContext` from `avformat_open_input`); closes it in `deinit`.
public final class Demuxer {
    public let path: String
    var ctx: UnsafeMutablePointer<AVFormatContext>?
    /// Times stored beside the images that replace one stream's timestamps (see ``StoredPacketTimes``).
    public var storedTimes: StoredPacketTimes?

    /// Opens and probes `path` (`avformat_open_input` + `avformat_find_stream_info`); `format`
    /// names the demuxer instead of probing (`rawvideo` for frames with no header), with its
    /// private `options` (`video_size`, `pixel_format`, `framerate`).
    public init(path: String, format: String? = nil, options: [String: String] = [:]) throws(FFmpegError) {
        self.path = path
        var c: UnsafeMutablePointer<AVFormatContext>?
        // On failure avformat_open_input frees the context and sets it to NULL: nothing to clean up.
        // EIO here comes from a demuxer whose header read ran short of what the header declares (a
        // damaged FLAC metadata block, found by scripts/mutate-media.py): the data, not the disk.
        let eio = cffmpeg_averror(EIO)
        let input = format.flatMap { av_find_input_format($0) }
        if let format, input == nil {
            throw FFmpegError(path: path, operation: "open", message: "this FFmpeg has no \(format) demuxer", category: .unsupported)
        }
        var dict: OpaquePointer?
        defer { av_dict_free(&dict) }
        for (k, v) in options.sorted(by: { $0.key < $1.key }) { av_dict_set(&dict, k, v, 0) }
        let rc = avformat_open_input(&c, path, input, &dict)
        if rc < 0 { throw FFmpegError(path: path, operation: "avformat_open_input", code: rc, category: rc == eio ? .invalidData : nil) }
        ctx = c
        try ffcall(path, "avformat_find_stream_info") { avformat_find_stream_info(c, nil) }
    }

    deinit { avformat_close_input(&ctx) }

    var context: UnsafeMutablePointer<AVFormatContext> { ctx! }

    public var formatName: String { String(cString: context.pointee.iformat.pointee.name) }
    public var formatLongName: String {
        context.pointee.iformat.pointee.long_name.map { String(cString: $0) } ?? formatName
    }

    /// Container duration (`AV_TIME_BASE` units) as exact seconds; nil when unknown.
    public var duration: Rational? {
        let d = context.pointee.duration
        return d == noPTS || d <= 0 ? nil : Rational(d, Int64(AV_TIME_BASE))
    }

    public var bitRate: Int64 { context.pointee.bit_rate }

    public var metadata: [String: String] { Demuxer.dictionary(context.pointee.metadata) }

    public var streamCount: Int { Int(context.pointee.nb_streams) }

    func stream(_ i: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[i]! }

    /// Snapshots of every stream.
    public var streams: [StreamInfo] { (0..<streamCount).map(streamInfo) }

    public func streamInfo(_ i: Int) -> StreamInfo {
        let s = stream(i)
        let par = s.pointee.codecpar!.pointee
        let kind: MediaKind
        switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .unknown
        }
        let desc = avcodec_descriptor_get(par.codec_id)
        var layoutName: String?
        if kind == .audio {
            var buf = [CChar](repeating: 0, count: 128)
            var layout = par.ch_layout
            if av_channel_layout_describe(&layout, &buf, buf.count) > 0 {
                layoutName = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        var rotation: Double?
        var mirrored = false
        var sideSize: Int = 0
        if let side = av_stream_get_side_data(s, AV_PKT_DATA_DISPLAYMATRIX, &sideSize), sideSize >= 36 {
            side.withMemoryRebound(to: Int32.self, capacity: 9) { m in
                let r = av_display_rotation_get(m)
                if r.isFinite { rotation = r }
                // 16.16 fixed point a, b / c, d: a mirror turns the sign of ad − bc
                mirrored = Double(m[0]) * Double(m[4]) - Double(m[1]) * Double(m[3]) < 0
            }
        }
        var info = StreamInfo(
            index: i, kind: kind,
            codecName: desc.map { String(cString: $0.pointee.name) } ?? "unknown",
            codecLongName: desc.flatMap { $0.pointee.long_name }.map { String(cString: $0) } ?? "unknown",
            timeBase: Rational(s.pointee.time_base) ?? Rational(1, 90000),
            averageFrameRate: Rational(s.pointee.avg_frame_rate).flatMap { $0.isZero ? nil : $0 },
            realFrameRate: Rational(s.pointee.r_frame_rate).flatMap { $0.isZero ? nil : $0 },
            width: Int(par.width), height: Int(par.height),
            pixelFormat: kind == .video ? av_get_pix_fmt_name(AVPixelFormat(par.format)).map { String(cString: $0) } : nil,
            sampleRate: Int(par.sample_rate), channels: Int(par.ch_layout.nb_channels),
            channelLayout: layoutName,
            sampleFormat: kind == .audio ? av_get_sample_fmt_name(AVSampleFormat(par.format)).map { String(cString: $0) } : nil,
            durationTicks: s.pointee.duration == noPTS ? nil : s.pointee.duration,
            startTicks: s.pointee.start_time == noPTS ? nil : s.pointee.start_time,
            declaredFrameCount: s.pointee.nb_frames > 0 ? s.pointee.nb_frames : nil,
            bitRate: par.bit_rate,
            metadata: Demuxer.dictionary(s.pointee.metadata),
            intraOnly: desc.map { $0.pointee.props & AV_CODEC_PROP_INTRA_ONLY != 0 } ?? false,
            extradata: par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.extradata_size))) } ?? [],
            rotation: rotation, mirrored: mirrored, frameSize: Int(par.frame_size),
            profile: avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) })
        if let st = storedTimes, st.stream == i, let last = st.ticks.last {
            info.timeBase = st.timeBase
            info.startTicks = st.ticks.first
            info.durationTicks = last + st.lastDuration - (st.ticks.first ?? 0)
        }
        return info
    }

    /// Seeks to the keyframe at or before `seconds` on stream `index` (`av_seek_frame` backward).
    public func seek(stream index: Int, to seconds: Rational) throws(FFmpegError) {
        let tb = streamInfo(index).timeBase
        var ts = (try? seconds.ticks(in: tb, rounding: .down)) ?? 0
        if let st = storedTimes, st.stream == index { ts = st.index(atOrBefore: ts) }
        try ffcall(path, "av_seek_frame") { av_seek_frame(context, Int32(index), ts, AVSEEK_FLAG_BACKWARD) }
    }

    /// Index of the "best" stream of a kind (`av_find_best_stream`), nil when there is none.
    public func bestStream(_ kind: MediaKind) -> Int? {
        let t: AVMediaType = kind == .video ? AVMEDIA_TYPE_VIDEO : kind == .audio ? AVMEDIA_TYPE_AUDIO : AVMEDIA_TYPE_DATA
        let i = av_find_best_stream(context, t, -1, -1, nil, 0)
        return i >= 0 ? Int(i) : nil
    }

    /// One packet of a stream as the container's index lists it, in the order the demuxer reads them.
    public struct IndexEntry: Sendable, Equatable {
        /// In the stream's time base (MP4/MOV: the decode time, with the edit list applied).
        public var timestamp: Int64
        /// Byte offset of the packet in the file.
        public var position: Int64
        public var size: Int
        public var keyframe: Bool
        /// Before an edit list's start: decoded but not shown (`AVINDEX_DISCARD_FRAME`).
        public var discard: Bool
    }

    /// Stream `i`'s index (`avformat_index_get_entry`): every packet for MP4 and MOV, whose sample
    /// tables list them all when the file is opened; only some (Matroska's cues) or none elsewhere.
    public func indexEntries(stream i: Int) -> [IndexEntry] {
        let s = stream(i)
        let n = Int(avformat_index_get_entries_count(s))
        var out: [IndexEntry] = []
        out.reserveCapacity(n)
        for k in 0..<n {
            guard let e = avformat_index_get_entry(s, Int32(k)) else { break }
            let flags = Int32(e.pointee.flags)
            out.append(
                IndexEntry(
                    timestamp: e.pointee.timestamp, position: e.pointee.pos, size: Int(e.pointee.size),
                    keyframe: flags & AVINDEX_KEYFRAME != 0, discard: flags & AVINDEX_DISCARD_FRAME != 0))
        }
        return out
    }

    /// Tells the demuxer to drop every packet of the streams not listed (saves I/O parsing work).
    public func keepOnly(streams keep: Set<Int>) {
        for i in 0..<streamCount {
            stream(i).pointee.discard = keep.contains(i) ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }

    /// The next packet (`av_read_frame`), or nil at the end of the file.
    /// Damaged data after the header is reported as an error with the byte position.
    public func readPacket(into packet: Packet) throws(FFmpegError) -> Bool {
        packet.unref()
        let rc = av_read_frame(context, packet.raw)
        if rc == averrorEOF { return false }
        if rc < 0 { throw FFmpegError(path: path, operation: "av_read_frame", code: rc) }
        storedTimes?.apply(to: packet)
        return true
    }

    /// Opens a decoder for stream `i` (`avcodec_find_decoder` + `avcodec_parameters_to_context` + `avcodec_open2`).
    public func makeDecoder(stream i: Int, threads: Int = 0) throws(FFmpegError) -> Decoder {
        let tb = storedTimes.flatMap { $0.stream == i ? $0.timeBase.avRational : nil } ?? stream(i).pointee.time_base
        return try Decoder(path: path, parameters: stream(i).pointee.codecpar, timeBase: tb, threads: threads)
    }

    static func dictionary(_ d: OpaquePointer?) -> [String: String] {
        var out: [String: String] = [:]
        var e: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let entry = av_dict_get(d, "", e, AV_DICT_IGNORE_SUFFIX) {
            out[String(cString: entry.pointee.key)] = String(cString: entry.pointee.value)
            e = entry
        }
        return out
    }
}
