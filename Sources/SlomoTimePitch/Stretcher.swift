internal import CRubberBand
import SlomoCore
import SlomoFFmpeg

/// The time-pitch algorithms (AVFoundation's table) and their rate ranges.
public enum PitchAlgorithm: String, Sendable, CaseIterable, Codable {
    case zeroLatency = "zero-latency", timeDomain = "time-domain", spectral, varispeed, mute

    /// zero-latency snaps to these rates (AVAudioTimePitchAlgorithmLowQualityZeroLatency's set).
    public static let zeroLatencyRates = [Rational(1, 2), Rational(2, 3), Rational(4, 5), Rational(1), Rational(5, 4), Rational(3, 2), Rational(2)]

    public var range: ClosedRange<Rational> {
        switch self {
        case .zeroLatency: return Rational(1, 2)...Rational(2)
        case .timeDomain: return Rational(1, 2)...Rational(2)
        case .spectral, .varispeed, .mute: return Rational(1, 32)...Rational(32)
        }
    }

    /// The rate this algorithm really plays for `rate` (zero-latency snaps to its table, nearest).
    public func effectiveRate(_ rate: Rational) -> Rational {
        guard self == .zeroLatency else { return rate }
        return PitchAlgorithm.zeroLatencyRates.min { abs(($0 - rate).doubleValue) < abs(($1 - rate).doubleValue) }!
    }

    /// Checks `rate` against the range; the message names the range and the algorithms that cover the rate.
    public func check(_ rate: Rational) throws(SimpleFailure) {
        guard !range.contains(rate) else { return }
        let covering = PitchAlgorithm.allCases.filter { $0.range.contains(rate) }.map(\.rawValue)
        throw SimpleFailure("rate \(rate) is outside \(rawValue)'s range \(range.lowerBound)...\(range.upperBound)\(covering.isEmpty ? "" : "; use " + covering.joined(separator: " or "))", .usage)
    }
}

/// A streaming time-stretcher for one constant rate: push planar Float input, pull output.
/// `startDelay` output samples at the start are latency and must be dropped by the caller.
public protocol Stretcher: AnyObject {
    var startDelay: Int { get }
    func push(_ input: [[Float]], count: Int, final: Bool) throws
    /// Everything available now.
    func pull() -> [[Float]]
}

/// Makes the stretcher for `algorithm` at `rate` (already checked and snapped).
public func makeStretcher(_ algorithm: PitchAlgorithm, rate: Rational, sampleRate: Int, channels: Int) throws -> Stretcher {
    if rate == .one && algorithm != .mute { return PassThrough(channels: channels) }
    switch algorithm {
    case .spectral: return try RubberBand(rate: rate, sampleRate: sampleRate, channels: channels)
    case .timeDomain: return WSOLA(rate: rate, sampleRate: sampleRate, channels: channels, grainMs: 40, searchMs: 10)
    case .varispeed: return try Varispeed(rate: rate, sampleRate: sampleRate, channels: channels)
    case .zeroLatency: return WSOLA(rate: rate, sampleRate: sampleRate, channels: channels, grainMs: 5, searchMs: 1.25)
    case .mute: return Silence(rate: rate, channels: channels)
    }
}

final class PassThrough: Stretcher {
    var buffer: [[Float]]
    init(channels: Int) { buffer = Array(repeating: [], count: channels) }
    var startDelay: Int { 0 }
    func push(_ input: [[Float]], count: Int, final: Bool) { for c in buffer.indices { buffer[c] += input[c].prefix(count) } }
    func pull() -> [[Float]] { defer { for c in buffer.indices { buffer[c].removeAll(keepingCapacity: true) } }; return buffer }
}

final class Silence: Stretcher {
    let rate: Rational
    var pending = Rational.zero
    let channels: Int
    var out = 0
    init(rate: Rational, channels: Int) { self.rate = rate; self.channels = channels }
    var startDelay: Int { 0 }
    func push(_ input: [[Float]], count: Int, final: Bool) {
        pending += Rational(Int64(count)) / rate
        let n = pending.floor
        out += Int(n); pending -= Rational(n)
        if final && pending.isPositive { out += 1; pending = .zero }
    }
    func pull() -> [[Float]] { defer { out = 0 }; return Array(repeating: [Float](repeating: 0, count: out), count: channels) }
}

/// Spectral: Rubber Band's R3 ("finer") engine in real-time mode, pitch kept.
final class RubberBand: Stretcher {
    let state: RubberBandState
    let channels: Int
    init(rate: Rational, sampleRate: Int, channels: Int) throws {
        let options = RubberBandOptionProcessRealTime.rawValue | RubberBandOptionEngineFiner.rawValue
            | RubberBandOptionPitchHighConsistency.rawValue | RubberBandOptionChannelsTogether.rawValue
        guard let s = rubberband_new(UInt32(sampleRate), UInt32(channels), Int32(bitPattern: options), 1.0 / rate.doubleValue, 1.0) else {
            throw SimpleFailure("rubberband_new failed", .software)
        }
        state = s
        self.channels = channels
        rubberband_set_max_process_size(s, 8192)
    }
    deinit { rubberband_delete(state) }
    var startDelay: Int { Int(rubberband_get_start_delay(state)) }
    private var padded = false
    func push(_ input: [[Float]], count: Int, final: Bool) throws {
        if !padded {
            // real-time mode: feed the preferred silent pad first, then drop getStartDelay() of output
            padded = true
            let pad = Int(rubberband_get_preferred_start_pad(state))
            if pad > 0 {
                let zeros = Array(repeating: [Float](repeating: 0, count: pad), count: channels)
                withPointers(zeros, offset: 0) { p in rubberband_process(state, p, UInt32(pad), 0) }
            }
        }
        var offset = 0
        repeat {
            let n = Swift.min(8192, count - offset)
            withPointers(input, offset: offset) { p in rubberband_process(state, p, UInt32(n), final && offset + n >= count ? 1 : 0) }
            offset += n
        } while offset < count
    }
    func pull() -> [[Float]] {
        var out = Array(repeating: [Float](), count: channels)
        while true {
            let avail = Int(rubberband_available(state))
            if avail <= 0 { break }
            var block = Array(repeating: [Float](repeating: 0, count: avail), count: channels)
            let got = withMutablePointers(&block) { p in rubberband_retrieve(state, p, UInt32(avail)) }
            for c in 0..<channels { out[c] += block[c].prefix(Int(got)) }
        }
        return out
    }
}

/// Varispeed: resampling with the SoX resampler (pitch follows the rate, like a tape).
final class Varispeed: Stretcher {
    let converter: SampleConverter
    var out: [[Float]]
    init(rate: Rational, sampleRate: Int, channels: Int) throws {
        // playing `rate` times faster = resampling by 1/rate: in:out = numerator:denominator
        var p = rate.numerator, q = rate.denominator
        while p > 1 << 20 || q > 1 << 20 { p /= 2; q /= 2 }
        converter = try SampleConverter(channels: channels, inRate: Int(p) * 1000, inFormat: .floatPlanar,
                                        outRate: Int(q) * 1000, outFormat: .floatPlanar, soxr: true)
        out = Array(repeating: [], count: channels)
    }
    var startDelay: Int { 0 }
    func push(_ input: [[Float]], count: Int, final: Bool) throws {
        if count > 0 {
            let o = try converter.planarFloat(from: input.map { Array($0.prefix(count)) }, count: count)
            for c in out.indices { out[c] += o[c] }
        }
        if final {
            let o = try converter.planarFloat(from: nil, count: 0)
            for c in out.indices { out[c] += o[c] }
        }
    }
    func pull() -> [[Float]] { defer { for c in out.indices { out[c].removeAll(keepingCapacity: true) } }; return out }
}

/// WSOLA: Hann grains at half-grain output hops; each grain is taken near its exact nominal input
/// position (hop × rate, kept as a rational, so the output never drifts) at the offset within
/// ±search that best continues the previous grain.
/// * zero-latency: 5 ms grains, ±1.25 ms search: algorithmic latency grain + search ≤ 7.5 ms.
/// * time-domain: 40 ms grains, ±10 ms search: smoother, good for voice.
final class WSOLA: Stretcher {
    let channels: Int
    let grain: Int
    let hop: Int
    let search: Int
    let rate: Rational
    var input: [[Float]]
    var inputStart: Int = 0                 // absolute input position of input[c][0]
    var nominal: Rational = .zero           // absolute nominal input position of the next grain
    var previous: Int?                      // absolute input position of the previous grain
    var output: [[Float]]
    var ready = 0
    let window: [Float]

    init(rate: Rational, sampleRate: Int, channels: Int, grainMs: Double, searchMs: Double) {
        self.channels = channels
        self.rate = rate
        let g = Swift.max(32, Int(Double(sampleRate) * grainMs / 1000)) & ~1
        grain = g
        hop = g / 2
        search = Swift.max(1, Int(Double(sampleRate) * searchMs / 1000))
        // grain centres land exactly on the map: output centre (k·hop + grain/2) ↔ input centre × rate
        nominal = Rational(Int64(g / 2)) * rate - Rational(Int64(g / 2))
        input = Array(repeating: [], count: channels)
        output = Array(repeating: [], count: channels)
        window = (0..<g).map { i in Float(0.5 - 0.5 * cosTwoPi(Double(i) / Double(g))) }
    }
    var startDelay: Int { 0 }

    func sample(_ c: Int, _ absolute: Int) -> Float {
        let i = absolute - inputStart
        return i >= 0 && i < input[c].count ? input[c][i] : 0
    }

    /// All channels summed: what the similarity search compares.
    var mono: [Float] = []

    /// The grain start near `p` whose first half best matches the natural continuation of the previous
    /// grain: a coarse search every 2 samples on every 4th sample, then ±1 around the best.
    func bestStart(near p: Int) -> Int {
        guard let prev = previous else { return p }
        let target = prev + hop - inputStart
        let lo = p - search - inputStart, hi = p + search - inputStart
        let n = mono.count
        return mono.withUnsafeBufferPointer { m -> Int in
            func score(_ q: Int) -> Float {
                var acc: Float = 0
                var i = 0
                while i < hop {
                    let a = target + i, b = q + i
                    if a >= 0 && a < n && b >= 0 && b < n { acc += m[a] * m[b] }
                    i += 4
                }
                return acc
            }
            var best = p - inputStart, bestScore = -Float.infinity
            var q = lo
            while q <= hi { let v = score(q); if v > bestScore { bestScore = v; best = q }; q += 2 }
            for r in [best - 1, best + 1] where r >= lo && r <= hi {
                let v = score(r); if v > bestScore { bestScore = v; best = r }
            }
            return best + inputStart
        }
    }

    func push(_ samples: [[Float]], count: Int, final: Bool) {
        for c in 0..<channels { input[c] += samples[c].prefix(count) }
        let start = mono.count
        mono += [Float](repeating: 0, count: count)
        for c in 0..<channels { for i in 0..<count { mono[start + i] += samples[c][i] } }
        let available = inputStart + input[0].count
        while true {
            let p = Int(nominal.floor)
            guard p + search + grain <= available || (final && p < available) else { break }
            if p + grain < inputStart { nominal += Rational(Int64(hop)) * rate; continue }
            let q = bestStart(near: p)
            let base = Swift.max(0, output[0].count - (grain - hop))
            for c in 0..<channels {
                if output[c].count < base + grain { output[c] += [Float](repeating: 0, count: base + grain - output[c].count) }
                let off = q - inputStart
                if off >= 0 && off + grain <= input[c].count {
                    output[c].withUnsafeMutableBufferPointer { o in
                        input[c].withUnsafeBufferPointer { x in
                            window.withUnsafeBufferPointer { w in
                                for i in 0..<grain { o[base + i] += x[off + i] * w[i] }
                            }
                        }
                    }
                } else {
                    for i in 0..<grain { output[c][base + i] += sample(c, q + i) * window[i] }
                }
            }
            ready = base + hop
            previous = q
            nominal += Rational(Int64(hop)) * rate
            let keepFrom = Swift.min(q, Int(nominal.floor) - search) - 1
            if keepFrom - inputStart > 8192 {
                let drop = keepFrom - inputStart
                for c in 0..<channels { input[c].removeFirst(drop) }
                mono.removeFirst(drop)
                inputStart += drop
            }
        }
        if final { ready = output[0].count }
    }

    func pull() -> [[Float]] {
        let n = ready
        var out = Array(repeating: [Float](), count: channels)
        for c in 0..<channels { out[c] = Array(output[c].prefix(n)); output[c].removeFirst(n) }
        ready = 0
        return out
    }
}

func cosTwoPi(_ x: Double) -> Double {
    // cos(2πx) via the stdlib-free series used in the core is not public; Foundation is not needed here either.
    var t = x - x.rounded(.down)
    if t > 0.5 { t = 1 - t }
    let a = 2 * Double.pi * t
    let a2 = a * a
    var term = 1.0, sum = 1.0
    for k in 1...12 { term *= -a2 / Double((2 * k - 1) * (2 * k)); sum += term }
    return sum
}

func withPointers<R>(_ arrays: [[Float]], offset: Int, _ body: (UnsafePointer<UnsafePointer<Float>?>) -> R) -> R {
    var ptrs: [UnsafePointer<Float>?] = []
    var buffers: [UnsafeMutableBufferPointer<Float>] = []
    for a in arrays {
        let b = UnsafeMutableBufferPointer<Float>.allocate(capacity: Swift.max(1, a.count - offset))
        _ = b.initialize(from: a[offset...])
        buffers.append(b)
        ptrs.append(UnsafePointer(b.baseAddress!))
    }
    defer { for b in buffers { b.deallocate() } }
    return ptrs.withUnsafeBufferPointer { body($0.baseAddress!) }
}

func withMutablePointers<R>(_ arrays: inout [[Float]], _ body: (UnsafePointer<UnsafeMutablePointer<Float>?>) -> R) -> R {
    var buffers: [UnsafeMutableBufferPointer<Float>] = arrays.map { a in
        let b = UnsafeMutableBufferPointer<Float>.allocate(capacity: Swift.max(1, a.count))
        _ = b.initialize(from: a)
        return b
    }
    let ptrs: [UnsafeMutablePointer<Float>?] = buffers.map { $0.baseAddress }
    let r = ptrs.withUnsafeBufferPointer { body($0.baseAddress!) }
    for c in arrays.indices { arrays[c] = Array(buffers[c].prefix(arrays[c].count)) }
    for b in buffers { b.deallocate() }
    buffers.removeAll()
    return r
}
