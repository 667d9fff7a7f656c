/// A smooth speed curve: `--curve T0@R0,T1@R1,…` (source times, rates).
///
/// Between two key points the **slowdown** `1/rate` moves linearly in source time, so the output
/// time of a source instant is a quadratic of rationals, `O(t) = O(tᵢ) + sᵢ·d + (sᵢ₊₁ − sᵢ)·d²/(2Δ)`
/// with `d = t − tᵢ`, `Δ = tᵢ₊₁ − tᵢ`: exact. Over any interval `[x, y]` inside a piece the output
/// length is `(y − x)·(s(x) + s(y))/2` (the trapezoid is exact for a linear integrand), which is
/// how the map is built: a piecewise-linear ``RetimeMap`` through the exact points `(t, O(t))` at
/// every node the caller asks for (each video frame's time), so that which source frame a
/// constant-rate output frame shows is decided exactly (`O(pts) ≤ τ`, integer arithmetic, no root)
/// and a copied packet gets its exact mapped time. Before the first key the first rate holds, after
/// the last key the last rate.
public struct SpeedCurve: Hashable, Sendable, Codable, CustomStringConvertible {
    public struct Key: Hashable, Sendable, Codable {
        public var time: TimePoint
        public var rate: Rational
        public init(time: TimePoint, rate: Rational) {
            self.time = time
            self.rate = rate
        }
    }

    public var keys: [Key]
    /// What the user wrote (for messages).
    public var text: String

    public init(keys: [Key], text: String? = nil) {
        self.keys = keys
        self.text = text ?? keys.map { "\($0.time)@\($0.rate)" }.joined(separator: ",")
    }

    /// Parses `0@1,1@1,1.5@1/4,2.5@1/4,3@1`: at least two key points, times strictly increasing.
    public init(parsing text: String) throws(RetimeError) {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count >= 2 else {
            throw .invalidCurve(text, reason: "a curve needs at least two key points TIME@RATE, e.g. 0@1,1@1/4")
        }
        var keys: [Key] = []
        for item in items {
            guard let at = item.lastIndex(of: "@") else {
                throw .invalidCurve(text, reason: "key point '\(item)' is not TIME@RATE")
            }
            let time: TimePoint
            do { time = try TimePoint(parsing: item[..<at]) } catch {
                if case .invalidSegment(_, let reason) = error { throw .invalidCurve(text, reason: "key point '\(item)': \(reason)") }
                throw error
            }
            let rate: Rational
            do { rate = try RetimeSpec.parseRate(item[item.index(after: at)...], context: "key point '\(item)'") } catch {
                throw .invalidCurve(text, reason: error.wording)  // "key point '…': …"
            }
            keys.append(Key(time: time, rate: rate))
        }
        self.keys = keys
        self.text = text
        // what can be checked before the media's frame rate is known
        for i in keys.indices.dropFirst() {
            if case .seconds(let a) = keys[i - 1].time, case .seconds(let b) = keys[i].time, b <= a {
                throw .invalidCurve(
                    text,
                    reason: b == a
                        ? "key points \(i) and \(i + 1) are both at \(Seconds(a)) s"
                        : "key point \(i + 1) (\(Seconds(b)) s) is before key point \(i) (\(Seconds(a)) s): sort them")
            }
            if case .frame(let a) = keys[i - 1].time, case .frame(let b) = keys[i].time, b <= a {
                throw .invalidCurve(
                    text,
                    reason: b == a
                        ? "key points \(i) and \(i + 1) are both at frame f\(a)"
                        : "key point \(i + 1) (f\(b)) is before key point \(i) (f\(a)): sort them")
            }
        }
    }

    public var description: String { text }

    /// The key points in seconds, each with its slowdown (1/rate), checked sorted and inside the media.
    public func resolve(duration: Rational, frameRate: Rational?) throws(RetimeError) -> Resolved {
        var times: [Rational] = [], slowdowns: [Rational] = []
        for (i, k) in keys.enumerated() {
            let t = try k.time.resolve(frameRate: frameRate)
            if let last = times.last, t <= last {
                throw .invalidCurve(
                    text,
                    reason: t == last
                        ? "key points \(i) and \(i + 1) are both at \(Seconds(t)) s"
                        : "key point \(i + 1) (\(Seconds(t)) s) is before key point \(i) (\(Seconds(last)) s): sort them")
            }
            guard t <= duration else {
                throw .invalidCurve(text, reason: "key point \(i + 1) at \(Seconds(t)) s is past the end of the media (\(Seconds(duration)) s)")
            }
            times.append(t)
            slowdowns.append(Rational(k.rate.denominator, k.rate.numerator))  // rates are > 0 (parsed)
        }
        return Resolved(times: times, slowdowns: slowdowns, text: text)
    }

    /// A curve on seconds: key times and slowdowns (1/rate).
    public struct Resolved: Hashable, Sendable {
        public var times: [Rational]
        public var slowdowns: [Rational]
        public var text: String

        public var start: Rational { times[0] }
        public var end: Rational { times[times.count - 1] }

        /// The slowdown at `t` on piece `i` (between keys i and i + 1).
        func slowdown(at t: Rational, piece i: Int) throws(RationalError) -> Rational {
            let a = times[i], b = times[i + 1], sa = slowdowns[i], sb = slowdowns[i + 1]
            if t == a { return sa }
            if t == b { return sb }
            let fraction = try (try t.checkedSubtracting(a)).checkedDividing(try b.checkedSubtracting(a))
            return try sa.checkedAdding(try (try sb.checkedSubtracting(sa)).checkedMultiplying(fraction))
        }

        /// Output length of source interval [x, y] inside piece `i`: (y − x)·(s(x) + s(y))/2.
        func outputLength(from x: Rational, to y: Rational, piece i: Int) throws(RationalError) -> Rational {
            let sum = try (try slowdown(at: x, piece: i)).checkedAdding(try slowdown(at: y, piece: i))
            return try (try y.checkedSubtracting(x)).checkedMultiplying(try sum.checkedDividing(Rational(2)))
        }

        /// The curve's pieces over [start, end] as `(source start, source end, target length)`,
        /// cut at every node in `nodes` (sorted source times; others are ignored) and at the keys.
        public func pieces(nodes: [Rational]) throws(RationalError) -> [(Rational, Rational, Rational)] {
            var out: [(Rational, Rational, Rational)] = []
            var n = 0
            for i in 0..<(times.count - 1) {
                let a = times[i], b = times[i + 1]
                var cursor = a
                while n < nodes.count, nodes[n] <= a { n += 1 }
                while n < nodes.count, nodes[n] < b {
                    // two frames with one timestamp are one node (no empty piece)
                    if nodes[n] > cursor {
                        out.append((cursor, nodes[n], try outputLength(from: cursor, to: nodes[n], piece: i)))
                        cursor = nodes[n]
                    }
                    n += 1
                }
                out.append((cursor, b, try outputLength(from: cursor, to: b, piece: i)))
            }
            return out
        }
    }
}
