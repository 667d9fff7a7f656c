/// Finds where loud sounds begin, sample-exact, for the sound trigger: a second-order Butterworth
/// high-pass (default 200 Hz: mains hum, handling noise and wind rumble never fire it) on each
/// channel, and an onset at the first sample whose filtered magnitude on any channel reaches the
/// level, at least `holdoff` after the previous onset (echoes and the rest of the same sound do not
/// fire again). The first `warmUp` frames only settle the filter (a DC offset at the start is not an onset).
public struct OnsetDetector: Sendable {
    public let sampleRate: Int
    public let channels: Int
    /// The level as a linear magnitude (full scale 1).
    public let threshold: Float
    public let holdoffFrames: Int64
    public let warmUp: Int64
    private let b0, b1, b2, a1, a2: Float
    private var x1: [Float], x2: [Float], y1: [Float], y2: [Float]
    private var lastOnset: Int64?
    private var fed: Int64 = 0

    /// `levelDBFS`: the onset level in dBFS (−90…0); `holdoff`: seconds with no second onset.
    public init(sampleRate: Int, channels: Int, levelDBFS: Double, holdoff: Rational, cutoffHz: Double = 200) {
        self.sampleRate = sampleRate
        self.channels = channels
        threshold = Float(pow10(levelDBFS / 20))
        holdoffFrames = (holdoff * Rational(Int64(sampleRate))).rounded(.nearest)
        warmUp = Int64(sampleRate / 20)
        // RBJ's cookbook high-pass, Q = 1/√2
        let f = cutoffHz / Double(sampleRate)  // w = 2π·f
        let alpha = sin2pi(f) / (2 * 0.7071067811865476), c = cos2pi(f)
        let a0 = 1 + alpha
        b0 = Float((1 + c) / 2 / a0)
        b1 = Float(-(1 + c) / a0)
        b2 = b0
        a1 = Float(-2 * c / a0)
        a2 = Float((1 - alpha) / a0)
        x1 = Array(repeating: 0, count: channels)
        x2 = x1
        y1 = x1
        y2 = x1
    }

    /// Feeds `count` frames, one plane per channel, that start at frame `position` of the stream
    /// (consecutive calls continue the stream); the positions of the onsets among them.
    public mutating func feed(_ planes: [UnsafePointer<Float>], count: Int, position: Int64) -> [Int64] {
        var onsets: [Int64] = []
        var loud = [Bool](repeating: false, count: count)
        for c in 0..<channels {
            let p = planes[c]
            var (sx1, sx2, sy1, sy2) = (x1[c], x2[c], y1[c], y2[c])
            for i in 0..<count {
                let x = p[i]
                let y = b0 * x + b1 * sx1 + b2 * sx2 - a1 * sy1 - a2 * sy2
                sx2 = sx1
                sx1 = x
                sy2 = sy1
                sy1 = y
                if abs(y) >= threshold { loud[i] = true }
            }
            (x1[c], x2[c], y1[c], y2[c]) = (sx1, sx2, sy1, sy2)
        }
        for i in 0..<count where loud[i] {
            let k = position + Int64(i)
            guard fed + Int64(i) >= warmUp else { continue }
            if let last = lastOnset, k - last < holdoffFrames { continue }
            lastOnset = k
            onsets.append(k)
        }
        fed += Int64(count)
        return onsets
    }
}

/// 10^x without Foundation (SlomoCore imports nothing): e^(x·ln 10) by halving, a series, squaring.
private func pow10(_ x: Double) -> Double {
    var k = 0, y = x * 2.302585092994046
    while abs(y) > 0.5 {
        y /= 2
        k += 1
    }
    var term = 1.0, sum = 1.0
    for n in 1...20 {
        term *= y / Double(n)
        sum += term
    }
    for _ in 0..<k { sum *= sum }
    return sum
}
