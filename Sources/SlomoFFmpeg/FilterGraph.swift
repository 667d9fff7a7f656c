internal import CFFmpeg
import SlomoCore

/// A one-input, one-output video filter graph (`buffer` → description → `buffersink`).
/// Confined to one thread. The sink's time base is the one output frames' pts are in.
public final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    public let description: String

    /// `description` is a libavfilter graph string such as `minterpolate=fps=30:mi_mode=mci`.
    public init(width: Int, height: Int, pixelFormat: PixelFormat, timeBase: Rational, description: String, threads: Int = 0) throws(FFmpegError) {
        self.description = description
        graph = avfilter_graph_alloc()
        guard let graph, let tb = timeBase.avRational else {
            throw FFmpegError(path: "filter", operation: "avfilter_graph_alloc", message: "cannot create a filter graph", category: .internalError)
        }
        graph.pointee.nb_threads = Int32(threads)
        let args = "video_size=\(width)x\(height):pix_fmt=\(pixelFormat.raw.rawValue):time_base=\(tb.num)/\(tb.den):pixel_aspect=1/1"
        try ffcall("filter", "avfilter_graph_create_filter(buffer)") {
            avfilter_graph_create_filter(&source, avfilter_get_by_name("buffer"), "in", args, nil, graph)
        }
        try ffcall("filter", "avfilter_graph_create_filter(buffersink)") {
            avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out", nil, nil, graph)
        }
        var outputs = avfilter_inout_alloc(), inputs = avfilter_inout_alloc()
        defer {
            avfilter_inout_free(&outputs)
            avfilter_inout_free(&inputs)
        }
        outputs?.pointee.name = av_strdup("in")
        outputs?.pointee.filter_ctx = source
        outputs?.pointee.pad_idx = 0
        outputs?.pointee.next = nil
        inputs?.pointee.name = av_strdup("out")
        inputs?.pointee.filter_ctx = sink
        inputs?.pointee.pad_idx = 0
        inputs?.pointee.next = nil
        try ffcall("filter", "avfilter_graph_parse_ptr(\(description))", category: .unsupported) {
            avfilter_graph_parse_ptr(graph, description, &inputs, &outputs, nil)
        }
        try ffcall("filter", "avfilter_graph_config(\(description))", category: .unsupported) { avfilter_graph_config(graph, nil) }
    }

    deinit { avfilter_graph_free(&graph) }

    /// The time base of output frames (`av_buffersink_get_time_base`).
    public var outputTimeBase: Rational { Rational(av_buffersink_get_time_base(sink)) ?? Rational(1, 90000) }

    /// Feeds a frame (nil = end of input).
    public func push(_ frame: Frame?) throws(FFmpegError) {
        try ffcall("filter", "av_buffersrc_add_frame") { av_buffersrc_add_frame_flags(source, frame?.raw, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)) }
    }

    /// The next output frame into `frame`.
    public func pull(into frame: Frame) throws(FFmpegError) -> CodecReceive {
        frame.unref()
        let rc = av_buffersink_get_frame(sink, frame.raw)
        if rc == averrorEAGAIN { return .needsInput }
        if rc == averrorEOF { return .endOfStream }
        if rc < 0 { throw FFmpegError(path: "filter", operation: "av_buffersink_get_frame", code: rc) }
        return .got
    }
}
