/// zero-latency's engine: WSOLA (waveform-similarity overlap-add) with 5 ms Hann grains at 50 %
/// overlap and a similarity search of up to ±5 ms, in plain Swift.
///
/// Grain k is written at output [kH, kH + G) (G grain, H = G/2 hop). Its nominal input start is
/// `(kH + G/2) × rate − G/2`, kept exact as a `Rational`, so grain centres land on the exact
/// time map and the output cannot drift; the actual start is the offset within ±S of nominal whose
/// first half best continues the previous grain (S is as wide as the 10 ms latency budget allows
/// at this rate, at most 5 ms, so that low voices can still be aligned) (normalised cross-correlation on a channel sum,
/// coarse every 2 lags on every 2nd sample, then refined ±1). A grain at k = −1 primes the overlap
/// so output frame 0 is at full level.
///
/// Look-ahead (the algorithmic latency): an output frame at input position p needs input up to
/// p + G/2 × rate + G/2 + S; S = min(5 ms, 9.5 ms − G/2 × rate − G/2) keeps that ≤ 9.5 ms at every
/// rate (rate 2: S = 2 ms; rate 1/2: S = 5 ms, 8.75 ms).
public final class ShortGrainWSOLA: StretchEngine {
    public let channels: Int
    public let rate: Rational
    public var startPad: Int { 0 }
    public var startDelay: Int { 0 }
    public let latency: Int
    let grain: Int, hop: Int, search: Int
    private let window: [Float]
    private var input: PlanarFIFO  // input frames from absolute index `inputBase`
    private var inputBase = 0
    private var mono: [Float] = []  // channel sum of `input`, same indexing (from monoHead)
    private var monoHead = 0
    private var k = -1  // next grain index
    private var previous: Int?  // absolute input start of the previous grain
    private var previousFrac: Float = 0  // … and its sub-sample part
    private var accumulator: [[Float]]  // output [kH, kH + G) being summed
    private var ready: PlanarFIFO  // finished output frames
    private var dropOutput: Int  // primes: output before frame 0

    public init(
        rate: Rational, sampleRate: Int, channels: Int, grainSeconds: Rational = Rational(1, 200),
        latencyBudget: Rational = Rational(19, 2000)
    ) {
        self.channels = channels
        self.rate = rate
        let g = Swift.max(16, Int((grainSeconds * Rational(Int64(sampleRate))).rounded(.nearest))) & ~1
        grain = g
        hop = g / 2
        let sr = Rational(Int64(sampleRate))
        let spent = Rational(Int64(g / 2)) * rate + Rational(Int64(g / 2))
        search = Swift.max(1, Swift.min(Int(sampleRate / 200), Int((latencyBudget * sr - spent).floor)))
        latency = Int((Rational(Int64(g / 2)) * rate).ceiling) + g / 2 + search + 2
        window = HannWindow.periodic(g)
        input = PlanarFIFO(channels: channels)
        accumulator = Array(repeating: [Float](repeating: 0, count: g), count: channels)
        ready = PlanarFIFO(channels: channels)
        dropOutput = g / 2
    }

    /// Nominal input start of grain `k` (floor of the exact position).
    private func nominal(_ k: Int) -> Int {
        Int(((Rational(Int64(k * hop + grain / 2)) * rate) - Rational(Int64(grain / 2))).floor)
    }

    public func feed(_ planes: [UnsafePointer<Float>], count: Int) {
        input.append(planes, count: count)
        let start = mono.count
        mono.append(contentsOf: repeatElement(0, count: count))
        mono.withUnsafeMutableBufferPointer { m in
            for c in 0..<channels {
                let p = planes[c]
                for i in 0..<count { m[start + i] += p[i] }
            }
        }
        let available = inputBase + input.count
        while nominal(k) + search + grain + 2 <= available {
            addGrain()
        }
    }

    /// Adds the windowed grain starting at absolute input position `q + frac` (0 ≤ frac < 1, linear
    /// interpolation; 0 before the input's start).
    private func render(grainAt q: Int, frac: Float) {
        for c in 0..<channels {
            input.withChannel(c) { x in
                accumulator[c].withUnsafeMutableBufferPointer { acc in
                    window.withUnsafeBufferPointer { w in
                        let start = q - inputBase
                        if start >= 0 {
                            for i in 0..<grain {
                                let a = x[start + i], b = x[start + i + 1]
                                acc[i] += (a + (b - a) * frac) * w[i]
                            }
                        } else {
                            for i in 0..<grain where start + i >= 0 {
                                let a = x[start + i], b = x[start + i + 1]
                                acc[i] += (a + (b - a) * frac) * w[i]
                            }
                        }
                    }
                }
            }
        }
    }

    /// The best start near `p` and its sub-sample refinement (parabola through the scores at
    /// best − 1, best, best + 1): integer lags alone would bend the pitch by up to ~1.5 cents.
    private func bestStart(near p: Int) -> (Int, Float) {
        guard let prev = previous else { return (p, 0) }
        let target = prev + hop - inputBase
        let lo = Swift.max(p - search, inputBase) - inputBase, hi = p + search - inputBase
        guard lo <= hi else { return (p, 0) }
        return mono.withUnsafeBufferPointer { m0 -> (Int, Float) in
            let m = UnsafeBufferPointer(rebasing: m0[monoHead...])
            func score(_ q: Int) -> Float {
                var dot: Float = 0, energy: Float = 1e-9
                var i = 0
                let t = target >= 0 ? target : 0
                while i < hop {
                    let b = m[q + i]
                    dot += m[t + i] * b
                    energy += b * b
                    i += 2
                }
                return dot / energy.squareRoot()
            }
            // ties (silence) go to the candidate nearest the nominal position: no bias
            let nominal = Swift.min(Swift.max(p - inputBase, lo), hi)
            var best = nominal, bestScore = score(nominal)
            func consider(_ q: Int) {
                let s = score(q)
                if s > bestScore || (s == bestScore && abs(q - nominal) < abs(best - nominal)) {
                    bestScore = s
                    best = q
                }
            }
            var q = lo + ((nominal - lo) & 1)  // the coarse grid goes through the nominal position
            while q <= hi {
                consider(q)
                q += 2
            }
            let coarse = best  // refine around the coarse winner (no array per grain)
            if coarse - 1 >= lo { consider(coarse - 1) }
            if coarse + 1 <= hi { consider(coarse + 1) }
            var frac: Float = 0
            if best > lo && best < hi {
                let a = score(best - 1), b = bestScore, c = score(best + 1)
                let d = a - 2 * b + c
                if d < 0 { frac = Swift.max(-0.5, Swift.min(0.5, 0.5 * (a - c) / d)) }
            }
            if frac < 0 { return (best - 1 + inputBase, 1 + frac) }
            return (best + inputBase, frac)
        }
    }

    private func addGrain() {
        let p = nominal(k)
        // the match is against the previous grain's integer continuation: add back its fraction
        let (q0, f0) = bestStart(near: p)
        let total = f0 + (previous == nil ? 0 : previousFrac)
        let q = q0 + Int(total.rounded(.down)), frac = total - total.rounded(.down)
        render(grainAt: q, frac: frac)
        previous = q
        previousFrac = frac
        // the first hop is final: move it out, shift the accumulator
        var h = hop
        if dropOutput > 0 {
            let d = Swift.min(dropOutput, h)
            dropOutput -= d
            h -= d
        }
        if h > 0 {
            for c in 0..<channels { ready.appendChannel(c, accumulator[c][(hop - h)..<hop]) }
        }
        for c in 0..<channels {
            accumulator[c].withUnsafeMutableBufferPointer { a in
                for i in 0..<(grain - hop) { a[i] = a[i + hop] }
                for i in (grain - hop)..<grain { a[i] = 0 }
            }
        }
        k += 1
        // forget input no later grain can reach
        let keep = Swift.min(q, nominal(k) - search) - 1
        if keep - inputBase > 16_384 {
            let d = keep - inputBase
            input.drop(d)
            monoHead += d
            inputBase += d
            if monoHead >= 65_536 && monoHead * 2 >= mono.count {
                mono.removeFirst(monoHead)
                monoHead = 0
            }
        }
    }

    public func retrieve(into planes: [UnsafeMutablePointer<Float>], maxCount: Int) -> Int {
        let n = Swift.min(maxCount, ready.count)
        ready.pop(into: planes, count: n)
        return n
    }
}

/// Periodic Hann window of length n, `0.5 − 0.5 cos(2πi/n)` (the calibration code's `cos2pi`:
/// no Foundation); shifted copies at n/2 sum to 1.
enum HannWindow {
    static func periodic(_ n: Int) -> [Float] {
        (0..<n).map { Float(0.5 - 0.5 * cos2pi(Double($0) / Double(n))) }
    }
}
