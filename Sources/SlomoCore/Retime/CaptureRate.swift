/// A phone's slow-motion recording carries the rate it was captured at beside the rate it plays at:
/// Android writes `com.android.capture.fps` (a decimal, e.g. `240.000000`) into the MP4's metadata
/// for a 240 fps capture stored to play at 30 fps. From the two, the speed the file plays at
/// relative to real time (30/240 = 1/8), and a rate relative to real time turned into one on the
/// file's own timeline (`--real-time`).
public struct CaptureRate: Sendable, Equatable, Codable {
    /// The metadata keys read, in order.
    public static let keys = ["com.android.capture.fps"]

    /// Frames per second the camera captured.
    public var captureFrameRate: Rational
    /// Frames per second the file plays at (its measured or nominal rate).
    public var storedFrameRate: Rational
    /// The key it came from.
    public var source: String

    public init(captureFrameRate: Rational, storedFrameRate: Rational, source: String) {
        self.captureFrameRate = captureFrameRate
        self.storedFrameRate = storedFrameRate
        self.source = source
    }

    /// From container metadata (keys compared in lower case); nil without a positive capture rate.
    public init?(metadata: [String: String], storedFrameRate: Rational?) {
        guard let stored = storedFrameRate, stored.isPositive else { return nil }
        let lower = Dictionary(metadata.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        for k in CaptureRate.keys {
            guard let text = lower[k]?.trimmingSpaces, let r = try? Rational(parsing: text), r.isPositive, r <= Rational(100_000) else { continue }
            self.init(captureFrameRate: r, storedFrameRate: stored, source: k)
            return
        }
        return nil
    }

    /// How fast the file plays against real time: stored / captured (1/8 for 240 fps stored at 30).
    public var realTimeSpeed: Rational { storedFrameRate / captureFrameRate }

    /// A rate relative to real time as a rate on the file's timeline: `rate` / `realTimeSpeed`
    /// (half real speed of a 1/8 file is 4× the file).
    public func fileRate(forRealTime rate: Rational) -> Rational { rate / realTimeSpeed }

    /// A retime spec whose rates are relative to real time, with every rate made relative to the
    /// file (times stay the file's own).
    public func fileSpec(_ spec: RetimeSpec) -> RetimeSpec {
        var s = spec
        // a curve says the rate everywhere (the spec's rate stays 1, as `resolve` asks); its keys convert
        if let curve = spec.curve {
            s.curve = SpeedCurve(keys: curve.keys.map { .init(time: $0.time, rate: fileRate(forRealTime: $0.rate)) }, text: curve.text)
        } else {
            s.rate = fileRate(forRealTime: spec.rate)
        }
        s.segments = spec.segments.map {
            var g = $0
            g.rate = fileRate(forRealTime: $0.rate)
            return g
        }
        return s
    }
}

extension CaptureRate {
    /// The capture rate that describes an output made from this file through `map` (its part
    /// `window` on the target timeline, or all of it): the output plays at `realTimeSpeed × rate`
    /// of real time where the map has one rate, so at `outputFrameRate` fps it stands for
    /// `outputFrameRate / (realTimeSpeed × rate)` captured frames a second. `outputFrameRate` nil:
    /// every source frame kept (retime), which leaves the capture rate as it was. Nil where the
    /// rate varies: no one capture rate describes the output.
    public func outputCaptureRate(map: RetimeMap, window: TimeRange?, outputFrameRate: Rational?) -> Rational? {
        let used = map.mappings.filter { m in window.map { m.target.end > $0.start && m.target.start < $0.end } ?? true }
        guard let rate = used.first?.rate, used.allSatisfy({ $0.rate == rate }) else { return nil }
        guard let out = outputFrameRate else { return captureFrameRate }
        return out / (realTimeSpeed * rate)
    }
}
