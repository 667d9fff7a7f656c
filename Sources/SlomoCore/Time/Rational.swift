/// An exact rational number: a reduced fraction with a positive denominator.
///
/// This is slomo's one time type. Media time, frame durations, frame rates and
/// playback rates are all `Rational`s, so equality, ordering and hashing are exact
/// (no epsilon anywhere in the core). Because the fraction is always reduced and
/// the denominator is always positive, two equal values have equal fields.
///
/// Arithmetic is computed in 128 bits and reduced; a result that does not fit in
/// 64 bits is an overflow. The operators trap on overflow like `Int`'s do; code
/// that handles values which came from outside (user input, file headers) uses
/// the `checked…` forms, which throw ``RationalError/overflow``.
public struct Rational: Hashable, Comparable, Sendable {
    public let numerator: Int64
    public let denominator: Int64

    /// Creates `numerator/denominator`, reduced. Throws on a zero denominator or
    /// when the reduced value does not fit (only possible with `Int64.min`).
    public init(checked numerator: Int64, _ denominator: Int64) throws(RationalError) {
        guard denominator != 0 else { throw .zeroDenominator }
        guard let r = Rational.reduce(Int128(numerator), Int128(denominator)) else { throw .overflow }
        self = r
    }

    /// Creates `numerator/denominator`, reduced. Traps on a zero denominator.
    public init(_ numerator: Int64, _ denominator: Int64 = 1) {
        precondition(denominator != 0, "Rational with zero denominator")
        guard let r = Rational.reduce(Int128(numerator), Int128(denominator)) else {
            preconditionFailure("Rational overflow")
        }
        self = r
    }

    /// Integer value.
    public init(_ value: Int) { self.init(Int64(value), 1) }

    private init(unchecked numerator: Int64, denominator: Int64) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public static let zero = Rational(unchecked: 0, denominator: 1)
    public static let one = Rational(unchecked: 1, denominator: 1)

    static func reduce(_ n: Int128, _ d: Int128) -> Rational? {
        var n = n, d = d
        if d < 0 {
            n = -n
            d = -d
        }
        let g = gcd(n.magnitude, d.magnitude)
        if g > 1 {
            n /= Int128(g)
            d /= Int128(g)
        }
        guard let n64 = Int64(exactly: n), let d64 = Int64(exactly: d) else { return nil }
        return Rational(unchecked: n64, denominator: d64)
    }

    static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var a = a, b = b
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    public var isZero: Bool { numerator == 0 }
    public var isNegative: Bool { numerator < 0 }
    public var isPositive: Bool { numerator > 0 }
    public var isInteger: Bool { denominator == 1 }
    /// The absolute value.
    public var magnitude: Rational { isNegative ? -self : self }
    /// The nearest point of the grid k / `rate` (ties as `rounded(.nearest)`): the exact time of the
    /// frame a rounded timestamp stands for.
    public func roundedToGrid(rate: Rational) -> Rational { Rational((self * rate).rounded(.nearest)) / rate }

    /// `1 / self`. Throws for zero.
    public func reciprocal() throws(RationalError) -> Rational {
        try Rational(checked: denominator, numerator)
    }

    // MARK: Checked arithmetic

    public func checkedAdding(_ o: Rational) throws(RationalError) -> Rational {
        let n = Int128(numerator) * Int128(o.denominator) + Int128(o.numerator) * Int128(denominator)
        guard let r = Rational.reduce(n, Int128(denominator) * Int128(o.denominator)) else { throw .overflow }
        return r
    }

    public func checkedSubtracting(_ o: Rational) throws(RationalError) -> Rational {
        let n = Int128(numerator) * Int128(o.denominator) - Int128(o.numerator) * Int128(denominator)
        guard let r = Rational.reduce(n, Int128(denominator) * Int128(o.denominator)) else { throw .overflow }
        return r
    }

    public func checkedMultiplying(_ o: Rational) throws(RationalError) -> Rational {
        guard
            let r = Rational.reduce(
                Int128(numerator) * Int128(o.numerator),
                Int128(denominator) * Int128(o.denominator))
        else { throw .overflow }
        return r
    }

    public func checkedDividing(_ o: Rational) throws(RationalError) -> Rational {
        guard o.numerator != 0 else { throw .divisionByZero }
        guard
            let r = Rational.reduce(
                Int128(numerator) * Int128(o.denominator),
                Int128(denominator) * Int128(o.numerator))
        else { throw .overflow }
        return r
    }

    // MARK: Trapping operators (for values already known to be in range)

    public static func + (a: Rational, b: Rational) -> Rational { Rational.trap { () throws(RationalError) in try a.checkedAdding(b) } }
    public static func - (a: Rational, b: Rational) -> Rational { Rational.trap { () throws(RationalError) in try a.checkedSubtracting(b) } }
    public static func * (a: Rational, b: Rational) -> Rational { Rational.trap { () throws(RationalError) in try a.checkedMultiplying(b) } }
    public static func / (a: Rational, b: Rational) -> Rational { Rational.trap { () throws(RationalError) in try a.checkedDividing(b) } }
    public static prefix func - (a: Rational) -> Rational { Rational(unchecked: -a.numerator, denominator: a.denominator) }
    public static func += (a: inout Rational, b: Rational) { a = a + b }
    public static func -= (a: inout Rational, b: Rational) { a = a - b }

    private static func trap(_ body: () throws(RationalError) -> Rational) -> Rational {
        do { return try body() } catch { preconditionFailure("Rational arithmetic: \(error)") }
    }

    // MARK: Comparison

    public static func < (a: Rational, b: Rational) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }

    public static func min(_ a: Rational, _ b: Rational) -> Rational { a < b ? a : b }
    public static func max(_ a: Rational, _ b: Rational) -> Rational { a < b ? b : a }

    // MARK: Rounding to integers

    /// The integer nearest to `self` under `rounding`.
    public func rounded(_ rounding: Rounding) -> Int64 {
        Rational.divide(Int128(numerator), Int128(denominator), rounding)
    }

    /// Integer division of `n` by positive `d` with an explicit rounding mode.
    static func divide(_ n: Int128, _ d: Int128, _ rounding: Rounding) -> Int64 {
        precondition(d > 0)
        var q = n / d  // truncates toward zero
        let r = n - q * d
        if r != 0 {
            let negative = n < 0
            switch rounding {
            case .towardZero: break
            case .awayFromZero: q += negative ? -1 : 1
            case .down: if negative { q -= 1 }
            case .up: if !negative { q += 1 }
            case .nearest, .nearestEven:
                let twice = r.magnitude * 2
                let dm = d.magnitude
                let away: Bool
                if twice > dm { away = true } else if twice < dm { away = false } else { away = rounding == .nearest ? true : (q % 2 != 0) }
                if away { q += negative ? -1 : 1 }
            }
        }
        guard let result = Int64(exactly: q) else {
            preconditionFailure("Rational rounding overflow")
        }
        return result
    }

    /// `floor(self)`.
    public var floor: Int64 { rounded(.down) }
    /// `ceil(self)`.
    public var ceiling: Int64 { rounded(.up) }

    // MARK: Time bases

    /// The number of `timeBase` ticks closest to `self` (seconds) under `rounding`.
    /// This is `av_rescale_rnd` in exact arithmetic.
    public func ticks(in timeBase: Rational, rounding: Rounding) throws(RationalError) -> Int64 {
        guard timeBase.isPositive else { throw .divisionByZero }
        let n = Int128(numerator) * Int128(timeBase.denominator)
        let d = Int128(denominator) * Int128(timeBase.numerator)
        let q128 = n / d
        guard q128.magnitude < UInt128(Int64.max) else { throw .overflow }
        return Rational.divide(n, d, rounding)
    }

    /// `ticks × timeBase`, the time in seconds of a timestamp.
    public init(ticks: Int64, timeBase: Rational) {
        self = Rational(ticks) * timeBase
    }

    /// Rescales a tick count from one time base to another (`av_rescale_q_rnd`).
    public static func rescale(_ ticks: Int64, from: Rational, to: Rational, rounding: Rounding) throws(RationalError) -> Int64 {
        try Rational(ticks: ticks, timeBase: from).ticks(in: to, rounding: rounding)
    }

    /// For display only: the nearest `Double`.
    public var doubleValue: Double { Double(numerator) / Double(denominator) }

    /// Best rational approximation of `value` with a denominator at most `maxDenominator`
    /// (continued fractions, like `av_d2q`). For reading decimal text that was printed by
    /// other tools; slomo itself never converts through `Double`.
    public static func approximating(_ value: Double, maxDenominator: Int64 = 1_000_000) -> Rational? {
        guard value.isFinite, abs(value) < 9e15 else { return nil }
        var x = value
        var (h0, h1): (Int64, Int64) = (0, 1)
        var (k0, k1): (Int64, Int64) = (1, 0)
        for _ in 0..<64 {
            let a = x.rounded(.down)
            guard abs(a) < 9e15 else { break }
            let ai = Int64(a)
            let (h2, o1) = ai.multipliedReportingOverflow(by: h1)
            let (k2, o2) = ai.multipliedReportingOverflow(by: k1)
            if o1 || o2 { break }
            let hn = h2 &+ h0, kn = k2 &+ k0
            if kn > maxDenominator { break }
            (h0, h1, k0, k1) = (h1, hn, k1, kn)
            let frac = x - a
            if frac < 1e-12 { break }
            x = 1 / frac
        }
        guard k1 != 0 else { return nil }
        return Rational(h1, k1)
    }
}

/// Rounding modes for converting exact values to integers (`AVRounding`'s modes, plus ties-to-even).
public enum Rounding: String, Sendable, CaseIterable, Codable {
    /// Toward negative infinity (floor).
    case down
    /// Toward positive infinity (ceiling).
    case up
    case towardZero
    case awayFromZero
    /// Nearest; ties away from zero (`AV_ROUND_NEAR_INF`).
    case nearest
    /// Nearest; ties to the even integer.
    case nearestEven
}

public enum RationalError: Error, Equatable, Sendable, CustomStringConvertible {
    case zeroDenominator
    case divisionByZero
    case overflow
    case invalidText(String)

    public var description: String {
        switch self {
        case .zeroDenominator: return "zero denominator"
        case .divisionByZero: return "division by zero"
        case .overflow: return "value out of 64-bit range"
        case .invalidText(let t): return "'\(t)' is not a number"
        }
    }
}
