/// The sample bookkeeping of a retimed audio render: where each mapping of a `RetimeMap` starts
/// and ends on the output sample grid, which source sample its engine starts from, how many engine
/// output frames to skip so that output sample k belongs to target time k / sampleRate, and the
/// crossfade around every boundary. All exact (`Rational`), rounded once per position.
///
/// * Output positions are rounded from *absolute* target times: boundary i is
///   `round((mapping[i].target.start − map.target.start) × sr)`, so each segment is exact to the
///   sample and rounding never accumulates, however many segments or hours.
/// * Output sample k of segment i belongs to source position `S + (k − T) × rate` (S, T the
///   segment's exact source/target starts in samples). The engine starts at integer source sample
///   `feedStart`; its output j belongs to `feedStart + j × rate`, so j = k + offset with
///   offset rounded to the nearest integer (error ≤ ½ output sample, never accumulating).
/// * Around boundary b the previous segment renders up to b + h, the next from b − h, and the
///   two are crossfaded over [b − h, b + h) with complementary smoothstep gains.
public struct AudioRenderPlan: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        /// The rate the engine plays (zero-latency: snapped).
        public var rate: Rational
        /// The rate the map asked for.
        public var requestedRate: Rational
        /// Output samples [outStart, outEnd) belong to this segment.
        public var outStart: Int64
        public var outEnd: Int64
        /// Crossfade half-lengths at the start and the end (0 at the stream's ends).
        public var fadeIn: Int64
        public var fadeOut: Int64
        /// First source sample fed to the engine (origin-relative; negative = silence before the origin).
        public var feedStart: Int64
        /// Engine output frames (after its own start delay) to skip before `renderStart`.
        public var engineSkip: Int64

        /// A glide (curve): where each of its pieces starts in the source (frames) and the rate the
        /// engine plays from there; nil for a constant-rate segment.
        public var glide: [GlidePoint]?

        public var length: Int64 { outEnd - outStart }
        /// Output range the engine renders, crossfade regions included.
        public var renderStart: Int64 { outStart - fadeIn }
        public var renderEnd: Int64 { outEnd + fadeOut }
    }

    public let sampleRate: Int
    public let algorithm: TimePitchAlgorithm
    public let segments: [Segment]
    /// Output length: `round(playedMap.target.duration × sampleRate)`.
    public let totalFrames: Int64
    /// The map really played: the input map, or for zero-latency the map with snapped rates
    /// (same source ranges, target ranges re-derived from the snapped rates).
    public let playedMap: RetimeMap
    /// For segment i, the smallest `feedStart` of segments i… (what the source must still hold).
    public let keepFrom: [Int64]

    /// - Parameters:
    ///   - crossfade: full crossfade length at a boundary in frames (default 10 ms); shortened to
    ///     fit segments shorter than it.
    ///   - warmup: output frames an engine runs before the first frame kept (default 100 ms, 10 ms
    ///     for varispeed, whose resampler needs 64 frames: longer
    ///     than SoundTouch's longest sequence and Rubber Band's onset smear, so the cold start of
    ///     an engine never reaches the crossfade).
    public init(
        map: RetimeMap, sampleRate: Int, algorithm: TimePitchAlgorithm,
        crossfade: Int? = nil, warmup: Int? = nil
    ) throws(AudioFailure) {
        guard (8000...192_000).contains(sampleRate) else {
            throw AudioFailure(
                .unsupportedFormat, subject: "audio", operation: "plan",
                cause: "sample rate \(sampleRate) Hz is outside 8–192 kHz")
        }
        self.sampleRate = sampleRate
        self.algorithm = algorithm
        let sr = Rational(Int64(sampleRate))
        // 1. rates (validated, snapped) and the played map
        playedMap = try algorithm.playedMap(map)
        let t0 = playedMap.target.start
        totalFrames = (playedMap.target.duration * sr).rounded(.nearest)
        // 2. segments: one per mapping, except that the mappings of a glide (a curve) form one
        //    segment for an engine that can change its rate as it goes
        let runs = AudioRenderPlan.runs(playedMap, gliding: algorithm.canGlide)
        let mappings = playedMap.mappings
        let starts = runs.map { ((mappings[$0.lowerBound].target.start - t0) * sr).rounded(.nearest) }
        let ends = Array(starts.dropFirst()) + [totalFrames]
        let x = Int64(crossfade ?? Swift.max(2, sampleRate / 100))
        var halves: [Int64] = [0]  // half-length at the start of segment i
        for i in 1..<runs.count {
            halves.append(Swift.max(0, Swift.min(x / 2, (ends[i - 1] - starts[i - 1]) / 2, (ends[i] - starts[i]) / 2)))
        }
        halves.append(0)
        // 3. engine start and alignment per segment
        var segs: [Segment] = []
        // varispeed's resampler has no cold start beyond its 64-frame filter: 10 ms is plenty, and a
        // curve played piece by piece (one segment per video frame) pays it once per piece
        let warm = Rational(Int64(Swift.max(1, warmup ?? (algorithm == .varispeed ? sampleRate / 100 : sampleRate / 10))))
        for (i, run) in runs.enumerated() {
            let m = mappings[run.lowerBound]
            let r = m.rate
            let s = m.source.start * sr  // exact source start, samples
            let tt = (m.target.start - t0) * sr  // exact target start, samples
            let renderStart = starts[i] - halves[i]
            let feedStart = (s + (Rational(renderStart) - tt - warm) * r).floor
            let offset = ((s - Rational(feedStart)) / r - tt).rounded(.nearest)
            var seg = Segment(
                rate: r, requestedRate: map.rate(atSource: m.source.start), outStart: starts[i], outEnd: ends[i],
                fadeIn: halves[i], fadeOut: halves[i + 1], feedStart: feedStart,
                engineSkip: renderStart + offset)
            if run.count > 1 {
                seg.glide = run.map { GlidePoint(sourceFrame: (mappings[$0].source.start * sr).rounded(.nearest), rate: mappings[$0].rate) }
            }
            segs.append(seg)
        }
        segments = segs
        var keep = Array(repeating: Int64.max, count: segs.count + 1)
        for i in stride(from: segs.count - 1, through: 0, by: -1) { keep[i] = Swift.min(keep[i + 1], segs[i].feedStart) }
        keepFrom = keep
    }

    /// A glide's piece: from source frame `sourceFrame` on, the engine plays at `rate`.
    public struct GlidePoint: Sendable, Equatable {
        public var sourceFrame: Int64
        public var rate: Rational
    }

    /// The played map's mappings grouped into segments: each alone, or, with an algorithm that can
    /// change its rate, the consecutive mappings inside one of the map's glides together.
    static func runs(_ map: RetimeMap, gliding: Bool) -> [Range<Int>] {
        let ms = map.mappings
        guard gliding, let glides = map.glides, !glides.isEmpty else { return ms.indices.map { $0..<($0 + 1) } }
        func glide(_ i: Int) -> Int? {
            glides.firstIndex { ms[i].source.start >= $0.start && ms[i].source.end <= $0.end }
        }
        var out: [Range<Int>] = []
        var i = 0
        while i < ms.count {
            var j = i + 1
            if let g = glide(i) { while j < ms.count, glide(j) == g { j += 1 } }
            out.append(i..<j)
            i = j
        }
        return out
    }

    /// Crossfade gain of the incoming segment at position `i` of a fade of `n` frames:
    /// smoothstep 3x² − 2x³ at the sample centres, so `gain(i) + gain(n − 1 − i) == 1` exactly
    /// in real arithmetic (the outgoing segment gets `1 − gain`).
    public static func fadeGain(_ i: Int, of n: Int) -> Float {
        let x = (Double(i) + 0.5) / Double(n)
        return Float(x * x * (3 - 2 * x))
    }
}
