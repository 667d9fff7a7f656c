/// A point on the source timeline as the user wrote it: seconds or a frame number, from the
/// media's start or (`--start`/`--end` only) from the recording's trigger frame.
public enum TimePoint: Hashable, Sendable, Codable, CustomStringConvertible {
    case seconds(Rational)
    case frame(Int64)
    /// `t-0.1`, `t+0.5`: seconds from the trigger frame's time.
    case fromTrigger(Rational)
    /// `f-50`, `f+200`: frames from the trigger frame.
    case framesFromTrigger(Int64)

    /// Parses `2.5`, `1/3`, `01:02:03.5`, `02:03.25`, `f600`, and trigger-relative `t-0.1`,
    /// `t+0.5`, `t`, `f-50`, `f+200`.
    public init(parsing text: Substring) throws(RetimeError) {
        let s = text.trimmingSpaces
        guard !s.isEmpty else { throw .invalidSegment(String(text), reason: "empty time") }
        if let relative = try TimePoint.triggerRelative(s, text: text) {
            self = relative
            return
        }
        if s.first == "f" || s.first == "F" {
            let digits = s.dropFirst()
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(digits) else {
                throw .invalidSegment(String(text), reason: "'\(s)' is not a frame number like f600")
            }
            self = .frame(n)
            return
        }
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 3 else { throw .invalidSegment(String(text), reason: "'\(s)' is not a time (use seconds or hh:mm:ss.sss)") }
        var total = Rational.zero
        for (i, p) in parts.enumerated() {
            let v: Rational
            do { v = try Rational(parsing: p) } catch {
                throw .invalidSegment(String(text), reason: "'\(s)' is not a time (\(error))")
            }
            guard !v.isNegative else { throw .invalidSegment(String(text), reason: "time '\(s)' is negative") }
            if i < parts.count - 1 {
                guard v.isInteger else { throw .invalidSegment(String(text), reason: "'\(s)': hours and minutes must be whole numbers") }
            } else if parts.count > 1 {
                guard v < Rational(60) else { throw .invalidSegment(String(text), reason: "'\(s)': seconds must be below 60") }
            }
            guard v.numerator < 1_000_000_000_000, v.denominator <= 1_000_000_000 else {
                throw .invalidSegment(String(text), reason: "time '\(s)' is out of range")
            }
            total = total * Rational(60) + v
        }
        self = .seconds(total)
    }

    /// `t`, `t±seconds`, `f±frames` (a sign after `f` tells it from a frame number); nil for others.
    static func triggerRelative(_ s: Substring, text: Substring) throws(RetimeError) -> TimePoint? {
        guard let head = s.first?.lowercased(), head == "t" || head == "f" else { return nil }
        let rest = s.dropFirst()
        if head == "t" && rest.isEmpty { return .fromTrigger(.zero) }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        let body = rest.dropFirst()
        let negative = sign == "-"
        if head == "f" {
            guard !body.isEmpty, body.count <= 15, body.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(body) else {
                throw .invalidSegment(String(text), reason: "'\(s)' is not a frame count from the trigger like f-50 or f+200")
            }
            return .framesFromTrigger(negative ? -n : n)
        }
        let v: Rational
        do { v = try Rational(parsing: body) } catch {
            throw .invalidSegment(String(text), reason: "'\(s)' is not seconds from the trigger like t-0.1 or t+0.5")
        }
        guard !v.isNegative, v.numerator < 1_000_000_000_000, v.denominator <= 1_000_000_000 else {
            throw .invalidSegment(String(text), reason: "'\(s)' is out of range (seconds from the trigger like t-0.1)")
        }
        return .fromTrigger(negative ? -v : v)
    }

    /// Whether the point is counted from the trigger frame (`t±s`, `f±n`).
    public var isTriggerRelative: Bool {
        switch self {
        case .fromTrigger, .framesFromTrigger: return true
        case .seconds, .frame: return false
        }
    }

    /// The time in seconds from the media start; frame numbers use `frameRate`. Trigger-relative
    /// points are refused here: only `--start`/`--end` know the recording's trigger.
    public func resolve(frameRate: Rational?) throws(RetimeError) -> Rational {
        switch self {
        case .seconds(let s): return s
        case .fromTrigger, .framesFromTrigger:
            throw .invalidSegment(description, reason: "times from the trigger (t-0.1, f+200) are for --start and --end only")
        case .frame(let n):
            guard let frameRate, frameRate.isPositive else {
                throw .invalidSegment(description, reason: "frame numbers need a known frame rate")
            }
            do { return try Rational(n).checkedDividing(frameRate) } catch {
                throw .invalidSegment(description, reason: "frame \(n) at \(frameRate) fps is too far to place exactly")
            }
        }
    }

    public var isSeconds: Bool { if case .seconds = self { return true } else { return false } }

    public var description: String {
        switch self {
        case .seconds(let s): return Seconds(s).description
        case .frame(let n): return "f\(n)"
        case .fromTrigger(let s): return s.isNegative ? "t-\(Seconds(-s))" : "t+\(Seconds(s))"
        case .framesFromTrigger(let n): return n < 0 ? "f\(n)" : "f+\(n)"
        }
    }
}

/// One `--segment START-END@RATE` (or `--ramp START-END@RATE:RAMP`).
public struct SegmentSpec: Hashable, Sendable, Codable, CustomStringConvertible {
    public var start: TimePoint
    public var end: TimePoint
    public var rate: Rational
    /// For ramps: seconds spent easing in and out inside the segment (nil = a hard cut).
    public var ramp: Rational?
    /// The text the user wrote (for messages).
    public var text: String

    public init(start: TimePoint, end: TimePoint, rate: Rational, ramp: Rational? = nil, text: String? = nil) {
        self.start = start
        self.end = end
        self.rate = rate
        self.ramp = ramp
        self.text = text ?? "\(start)-\(end)@\(rate)\(ramp.map { ":\(Seconds($0))" } ?? "")"
    }

    /// Parses `2.5-4@0.25`, `00:01.5-00:03@1/8`, `f600-f960@1/4`; with `allowRamp`, `2-6@1/8:0.5`.
    public init(parsing text: String, allowRamp: Bool = false) throws(RetimeError) {
        self.text = text
        guard let at = text.lastIndex(of: "@") else {
            throw .invalidSegment(text, reason: "expected START-END@RATE, e.g. 2.5-4@1/4")
        }
        var rateText = text[text.index(after: at)...]
        var rampValue: Rational?
        if let colon = rateText.firstIndex(of: ":") {
            guard allowRamp else { throw .invalidSegment(text, reason: "a ':RAMP' part is only allowed with \(Setting.ramps)") }
            let r = rateText[rateText.index(after: colon)...]
            do { rampValue = try Rational(parsing: r) } catch {
                throw .invalidSegment(text, reason: "ramp time '\(r)' is not a number")
            }
            guard let rv = rampValue, rv.isPositive else { throw .invalidSegment(text, reason: "ramp time must be > 0") }
            guard rv.denominator <= 1_000_000_000, rv.numerator <= 1_000_000_000_000 else {
                throw .invalidSegment(text, reason: "ramp time '\(r)' is out of range (at most 9 decimals)")
            }
            rateText = rateText[..<colon]
        }
        let rangeText = text[..<at]
        // The separator is the first '-' after the first character (times are never negative).
        guard let dash = rangeText.dropFirst().firstIndex(of: "-") else {
            if rangeText.trimmingSpaces.first == "-" { throw .invalidSegment(text, reason: "start time is negative") }
            throw .invalidSegment(text, reason: "expected START-END before '@'")
        }
        if rangeText.trimmingSpaces.first == "-" { throw .invalidSegment(text, reason: "start time is negative") }
        do {
            start = try TimePoint(parsing: rangeText[..<dash])
            end = try TimePoint(parsing: rangeText[rangeText.index(after: dash)...])
        } catch {
            if case .invalidSegment(_, let reason) = error { throw .invalidSegment(text, reason: reason) }
            throw error
        }
        do { rate = try RetimeSpec.parseRate(rateText, context: "segment '\(text)'") } catch {
            if case .invalidRate(_, let reason) = error { throw .invalidSegment(text, reason: reason) }
            throw error
        }
        ramp = rampValue
        if case .seconds(let a) = start, case .seconds(let b) = end, b <= a {
            throw .invalidSegment(text, reason: "end \(Seconds(b)) is not after start \(Seconds(a))")
        }
        if case .frame(let a) = start, case .frame(let b) = end, b <= a {
            throw .invalidSegment(text, reason: "end f\(b) is not after start f\(a)")
        }
    }

    public var description: String { text }
}

/// Everything a user says about retiming: a rate for the whole clip, segments, ramps.
/// Resolved against a media's duration and frame rate into a ``RetimeMap``.
public struct RetimeSpec: Hashable, Sendable, Codable {
    /// Rates outside this range are refused (a 1000× slow-down already turns 1 s into 16 min).
    public static let minimumRate = Rational(1, 1000)
    public static let maximumRate = Rational(1000)

    public var rate: Rational
    public var segments: [SegmentSpec]
    /// `--curve`: a smooth speed curve (``SpeedCurve``); segments may sit outside its key range only.
    public var curve: SpeedCurve?

    /// A curve or a ramp: its map passes through the frame times given to ``resolve``.
    public var glides: Bool { curve != nil || segments.contains { $0.ramp != nil } }

    public init(rate: Rational = .one, segments: [SegmentSpec] = [], curve: SpeedCurve? = nil) {
        self.rate = rate
        self.segments = segments
        self.curve = curve
    }

    /// Parses a rate: decimal or fraction, > 0, finite, within the allowed range.
    /// `context` says whose rate it is in an error (`--rate '0'`, `segment '1-2@0'`, `key point '1@0'`).
    public static func parseRate(_ text: Substring, context: Wording) throws(RetimeError) -> Rational {
        let r: Rational
        do { r = try Rational(parsing: text) } catch {
            switch error {
            case .zeroDenominator, .divisionByZero: throw .invalidRate(context, reason: "rate '\(text)' has a zero denominator")
            default: throw .invalidRate(context, reason: "rate '\(text)' is not a number (use a decimal or a fraction like 1/8)")
            }
        }
        guard r.isPositive else { throw .invalidRate(context, reason: "rate must be > 0, got \(r)") }
        // exact arithmetic on the map must stay in 64-bit fractions (a rate with 18 decimals overflowed; found by fuzz-values)
        guard r.denominator <= 1_000_000_000, r.numerator <= 1_000_000_000_000 else {
            throw .invalidRate(context, reason: "rate '\(text)' is too precise: at most 9 decimals, or a fraction of whole numbers up to 10^9")
        }
        guard r >= minimumRate, r <= maximumRate else { throw .rateOutOfRange(context, r) }
        return r
    }

    /// Builds the map for a source of `duration` seconds (times relative to the media start).
    /// `frameRate` resolves frame-number times. Checks: inside the media, no overlaps, ramps fit.
    /// A curve's map passes exactly through `(t, O(t))` at every time of `curveNodes` (the video's
    /// frame times; sorted) and at its keys; without nodes, at every frame of `frameRate` from 0,
    /// else every 10 ms (at most 2000 pieces per glide).
    public func resolve(duration: Rational, frameRate: Rational?, curveNodes: [Rational]? = nil) throws(RetimeError) -> RetimeMap {
        guard duration.isPositive else { throw .invalidSegment("(media)", reason: "the media has no duration") }
        let (pieces, curve) = try placed(duration: duration, frameRate: frameRate)
        // Source pieces with their rates, gaps filled with the global rate (with a curve: the
        // curve's first rate before it, its last after it).
        var steps = RetimeSteps(rate: rate, curve: curve, curveNodes: curveNodes, frameRate: frameRate)
        for p in pieces {
            if let curve, steps.curvePending, curve.start < p.start { try steps.addCurve() }
            try steps.add(p)
        }
        try steps.addCurve()
        steps.fill(to: duration)
        var map = try RetimeMap(mappings: try exactMappings(steps))
        if !steps.glides.isEmpty { map.glides = steps.glides }
        return map.coalesced()
    }

    /// The segments placed on the media (inside it, ramps that fit, sorted, no overlaps) and the
    /// curve (not overlapping a segment, not with a global rate).
    func placed(duration: Rational, frameRate: Rational?) throws(RetimeError) -> ([RetimeSteps.Piece], SpeedCurve.Resolved?) {
        var pieces: [RetimeSteps.Piece] = []
        for s in segments {
            let a = try s.start.resolve(frameRate: frameRate)
            let b = try s.end.resolve(frameRate: frameRate)
            guard b > a else { throw .invalidSegment(s.text, reason: "end \(Seconds(b)) is not after start \(Seconds(a))") }
            guard b <= duration else { throw .pastEnd(s.text, end: b, mediaDuration: duration) }
            if let r = s.ramp, r * Rational(2) >= b - a {
                throw .invalidSegment(s.text, reason: "two ramps of \(Seconds(r)) s do not fit in \(Seconds(b - a)) s")
            }
            pieces.append(.init(start: a, end: b, spec: s))
        }
        let curve = try self.curve?.resolve(duration: duration, frameRate: frameRate)
        if let curve {
            if let p = pieces.first(where: { $0.start < curve.end && $0.end > curve.start }) {
                throw .invalidCurve(curve.text, reason: "segment '\(p.spec.text)' overlaps the curve (\(Seconds(curve.start))-\(Seconds(curve.end)) s)")
            }
            if rate != .one {
                throw .invalidCurve(
                    curve.text,
                    reason:
                        "\(Setting.rate) \(rate) and a curve together: the curve's first rate holds before it and its last after it; leave \(Setting.rate) out")
            }
        }
        pieces.sort { $0.start < $1.start }
        for i in pieces.indices.dropFirst() where pieces[i].start < pieces[i - 1].end {
            throw .overlap(pieces[i - 1].spec.text, pieces[i].spec.text)
        }
        return (pieces, curve)
    }

    /// The steps as mappings laid end to end in output time, with what later steps compute from
    /// the map (each piece's rate, a frame's mapped time in a microsecond or 90 kHz time base, both
    /// ways) checked to fit 64-bit fractions, once, here.
    func exactMappings(_ steps: RetimeSteps) throws(RetimeError) -> [TimeMapping] {
        var mappings: [TimeMapping] = []
        var targetCursor = Rational.zero
        do {
            for (i, (a, b, r)) in steps.steps.enumerated() {
                let source = TimeRange(start: a, end: b)
                let length = try steps.lengths[i] ?? (try b.checkedSubtracting(a)).checkedDividing(r)
                let end = try targetCursor.checkedAdding(length)
                mappings.append(TimeMapping(source: source, target: TimeRange(start: targetCursor, end: end)))
                targetCursor = end
            }
            for m in mappings {
                let sd = try m.source.end.checkedSubtracting(m.source.start), td = try m.target.end.checkedSubtracting(m.target.start)
                _ = try sd.checkedDividing(td)
                for tick in [Rational(1, 1_000_000), Rational(1, 90_000), sd] {
                    _ = try m.target.start.checkedAdding(try (try tick.checkedMultiplying(td)).checkedDividing(sd))
                    _ = try m.source.start.checkedAdding(try (try tick.checkedMultiplying(sd)).checkedDividing(td))
                }
            }
        } catch {
            if let curve = self.curve, segments.isEmpty {
                throw .invalidCurve(curve.text, reason: "its times and rates are too fine to add up exactly in 64-bit fractions: round them")
            }
            throw .invalidSegment(
                segments.map(\.text).joined(separator: ", "),
                reason: "these times and rates are too fine to add up exactly in 64-bit fractions: round them")
        }
        return mappings
    }

    /// Without a frame rate (a capture's map, `stretch`), a glide's map is exact every 10 ms: the
    /// straight line between two such points strays from the curve by at most
    /// |Δslowdown/Δt| × (10 ms)² / 8 (0.18 ms for a 1 → 1/8 ramp over half a second).
    public static let glideGrid = Rational(1, 100)

    /// The smoothstep 3f² − 2f³ at f = 0, 1/4, 1/2, 3/4, 1: a ramp's slowdown (1/rate) follows it
    /// between these points and is linear in between, so speed eases out of one rate and into
    /// the other (slope 5/8 of the mean at the ends, 11/8 in the middle) and the ramp's output
    /// length is exactly that of a linear ramp, (ramp) × (1/fromRate + 1/toRate) / 2.
    public static let rampEasing: [Rational] = [.zero, Rational(5, 32), Rational(1, 2), Rational(27, 32), .one]

    /// A ramp's side from `fromRate` at `a` to `toRate` at `b` as a curve (``rampEasing``).
    static func easedRamp(from a: Rational, to b: Rational, fromRate: Rational, toRate: Rational, text: String) throws(RationalError) -> SpeedCurve.Resolved {
        let s0 = try fromRate.reciprocal(), s1 = try toRate.reciprocal()
        let span = try b.checkedSubtracting(a), rise = try s1.checkedSubtracting(s0)
        var times: [Rational] = [], slowdowns: [Rational] = []
        for (i, e) in rampEasing.enumerated() {
            times.append(try a.checkedAdding(try span.checkedMultiplying(Rational(Int64(i), 4))))
            slowdowns.append(try s0.checkedAdding(try rise.checkedMultiplying(e)))
        }
        return SpeedCurve.Resolved(times: times, slowdowns: slowdowns, text: text)
    }
}
