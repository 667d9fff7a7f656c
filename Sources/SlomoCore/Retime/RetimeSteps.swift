/// The source timeline cut into steps, in order: each a source range with its rate, or a piece of
/// a glide (a curve, a ramp's side) with its exact output length.
struct RetimeSteps {
    /// A segment placed on the media.
    struct Piece {
        var start: Rational
        var end: Rational
        var spec: SegmentSpec
    }

    let rate: Rational
    let curve: SpeedCurve.Resolved?
    let curveNodes: [Rational]?
    let frameRate: Rational?
    /// (start, end, rate).
    private(set) var steps: [(Rational, Rational, Rational)] = []
    /// A glide piece's exact target length; nil for a constant rate.
    private(set) var lengths: [Rational?] = []
    private(set) var glides: [TimeRange] = []
    private(set) var curvePending: Bool
    private var cursor = Rational.zero

    init(rate: Rational, curve: SpeedCurve.Resolved?, curveNodes: [Rational]?, frameRate: Rational?) {
        self.rate = rate
        self.curve = curve
        self.curveNodes = curveNodes
        self.frameRate = frameRate
        curvePending = curve != nil
    }

    /// The rate of a gap at `t`: the global rate, or beside a curve the curve's end rate on that side.
    func gapRate(at t: Rational) -> Rational {
        guard let curve else { return rate }
        let s = t < curve.start ? curve.slowdowns[0] : curve.slowdowns[curve.slowdowns.count - 1]
        return Rational(s.denominator, s.numerator)
    }

    mutating func append(_ a: Rational, _ b: Rational, _ r: Rational, length: Rational? = nil) {
        steps.append((a, b, r))
        lengths.append(length)
    }

    /// A gliding piece of the map: its pieces cut at the nodes, each with its exact output length.
    mutating func appendGlide(_ c: SpeedCurve.Resolved) throws(RationalError) {
        let nodes: [Rational]
        if let curveNodes {
            nodes = curveNodes
        } else {
            // without a frame rate: every 10 ms, but at most 2000 pieces per glide (a capture's map
            // is kept in the file): the straight lines stray |Δs/Δt| × h² / 8 from the curve
            let span = try c.end.checkedSubtracting(c.start)
            let coarse = try span.checkedDividing(Rational(2000))
            let step = frameRate.map { Rational($0.denominator, $0.numerator) } ?? Rational.max(RetimeSpec.glideGrid, coarse)
            let first = (try c.start.checkedDividing(step)).ceiling, last = (try c.end.checkedDividing(step)).floor
            nodes = first <= last ? try (first...last).map { (k: Int64) throws(RationalError) in try Rational(k).checkedMultiplying(step) } : []
        }
        for (a, b, length) in try c.pieces(nodes: nodes) {
            append(a, b, try (try b.checkedSubtracting(a)).checkedDividing(length), length: length)
        }
        glides.append(TimeRange(start: c.start, end: c.end))
    }

    /// The curve, once, after the gap before it.
    mutating func addCurve() throws(RetimeError) {
        guard let curve, curvePending else { return }
        curvePending = false
        if curve.start > cursor { append(cursor, curve.start, gapRate(at: cursor)) }
        do { try appendGlide(curve) } catch {
            throw .invalidCurve(curve.text, reason: "its times and rates are too fine to add up exactly in 64-bit fractions at these frame times: round them")
        }
        cursor = curve.end
    }

    /// A segment after the gap before it; with a ramp, eased in from the rate around it and out again.
    mutating func add(_ p: Piece) throws(RetimeError) {
        if p.start > cursor { append(cursor, p.start, gapRate(at: cursor)) }
        if let ramp = p.spec.ramp {
            do {
                let inEnd = try p.start.checkedAdding(ramp), outStart = try p.end.checkedSubtracting(ramp)
                // a ramp never overlaps the curve, so its start says which side's rate surrounds it
                let outer = gapRate(at: p.start)
                try appendGlide(try RetimeSpec.easedRamp(from: p.start, to: inEnd, fromRate: outer, toRate: p.spec.rate, text: p.spec.text))
                append(inEnd, outStart, p.spec.rate)
                try appendGlide(try RetimeSpec.easedRamp(from: outStart, to: p.end, fromRate: p.spec.rate, toRate: outer, text: p.spec.text))
            } catch {
                throw .invalidSegment(p.spec.text, reason: "its times, ramp and rates are too fine to add up exactly in 64-bit fractions: round them")
            }
        } else {
            append(p.start, p.end, p.spec.rate)
        }
        cursor = p.end
    }

    /// The gap after the last step, to the end of the media.
    mutating func fill(to duration: Rational) {
        if cursor < duration { append(cursor, duration, gapRate(at: cursor)) }
    }
}
