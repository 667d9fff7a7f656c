internal import CFFmpeg
import SlomoCore

/// The result of asking a codec for output: EAGAIN and EOF are states, not errors.
public enum CodecReceive {
    case got
    case needsInput
    case endOfStream
}

/// An open decoder (`AVCodecContext`); frees it in `deinit`. Confined to one thread.
public final class Decoder {
    public let path: String
    var ctx: UnsafeMutablePointer<AVCodecContext>?
    public let codecName: String

    init(path: String, parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, threads: Int) throws(FFmpegError) {
        self.path = path
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            let name = avcodec_get_name(parameters.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
            throw FFmpegError(
                path: path, operation: "avcodec_find_decoder(\(name))",
                message: "no decoder for codec '\(name)' in this FFmpeg build", category: .unsupported)
        }
        codecName = String(cString: codec.pointee.name)
        ctx = avcodec_alloc_context3(codec)
        guard let ctx else { throw FFmpegError(path: path, operation: "avcodec_alloc_context3", message: "out of memory", category: .internalError) }
        try ffcall(path, "avcodec_parameters_to_context") { avcodec_parameters_to_context(ctx, parameters) }
        ctx.pointee.pkt_timebase = timeBase
        ctx.pointee.thread_count = Int32(threads)
        try ffcall(path, "avcodec_open2(\(codecName))") { avcodec_open2(ctx, codec, nil) }
    }

    deinit { avcodec_free_context(&ctx) }

    /// The sample format decoded audio frames come in.
    public var sampleFormat: SampleFormat { SampleFormat(raw: ctx!.pointee.sample_fmt) }

    /// Which frames the decoder may skip decoding (`skip_frame`): `.nonReference` skips frames no other frame needs.
    public enum Skip { case none, nonReference, nonKey }
    public var skip: Skip = .none {
        didSet {
            ctx!.pointee.skip_frame = skip == .none ? AVDISCARD_DEFAULT : skip == .nonReference ? AVDISCARD_NONREF : AVDISCARD_NONKEY
        }
    }

    /// `avcodec_send_packet`; nil sends the end-of-stream flush. Returns false when the decoder
    /// wants its output drained first (EAGAIN).
    public func send(_ packet: Packet?) throws(FFmpegError) -> Bool {
        let rc = avcodec_send_packet(ctx, packet?.raw)
        if rc == averrorEAGAIN { return false }
        if rc == averrorEOF { return true }
        if rc < 0 { throw decodeFailure("avcodec_send_packet(\(codecName))", rc) }
        return true
    }

    /// A decoder's error is about the data it was given, whatever code it picked: FFmpeg's MJPEG
    /// decoder answers some damaged JPEGs with a bare -1, which reads as EPERM (found by
    /// scripts/mutate-media.py: "Operation not permitted", exit 77). Only running out of memory
    /// is not the data's fault.
    func decodeFailure(_ operation: String, _ rc: Int32) -> FFmpegError {
        guard rc != cffmpeg_averror(ENOMEM) else { return FFmpegError(path: path, operation: operation, code: rc, category: .internalError) }
        var e = FFmpegError(path: path, operation: operation, code: rc, category: .invalidData)
        e.damagedData = true
        return e
    }

    /// `avcodec_receive_frame` into `frame`.
    public func receive(into frame: Frame) throws(FFmpegError) -> CodecReceive {
        frame.unref()
        let rc = avcodec_receive_frame(ctx, frame.raw)
        if rc == averrorEAGAIN { return .needsInput }
        if rc == averrorEOF { return .endOfStream }
        if rc < 0 { throw decodeFailure("avcodec_receive_frame(\(codecName))", rc) }
        return .got
    }

    /// `receive`, or nil for a frame the decoder found damaged (AVERROR_INVALIDDATA; threaded
    /// decoders report a bad packet here, not at `send`): decoding goes on with the next frame.
    public func receiveUnlessDamaged(into frame: Frame) throws(FFmpegError) -> CodecReceive? {
        // through a Result: a `catch where` on a typed throw crashes Swift 6.3's AllocBoxToStack
        switch Result(catching: { () throws(FFmpegError) in try receive(into: frame) }) {
        case .success(let r): return r
        case .failure(let e) where e.isInvalidData: return nil
        case .failure(let e): throw e
        }
    }
}
