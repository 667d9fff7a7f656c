/// A mode to stream briefly and time: what `formats --measure` and `capture --max-fps` (on a
/// device that advertises no frame intervals) try.
public struct MeasurementCandidate: Sendable, Equatable {
    public var pixelFormat: FourCC
    public var width: Int
    public var height: Int
    public var compressed: Bool
    /// The shortest frame duration the device advertises for this size; nil when it advertises none.
    public var advertised: Rational?

    public init(pixelFormat: FourCC, width: Int, height: Int, compressed: Bool, advertised: Rational?) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.compressed = compressed
        self.advertised = advertised
    }

    /// The mode to apply: the advertised rate, or, when there is none, the `measured` duration
    /// (which `apply` leaves to the driver instead of setting it).
    public func mode(frameDuration: Rational? = nil) -> CaptureMode {
        var m = CaptureMode(
            pixelFormat: pixelFormat, width: width, height: height,
            frameDuration: frameDuration ?? advertised ?? Rational(1, 30), compressed: compressed)
        m.rateMeasured = advertised == nil
        return m
    }
}

/// What streaming one mode for a moment showed, beside what the device advertises.
/// Rates come from the buffers' kernel timestamps: (frames − 1) / (last − first).
public struct ModeMeasurement: Sendable, Equatable, Encodable {
    public var pixelFormat: FourCC
    public var width: Int
    public var height: Int
    public var compressed: Bool
    /// Seconds per frame as advertised (ENUM_FRAMEINTERVALS), exact; nil: none advertised.
    public var advertisedFrameDuration: Rational?
    /// Frames dequeued and the timestamp span they cover (seconds, exact).
    public var frames: Int64
    public var seconds: Rational
    /// Sequence-number gaps (frames the driver skipped), damaged (`V4L2_BUF_FLAG_ERROR`) and short buffers.
    public var drops: Int64
    public var damaged: Int64
    public var shortFrames: Int64
    /// The rate frames arrived at; nil when fewer than two frames came.
    public var achievedFrameRate: Rational?
    /// The rate the camera ran at as its sequence numbers count it: (frames − 1 + drops) / span.
    /// Unlike the achieved rate it does not fall when frames are skipped (vivid skips a few at
    /// stream start), so it is what the mode runs at; the achieved rate is what a capture gets.
    public var sequenceRate: Rational?
    /// The sequence rate as a frame duration, snapped to the nearest standard rate (``NominalRate``).
    public var nominalFrameDuration: Rational?
    /// Why the mode could not be measured (the driver refused it, no frame came), else nil.
    public var error: String?

    public init(_ c: MeasurementCandidate, stats: CaptureStats, shortFrames: Int64, error: String?) {
        pixelFormat = c.pixelFormat
        width = c.width
        height = c.height
        compressed = c.compressed
        advertisedFrameDuration = c.advertised
        frames = stats.framesCaptured
        seconds = stats.duration
        drops = stats.droppedByDriver
        damaged = stats.driverErrors
        self.shortFrames = shortFrames
        achievedFrameRate = stats.achievedFrameRate
        sequenceRate =
            stats.framesCaptured > 1 && stats.duration.isPositive
            ? Rational(stats.framesCaptured - 1 + stats.droppedByDriver) / stats.duration : nil
        nominalFrameDuration = sequenceRate.flatMap { NominalRate.frameDuration(measuredRate: $0, advertised: c.advertised) }
        self.error = error
    }

    /// The achieved rate over the advertised one (1 = delivers what it promises); nil if either is unknown.
    public var deliveredFraction: Rational? {
        guard let a = achievedFrameRate, let d = advertisedFrameDuration, d.isPositive else { return nil }
        return a * d
    }

    enum CodingKeys: String, CodingKey {
        case pixelFormat, width, height, compressed, advertisedFrameDuration, advertisedFps, frames, seconds, drops, damaged,
            shortFrames, achievedFrameRate, achievedFps, sequenceRate, nominalFrameDuration, error
    }

    /// Exact values as `{"numerator", "denominator"}`; `advertisedFps` and `achievedFps` are the
    /// same rates rounded to 3 decimals for display. Unknown values are `null`, never absent.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let fields: [(CodingKeys, any Encodable)] = [
            (.pixelFormat, pixelFormat), (.width, width), (.height, height), (.compressed, compressed),
            (.advertisedFrameDuration, advertisedFrameDuration),
            (.advertisedFps, advertisedFrameDuration.flatMap { try? $0.reciprocal() }.map(ModeMeasurement.display)),
            (.frames, frames), (.seconds, seconds), (.drops, drops), (.damaged, damaged), (.shortFrames, shortFrames),
            (.achievedFrameRate, achievedFrameRate), (.achievedFps, achievedFrameRate.map(ModeMeasurement.display)),
            (.sequenceRate, sequenceRate), (.nominalFrameDuration, nominalFrameDuration), (.error, error),
        ]
        for (key, value) in fields { try c.encode(value, forKey: key) }  // nil optionals as null
    }

    static func display(_ r: Rational) -> Double { (r.doubleValue * 1000).rounded() / 1000 }
}

/// Snapping a measured rate to the rate a camera most likely runs at: the advertised rate when
/// the measurement is within 1 % of it (it confirms what the device says); else the nearest
/// integer rate n or NTSC-style n·1000/1001 within 1 %; otherwise the measurement rounded to
/// 1/1000 fps. A second of timestamps with a jiffy of jitter at each end is good to about 0.5 %,
/// so 60 and 59.94 are not told apart by a short measurement of an unadvertised mode: the
/// nearer one wins (measure longer to be sure).
public enum NominalRate {
    public static let tolerance = Rational(1, 100)

    /// Seconds per frame for a measured rate (frames per second); nil when the rate is not positive.
    public static func frameDuration(measuredRate r: Rational, advertised: Rational? = nil) -> Rational? {
        guard r.isPositive else { return nil }
        if let d = advertised, d.isPositive, ((Rational.one / d - r) / r).magnitude <= tolerance { return d }
        let n = max(1, r.rounded(.nearest))
        var best: Rational?
        var bestError = tolerance
        for candidate in [Rational(n), Rational(n * 1000, 1001), Rational((r * Rational(1001, 1000)).rounded(.nearest) * 1000, 1001)] {
            guard candidate.isPositive else { continue }
            let error = ((candidate - r) / r).magnitude
            if error <= bestError && (best == nil || error < bestError) {
                best = candidate
                bestError = error
            }
        }
        let rate = best ?? Rational(max(1, (r * Rational(1000)).rounded(.nearest)), 1000)
        return try? rate.reciprocal()
    }
}

extension FormatSelection {
    /// One candidate per format and size entry under the request's format and size constraints,
    /// at its fastest advertised rate (an `--fps` request keeps the advertised modes that reach it
    /// and every unadvertised one). Order: unadvertised first (they are what cannot be selected
    /// otherwise), then fastest advertised, then larger area; `onlyUnadvertised` keeps just those.
    public static func measurementCandidates(
        in catalog: DeviceCatalog, for request: ModeRequest = ModeRequest(),
        onlyUnadvertised: Bool = false
    ) -> [MeasurementCandidate] {
        var out: [MeasurementCandidate] = []
        for f in catalog.formats {
            if let want = request.format, want.uppercased().trimmingTrailingSpaces != f.fourcc.uppercased().trimmingTrailingSpaces { continue }
            for s in f.sizes {
                guard let size = candidateSize(s, request) else { continue }
                if let (rw, rh) = request.size, rw != size.width || rh != size.height { continue }
                if let (mw, mh) = request.minSize, size.width < mw || size.height < mh { continue }
                var advertised: Rational?
                if let intervals = s.intervals {
                    if onlyUnadvertised { continue }
                    guard let d = request.fps.map({ intervals.nearest(atOrAbove: $0) }) ?? intervals.shortest, d.isPositive else { continue }
                    advertised = d
                }
                let c = MeasurementCandidate(
                    pixelFormat: f.fourcc, width: size.width, height: size.height,
                    compressed: f.compressed, advertised: advertised)
                if !out.contains(c) { out.append(c) }
            }
        }
        return out.enumerated().sorted { a, b in
            let (x, y) = (a.element, b.element)
            if (x.advertised == nil) != (y.advertised == nil) { return x.advertised == nil }
            if let dx = x.advertised, let dy = y.advertised, dx != dy { return dx < dy }
            if x.width * x.height != y.width * y.height { return x.width * x.height > y.width * y.height }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// The fastest measured mode (then larger area, then the storage preference), as a mode whose
    /// frame duration is the measured (sequence) one, snapped (``NominalRate``); nil when nothing streamed.
    public static func best(measured: [ModeMeasurement], for request: ModeRequest = ModeRequest()) -> CaptureMode? {
        var best: (ModeMeasurement, CaptureMode)?
        for m in measured where m.error == nil {
            guard let d = m.nominalFrameDuration, m.frames > 1 else { continue }
            if let fps = request.fps, Rational.one / d < fps * Rational(99, 100) { continue }
            var mode = CaptureMode(pixelFormat: m.pixelFormat, width: m.width, height: m.height, frameDuration: d, compressed: m.compressed)
            mode.rateMeasured = true
            func pref(_ x: CaptureMode) -> Int { request.prefer.firstIndex(of: storageKind(x)) ?? request.prefer.count }
            guard let (_, b) = best else {
                best = (m, mode)
                continue
            }
            let better = d != b.frameDuration ? d < b.frameDuration : mode.area != b.area ? mode.area > b.area : pref(mode) < pref(b)
            if better { best = (m, mode) }
        }
        return best?.1
    }
}
