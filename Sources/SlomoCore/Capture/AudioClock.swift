/// A sound card's clock against CLOCK_MONOTONIC: from (capture position, kernel time) pairs —
/// ALSA's status timestamps — the line time = offset + position / rate, fitted by least squares
/// over the latest `window` pairs (each pair's time is a period's hardware-pointer update,
/// jittered by the card's interrupt or timer; the fit averages that out, and the window follows
/// a clock that wanders with temperature). `rate` is the card's true rate in frames per second
/// of CLOCK_MONOTONIC (48 048 for a "48 kHz" card running 0.1 % fast).
///
/// Exact arithmetic: positions in frames and times in microseconds relative to the window's
/// first pair, sums in 128 bits (a window of 10⁴ pairs over minutes stays far below 2¹²⁷), the
/// results as rationals (times to the microsecond).
public struct AudioClock: Sendable {
    public let nominalRate: Int
    public let window: Int
    private var positions: [Int64] = []
    private var micros: [Int64] = []
    private var head = 0
    public private(set) var pairs = 0
    /// The sums over the window, kept as pairs come and go (a query costs nothing, where summing
    /// the window each time cost 4096 steps per audio block), relative to an origin pair: the fit
    /// is the same from any origin.
    private var origin: (x: Int64, y: Int64)?
    private var n: Int128 = 0, sx: Int128 = 0, sy: Int128 = 0, sxx: Int128 = 0, sxy: Int128 = 0

    public init(nominalRate: Int, window: Int = 4096) {
        precondition(nominalRate > 0 && window >= 2)
        self.nominalRate = nominalRate
        self.window = window
        positions.reserveCapacity(window)
        micros.reserveCapacity(window)
    }

    /// Adds one pair: `position` frames had been captured at kernel time `time` (positions only grow).
    public mutating func add(position: Int64, time: Rational) {
        let us = (time * Rational(1_000_000)).rounded(.nearest)
        if origin == nil { origin = (position, us) }
        if positions.count < window {
            positions.append(position)
            micros.append(us)
            sum(position, us, sign: 1)
        } else {
            sum(positions[head], micros[head], sign: -1)
            positions[head] = position
            micros[head] = us
            head = (head + 1) % window
            sum(position, us, sign: 1)
            // once per turn of the window, the origin moves to its oldest pair: the sums stay as
            // small as the window's span, however long the capture runs
            if head == 0 { rebase() }
        }
        pairs += 1
    }

    private mutating func rebase() {
        origin = (positions[head], micros[head])
        n = 0
        sx = 0
        sy = 0
        sxx = 0
        sxy = 0
        for i in positions.indices { sum(positions[i], micros[i], sign: 1) }
    }

    private mutating func sum(_ position: Int64, _ us: Int64, sign: Int128) {
        let x = Int128(position - origin!.x), y = Int128(us - origin!.y)
        n += sign
        sx += sign * x
        sy += sign * y
        sxx += sign * x * x
        sxy += sign * x * y
    }

    /// Forgets every pair (after the card's stream restarted).
    public mutating func reset() {
        positions.removeAll(keepingCapacity: true)
        micros.removeAll(keepingCapacity: true)
        head = 0
        origin = nil
        n = 0
        sx = 0
        sy = 0
        sxx = 0
        sxy = 0
    }

    /// Seconds of positions the pairs must span before the slope is fitted too: over a shorter
    /// span a period timer's jitter makes a fitted slope far worse than the nominal rate (8 pairs
    /// over 40 ms with 1 ms of jitter: ±5 %), so until then only the offset is fitted.
    public static let slopeSpanSeconds = 2

    /// The fit: origin, n, sums, slope = num/den µs per frame (the nominal 10⁶/rate until the
    /// window's pairs span `slopeSpanSeconds`).
    private var fit: Fit? {
        guard let o = origin, !positions.isEmpty else { return nil }
        let oldest = positions[head], newest = positions[(head + positions.count - 1) % positions.count]
        if newest - oldest < Int64(nominalRate * Self.slopeSpanSeconds) { return (o.x, o.y, n, sx, sy, 1_000_000, Int128(nominalRate)) }
        return (o.x, o.y, n, sx, sy, n * sxy - sx * sy, n * sxx - sx * sx)
    }

    /// The card's rate in frames per second of CLOCK_MONOTONIC, to 1/1000 frame; the nominal
    /// rate until the pairs span `slopeSpanSeconds`.
    public var rate: Rational { rate(fit) }

    private typealias Fit = (x0: Int64, y0: Int64, n: Int128, sx: Int128, sy: Int128, num: Int128, den: Int128)

    private func rate(_ fit: Fit?) -> Rational {
        guard let f = fit, f.den > 0, f.num > 0 else { return Rational(Int64(nominalRate)) }
        let milli = (f.den * 1_000_000_000 + f.num / 2) / f.num  // frames per µs ×10⁶ ×10³
        return Rational(Int64(clamping: milli), 1000)
    }

    /// The rate's deviation from nominal, in parts per million (display).
    public var ppm: Double { (rate / Rational(Int64(nominalRate)) - Rational.one).doubleValue * 1e6 }

    /// When the frame at `position` was captured (to the microsecond); nil before any pair.
    public func time(ofPosition position: Int64) -> Rational? { time(ofPosition: position, fit) }

    /// `time(ofPosition:)` and `rate` from one fit (the window is summed once).
    public func timeAndRate(ofPosition position: Int64) -> (time: Rational, rate: Rational)? {
        let f = fit
        return time(ofPosition: position, f).map { ($0, rate(f)) }
    }

    private func time(ofPosition position: Int64, _ fit: Fit?) -> Rational? {
        guard let f = fit else { return nil }
        let x = Int128(position - f.x0)
        let us: Int128
        if f.den > 0 && f.num > 0 {
            // y = ȳ + slope·(x − x̄) = (sy·den + (n·x − sx)·num) / (n·den)
            us = Self.divide(f.sy * f.den + (f.n * x - f.sx) * f.num, f.n * f.den)
        } else {
            // one position: the nominal rate through the mean pair
            us = Self.divide(f.sy * Int128(nominalRate) + (f.n * x - f.sx) * 1_000_000, f.n * Int128(nominalRate))
        }
        return Rational(Int64(clamping: us + Int128(f.y0)), 1_000_000)
    }

    /// The position captured at kernel time `time` (nearest frame); nil before any pair.
    public func position(atTime time: Rational) -> Int64? {
        guard let f = fit else { return nil }
        let y = Int128((time * Rational(1_000_000)).rounded(.nearest) - f.y0)
        let x: Int128
        if f.den > 0 && f.num > 0 {
            // x = x̄ + (y − ȳ)/slope = (sx·num + (n·y − sy)·den) / (n·num)
            x = Self.divide(f.sx * f.num + (f.n * y - f.sy) * f.den, f.n * f.num)
        } else {
            x = Self.divide(f.sx * 1_000_000 + (f.n * y - f.sy) * Int128(nominalRate), f.n * 1_000_000)
        }
        return Int64(clamping: x) + f.x0
    }

    /// Rounded to nearest, ties away from zero (den > 0).
    private static func divide(_ num: Int128, _ den: Int128) -> Int128 {
        num >= 0 ? (num + den / 2) / den : (num - den / 2) / den
    }
}
