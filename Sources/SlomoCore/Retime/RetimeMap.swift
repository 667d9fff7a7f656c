/// One piece of a retime: source time range `source` plays over target time range `target`
/// (AVFoundation's `CMTimeMapping`). The rate is `source.duration / target.duration`, so a rate
/// of 1/4 makes the piece four times longer (slow motion).
public struct TimeMapping: Hashable, Sendable, Codable, CustomStringConvertible {
    public var source: TimeRange
    public var target: TimeRange

    public init(source: TimeRange, target: TimeRange) {
        self.source = source
        self.target = target
    }

    /// `source.duration / target.duration`.
    public var rate: Rational { source.duration / target.duration }

    public var description: String { "\(source) -> \(target) @\(rate)" }

    /// JSON as `plan --json` and `retime --json` show a piece: `sourceStart`, `sourceEnd`,
    /// `targetStart`, `targetEnd` and `rate` (written for readers; ignored when read). Files
    /// written before 0.2 carry `source`/`target` as `{start, duration}`: read too.
    private enum Key: String, CodingKey { case sourceStart, sourceEnd, targetStart, targetEnd, rate, source, target }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(source.start, forKey: .sourceStart)
        try c.encode(source.end, forKey: .sourceEnd)
        try c.encode(target.start, forKey: .targetStart)
        try c.encode(target.end, forKey: .targetEnd)
        try c.encode(rate, forKey: .rate)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if c.contains(.sourceStart) {
            source = TimeRange(start: try c.decode(Rational.self, forKey: .sourceStart), end: try c.decode(Rational.self, forKey: .sourceEnd))
            target = TimeRange(start: try c.decode(Rational.self, forKey: .targetStart), end: try c.decode(Rational.self, forKey: .targetEnd))
        } else {
            source = try c.decode(TimeRange.self, forKey: .source)
            target = try c.decode(TimeRange.self, forKey: .target)
        }
    }
}

/// An ordered, gap-free list of mappings that covers a source time range and maps it,
/// piecewise linearly and strictly increasing, onto a target range starting at the same time.
///
/// Both directions are exact: `targetTime(forSource:)` and `sourceTime(forTarget:)` are
/// inverse functions on rationals, so a frame's time survives a round trip unchanged.
public struct RetimeMap: Hashable, Sendable, Codable {
    public private(set) var mappings: [TimeMapping]
    /// Source ranges where the rate glides (a `--curve`): many short mappings that an audio engine
    /// able to change its rate plays as one continuous run instead of one engine per mapping.
    /// Nil for maps of constant-rate pieces (and absent from their JSON).
    public var glides: [TimeRange]?

    /// Validates `mappings`: non-empty, positive durations, contiguous in source and target.
    public init(mappings: [TimeMapping]) throws(RetimeError) {
        guard let first = mappings.first else { throw .empty }
        guard first.source.start == first.target.start else { throw .notContiguous(at: first.source.start) }
        var previous: TimeMapping?
        for m in mappings {
            guard m.source.duration.isPositive, m.target.duration.isPositive else { throw .emptyMapping(m) }
            if let p = previous {
                guard p.source.end == m.source.start, p.target.end == m.target.start else {
                    throw .notContiguous(at: m.source.start)
                }
            }
            previous = m
        }
        self.mappings = mappings
    }

    /// The identity map over `range`.
    public static func identity(_ range: TimeRange) -> RetimeMap {
        try! RetimeMap(mappings: [TimeMapping(source: range, target: range)])
    }

    public var source: TimeRange { TimeRange(start: mappings[0].source.start, end: mappings[mappings.count - 1].source.end) }
    public var target: TimeRange { TimeRange(start: mappings[0].target.start, end: mappings[mappings.count - 1].target.end) }

    /// True when every mapping has rate 1.
    public var isIdentity: Bool { mappings.allSatisfy { $0.source.duration == $0.target.duration } }

    /// Index of the mapping whose source range holds `t` (the last one for `t == end`).
    func mappingIndex(source t: Rational) -> Int {
        var lo = 0, hi = mappings.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if mappings[mid].source.start <= t { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    func mappingIndex(target t: Rational) -> Int {
        var lo = 0, hi = mappings.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if mappings[mid].target.start <= t { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// Where source time `t` lands on the target timeline. Times before the start or after the
    /// end are extended with the first or last mapping's rate.
    public func targetTime(forSource t: Rational) -> Rational {
        let m = mappings[mappingIndex(source: t)]
        return m.target.start + (t - m.source.start) * m.target.duration / m.source.duration
    }

    /// Which source time is shown at target time `t` (exact inverse of ``targetTime(forSource:)``).
    public func sourceTime(forTarget t: Rational) -> Rational {
        let m = mappings[mappingIndex(target: t)]
        return m.source.start + (t - m.target.start) * m.source.duration / m.target.duration
    }

    /// The playback rate at source time `t`.
    public func rate(atSource t: Rational) -> Rational { mappings[mappingIndex(source: t)].rate }

    /// Merges neighbouring mappings with the same rate (segments that only restate the default).
    public func coalesced() -> RetimeMap {
        var out: [TimeMapping] = []
        for m in mappings {
            if let last = out.last, last.rate == m.rate {
                out[out.count - 1] = TimeMapping(
                    source: TimeRange(start: last.source.start, end: m.source.end),
                    target: TimeRange(start: last.target.start, end: m.target.end))
            } else {
                out.append(m)
            }
        }
        var map = try! RetimeMap(mappings: out)
        map.glides = glides
        return map
    }
}

/// Why a retime cannot be built.
public enum RetimeError: Error, Hashable, Sendable {
    case empty
    case emptyMapping(TimeMapping)
    case notContiguous(at: Rational)
    case invalidSegment(String, reason: Wording)
    case invalidCurve(String, reason: Wording)
    case overlap(String, String)
    case pastEnd(String, end: Rational, mediaDuration: Rational)
    /// A rate's text refused; the first part says whose rate (`--rate '0'`, a segment).
    case invalidRate(Wording, reason: Wording)
    case rateOutOfRange(Wording, Rational)

    public var wording: Wording {
        switch self {
        case .empty: return "the retime map has no mappings"
        case .emptyMapping(let m): return "mapping \(m) has an empty range"
        case .notContiguous(let t): return "mappings are not contiguous at \(Seconds(t))"
        case .invalidSegment(let s, let reason): return "segment '\(s)': \(reason)"
        case .invalidCurve(let s, let reason): return "\(Setting.curve) '\(s)': \(reason)"
        case .overlap(let a, let b): return "segments '\(a)' and '\(b)' overlap"
        case .pastEnd(let s, let end, let d):
            return "segment '\(s)' ends at \(Seconds(end)) s, past the end of the media (\(Seconds(d)) s)"
        case .invalidRate(let whose, let reason): return "\(whose): \(reason)"
        case .rateOutOfRange(let whose, let r):
            return "\(whose): rate \(r) is outside \(RetimeSpec.minimumRate)...\(RetimeSpec.maximumRate)"
        }
    }
}

/// Display helper: a `Rational` of seconds printed as a short decimal (display only).
public struct Seconds: CustomStringConvertible {
    public var value: Rational
    /// Most decimals shown (trailing zeros removed).
    public var decimals: Int
    public init(_ value: Rational, decimals: Int = 6) {
        self.value = value
        self.decimals = decimals
    }
    public var description: String {
        if value.isInteger { return "\(value.numerator)" }
        if decimals <= 0 { return "\(value.rounded(.nearest))" }
        // computed exactly: the fraction alone scaled to 10^decimals and rounded once (scaling
        // the whole value would overflow for wall-clock times in 2^-32 s, a Cine file's TIME64)
        var unit: Int64 = 1
        for _ in 0..<Swift.min(decimals, 18) { unit *= 10 }
        let negative = value.isNegative
        let mag = negative ? -value : value
        var whole = mag.floor
        var scaled = ((mag - Rational(whole)) * Rational(unit)).rounded(.nearest)
        if scaled >= unit {
            whole += 1
            scaled -= unit
        }
        var frac = String(scaled)
        frac = String(repeating: "0", count: Swift.max(0, String(unit).count - 1 - frac.count)) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        let sign = negative && (whole != 0 || !frac.isEmpty) ? "-" : ""
        return frac.isEmpty ? "\(sign)\(whole)" : "\(sign)\(whole).\(frac)"
    }
}

extension RetimeMap {
    /// The inverse map: target becomes source (exact; valid because both sides are contiguous).
    public func inverted() -> RetimeMap {
        var map = try! RetimeMap(mappings: mappings.map { TimeMapping(source: $0.target, target: $0.source) })
        map.glides = glides?.map { TimeRange(start: targetTime(forSource: $0.start), end: targetTime(forSource: $0.end)) }
        return map
    }

    /// `self` then `next`: maps source times of `self` through both. `next.source` must be
    /// `self.target`. Breakpoints of both maps are kept, so the result is exact.
    public func then(_ next: RetimeMap) throws(RetimeError) -> RetimeMap {
        guard next.source == target else {
            throw .invalidSegment("(compose)", reason: "the second map covers \(next.source), the first ends on \(target)")
        }
        var cuts = Set(mappings.map(\.source.start))
        for m in next.mappings { cuts.insert(sourceTime(forTarget: m.source.start)) }
        let points = cuts.sorted() + [source.end]
        var out: [TimeMapping] = []
        for i in 0..<(points.count - 1) where points[i + 1] > points[i] {
            let a = points[i], b = points[i + 1]
            let ta = next.targetTime(forSource: targetTime(forSource: a))
            let tb = next.targetTime(forSource: targetTime(forSource: b))  // maps are continuous
            out.append(TimeMapping(source: TimeRange(start: a, end: b), target: TimeRange(start: ta, end: tb)))
        }
        var map = try RetimeMap(mappings: out)
        // glides of either map, on the composed map's source timeline (a curve applied to a file
        // read from its original timing still plays as one run)
        let ranges =
            (glides ?? [])
            + (next.glides ?? []).map {
                TimeRange(start: sourceTime(forTarget: $0.start), end: sourceTime(forTarget: $0.end))
            }
        map.glides = ranges.isEmpty ? nil : ranges
        return map.coalesced()
    }
}

extension RetimeMap {
    /// The map cut at target time `end` (a capture's map covers more than was recorded).
    /// Returns nil when `end` is not inside the target range.
    public func clipped(targetEnd end: Rational) -> RetimeMap? {
        guard end > target.start, end <= target.end else { return nil }
        var out: [TimeMapping] = []
        for m in mappings {
            if m.target.start >= end { break }
            if m.target.end <= end {
                out.append(m)
                continue
            }
            let sEnd = m.source.start + (end - m.target.start) * m.source.duration / m.target.duration
            out.append(TimeMapping(source: TimeRange(start: m.source.start, end: sEnd), target: TimeRange(start: m.target.start, end: end)))
        }
        guard var map = try? RetimeMap(mappings: out) else { return nil }
        let kept = (glides ?? []).compactMap { g -> TimeRange? in
            let e = Rational.min(g.end, map.source.end)
            return e > g.start ? TimeRange(start: g.start, end: e) : nil
        }
        map.glides = kept.isEmpty ? nil : kept
        return map
    }
}
