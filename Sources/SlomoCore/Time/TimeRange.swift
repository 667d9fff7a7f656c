/// A half-open range of exact time `[start, start + duration)` in seconds.
public struct TimeRange: Hashable, Sendable, Codable, CustomStringConvertible {
    public var start: Rational
    public var duration: Rational

    public init(start: Rational, duration: Rational) {
        self.start = start
        self.duration = duration
    }

    public init(start: Rational, end: Rational) {
        self.start = start
        self.duration = end - start
    }

    public var end: Rational { start + duration }

    /// True when `t` is in `[start, end)`.
    public func contains(_ t: Rational) -> Bool { t >= start && t < end }

    public var description: String { "[\(start), \(end))" }
}
