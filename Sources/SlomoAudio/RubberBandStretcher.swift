internal import CRubberBand
import SlomoCore

/// `spectral`: Rubber Band 3's R3 ("finer") engine, pitch kept. The one owner of a
/// `RubberBandState`, freed in `deinit`.
///
/// Real-time mode, chosen over offline mode because it streams (offline needs a `study` pass
/// over the whole input first) and, measured here, costs the same CPU as offline R3 when the pitch
/// scale is 1 and `PitchHighConsistency` is off (that option keeps R3's resampler in the path:
/// +50 % CPU at ratio 8). Exact durations come from the driver: it feeds
/// `rubberband_get_preferred_start_pad()` zeros first and drops `rubberband_get_start_delay()`
/// output frames, after which output j belongs to input j × rate; each segment is then cut to its
/// exact length.
public final class RubberBandStretcher: StretchEngine {
    public let channels: Int
    public private(set) var rate: Rational
    public let startPad: Int
    public let startDelay: Int
    public var latency: Int { startDelay }
    /// R3 (3.1.2, `R3Stretcher::consume`) analyses the frame centred half a window (the start pad)
    /// after its read position once a whole window is buffered, and a new time ratio applies from
    /// the next frame analysed. With all output retrieved, `samples required` = window − buffered
    /// input, so the next analysed frame lies `start pad − samples required` frames behind the
    /// newest frame fed. (Setting each ratio when the feed reached its frame played the last
    /// 1800–2048 frames fed at the new ratio: a curve to 1/4 put its clicks 100 ms late, to 1/8
    /// 290 ms; `GlideSyncTests`.)
    public var rateChangeLead: Int { startPad - Int(rubberband_get_samples_required(state)) }
    /// One hop: R3 analyses a frame whenever a whole window (2 × the start pad) is buffered, so
    /// with no output pending `samples required` = window − buffered input, and feeding that much
    /// makes exactly one analysis step.
    public var feedQuantum: Int? { Swift.max(1, Int(rubberband_get_samples_required(state))) }
    private var state: RubberBandState?
    private let maxBlock = 4096

    /// The corresponding C function is `rubberband_new` (time ratio = 1 / rate, pitch scale 1).
    public init(rate: Rational, sampleRate: Int, channels: Int) throws(AudioFailure) {
        self.channels = channels
        self.rate = rate
        var options = RubberBandOptionProcessRealTime.rawValue | RubberBandOptionEngineFiner.rawValue
        // stereo: one phase for both channels (R3 mid/side) keeps the image; more channels stay apart
        if channels == 2 { options |= RubberBandOptionChannelsTogether.rawValue }
        let ratio = Rational.one / rate
        state = rubberband_new(UInt32(sampleRate), UInt32(channels), Int32(bitPattern: options), ratio.doubleValue, 1.0)
        guard let state else {
            throw AudioFailure(
                .engineFailed, subject: "audio", operation: "rubberband_new(R3, \(sampleRate) Hz, \(channels) ch)",
                cause: "Rubber Band could not be created")
        }
        rubberband_set_max_process_size(state, UInt32(maxBlock))
        startPad = Int(rubberband_get_preferred_start_pad(state))
        startDelay = Int(rubberband_get_start_delay(state))
    }

    deinit { if let state { rubberband_delete(state) } }

    /// The corresponding C function is `rubberband_process` (never with `final`: the driver feeds
    /// silence past the end instead of flushing).
    public func feed(_ planes: [UnsafePointer<Float>], count: Int) {
        var offset = 0
        var ptrs = planes.map { Optional($0) }
        while offset < count {
            let n = Swift.min(maxBlock, count - offset)
            for c in 0..<channels { ptrs[c] = planes[c] + offset }
            ptrs.withUnsafeBufferPointer { rubberband_process(state, $0.baseAddress!, UInt32(n), 0) }
            offset += n
        }
    }

    /// The corresponding C function is `rubberband_set_time_ratio` (real-time mode takes a new
    /// ratio between process calls).
    public func setRate(_ rate: Rational) {
        self.rate = rate
        rubberband_set_time_ratio(state, (Rational.one / rate).doubleValue)
    }

    /// The corresponding C functions are `rubberband_available` and `rubberband_retrieve`.
    public func retrieve(into planes: [UnsafeMutablePointer<Float>], maxCount: Int) -> Int {
        let available = Int(rubberband_available(state))
        guard available > 0 else { return 0 }
        let n = Swift.min(available, maxCount)
        let ptrs = planes.map { Optional($0) }
        return Int(ptrs.withUnsafeBufferPointer { rubberband_retrieve(state, $0.baseAddress!, UInt32(n)) })
    }
}
