import SlomoCore
import SlomoFFmpeg

/// `varispeed`: resampling like a tape played faster or slower — the pitch follows the rate.
/// libswresample with the SoX resampler engine (`SampleConverter(soxr: true)`, 28-bit precision):
/// playing at `rate` is resampling by in:out = rate.numerator : rate.denominator (scaled so both
/// are ≥ 8000 — the resampler's filter design is relative — and kept exact whenever that fits).
public final class VarispeedStretcher: StretchEngine {
    public let channels: Int
    public let rate: Rational
    public var startPad: Int { 0 }
    public var startDelay: Int { 0 }
    public var latency: Int { 64 }
    private let converter: SampleConverter
    private var ready: PlanarFIFO

    public init(rate: Rational, sampleRate: Int, channels: Int) throws(AudioFailure) {
        self.channels = channels
        self.rate = rate
        var p = rate.numerator, q = rate.denominator
        while Swift.min(p, q) < 8000 && Swift.max(p, q) < Int64(Int32.max / 2) {
            p *= 2
            q *= 2
        }
        while Swift.max(p, q) > Int64(Int32.max) {
            p = (p + 1) / 2
            q = (q + 1) / 2
        }
        do {
            converter = try SampleConverter(
                channels: channels, inRate: Int(p), inFormat: .floatPlanar,
                outRate: Int(q), outFormat: .floatPlanar, soxr: true)
        } catch {
            throw AudioFailure(.engineFailed, subject: "audio", operation: "varispeed resampler \(p):\(q)", cause: "\(error)")
        }
        ready = PlanarFIFO(channels: channels)
    }

    /// The corresponding C function is `swr_convert` (through `SampleConverter`).
    public func feed(_ planes: [UnsafePointer<Float>], count: Int) throws {
        do { try converter.convert(fromPlanes: planes, count: count) { out, n in ready.append(out, count: n) } } catch {
            throw AudioFailure(.engineFailed, subject: "audio", operation: "varispeed swr_convert", cause: "\(error)")
        }
    }

    public func retrieve(into planes: [UnsafeMutablePointer<Float>], maxCount: Int) -> Int {
        let n = Swift.min(maxCount, ready.count)
        ready.pop(into: planes, count: n)
        return n
    }
}
