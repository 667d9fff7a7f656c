/// The rest of a calibration frame: a background that changes every frame (so encoders see
/// real motion), a vertical bar that sweeps across once per second of source time, and the
/// frame index as large digits under the code band for people.
public enum CalibrationPicture {
    /// Paints frame `index` of a clip at `fps` into 8-bit Y, U and V planes (4:2:0: chroma planes are
    /// `(width+1)/2 × (height+1)/2`).
    public static func paint(
        index: Int, fps: Rational,
        y: UnsafeMutablePointer<UInt8>, yStride: Int,
        u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>, chromaStride: Int,
        width: Int, height: Int
    ) {
        let band = CalibrationCode.bandHeight(height)
        // Background: diagonal luma ramp that scrolls by 2 px per frame.
        let shift = (index * 2) % 256
        for row in band..<height {
            let line = y + row * yStride
            let base = (row + shift) & 0xFF
            for x in 0..<width { line[x] = UInt8(40 + ((base + x) & 0xFF) * 150 / 255) }
        }
        // Sweeping bar: position is the fraction of the current second, exact in frames.
        let period = Swift.max(1, (fps.numerator + fps.denominator - 1) / fps.denominator)  // frames per second, rounded up
        let barX = Int((Int64(index) % period) * Int64(width) / period)
        let barW = Swift.max(2, width / 64)
        for row in band..<height {
            let line = y + row * yStride
            for x in barX..<Swift.min(width, barX + barW) { line[x] = 235 }
        }
        // Chroma: neutral, with a colour tint that cycles every 8 frames (visible frame cadence).
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let tint = UInt8(128 + ((index % 8) - 4) * 12)
        for row in 0..<ch {
            (u + row * chromaStride).update(repeating: row * 2 < band ? 128 : tint, count: cw)
            (v + row * chromaStride).update(repeating: 128, count: cw)
        }
        CalibrationCode.paint(index: index, luma: y, width: width, height: height, stride: yStride)
        paintDigits(
            index, into: y, stride: yStride, x: width / 40, y: band + height / 20,
            scale: Swift.max(1, height / 60), width: width, height: height)
    }

    /// 3×5 bitmaps of 0-9, one row of 3 bits per entry.
    static let glyphs: [[UInt8]] = [
        [7, 5, 5, 5, 7], [2, 6, 2, 2, 7], [7, 1, 7, 4, 7], [7, 1, 7, 1, 7], [5, 5, 7, 1, 1],
        [7, 4, 7, 1, 7], [7, 4, 7, 5, 7], [7, 1, 1, 1, 1], [7, 5, 7, 5, 7], [7, 5, 7, 1, 7],
    ]

    static func paintDigits(
        _ value: Int, into luma: UnsafeMutablePointer<UInt8>, stride: Int,
        x: Int, y: Int, scale: Int, width: Int, height: Int
    ) {
        let digits = Array(String(value)).compactMap { $0.wholeNumberValue }
        for (k, d) in digits.enumerated() {
            let gx = x + k * 4 * scale
            for (r, bits) in glyphs[d].enumerated() {
                for c in 0..<3 where bits >> (2 - c) & 1 == 1 {
                    for dy in 0..<scale {
                        let py = y + r * scale + dy
                        guard py < height else { continue }
                        for dx in 0..<scale {
                            let px = gx + c * scale + dx
                            if px < width { luma[py * stride + px] = 235 }
                        }
                    }
                }
            }
        }
    }
}

/// The calibration soundtrack: a steady tone and a short click every `clickInterval` seconds,
/// so that pitch, duration and A/V offset can be measured after any processing.
public struct CalibrationTone: Sendable {
    public var sampleRate: Int
    public var frequency: Int = 1000
    public var amplitude: Float = 0.25
    /// Clicks start at every multiple of this (exact).
    public var clickInterval = Rational(1, 4)
    /// Click: a 2 ms Hann-windowed 6 kHz burst at 0.8 (well above the tone, survives AAC).
    public var clickFrequency = 6000
    public var clickLengthSeconds = Rational(2, 1000)

    public init(sampleRate: Int) { self.sampleRate = sampleRate }

    /// Sample `n` (phase computed from integers, so it does not drift over hours).
    public func sample(_ n: Int64) -> Float {
        let sr = Int64(sampleRate)
        let phase = Double((n * Int64(frequency)) % sr) / Double(sr)
        var s = amplitude * Float(sin2pi(phase))
        let period = (clickInterval * Rational(sr)).floor  // samples between clicks
        let clickLength = (clickLengthSeconds * Rational(sr)).floor
        let k = n % period
        // Click onsets are at exact multiples of clickInterval: round each onset to the nearest sample.
        if k < clickLength {
            let w = 0.5 - 0.5 * cos2pi(Double(k) / Double(clickLength))
            let cp = Double((k * Int64(clickFrequency)) % sr) / Double(sr)
            s = s * 0.2 + Float(0.8 * w * sin2pi(cp))
        }
        return s
    }

    /// Exact click onset times within `[0, duration)`.
    public func clickTimes(duration: Rational) -> [Rational] {
        var out: [Rational] = []
        var t = Rational.zero
        while t < duration {
            out.append(t)
            t += clickInterval
        }
        return out
    }
}

// sin/cos without Foundation: the core stays stdlib-only.
@inline(__always) func sin2pi(_ x: Double) -> Double { Double.sinTwoPi(x) }
@inline(__always) func cos2pi(_ x: Double) -> Double { Double.sinTwoPi(x + 0.25) }

extension Double {
    /// sin(2πx) by range reduction and a Taylor polynomial (error < 1e-12 on [-π/4, π/4]).
    static func sinTwoPi(_ x: Double) -> Double {
        var t = x - x.rounded(.down)  // [0, 1)
        var sign = 1.0
        if t >= 0.5 {
            t -= 0.5
            sign = -1
        }  // sin(2π(t+1/2)) = -sin(2πt)
        if t > 0.25 { t = 0.5 - t }  // symmetry about 1/4
        let a = 2 * Double.pi * t  // [0, π/2]
        if a > Double.pi / 4 { return sign * cosPoly(Double.pi / 2 - a) }
        return sign * sinPoly(a)
    }
    static func sinPoly(_ a: Double) -> Double {
        let a2 = a * a
        var term = a, sum = a
        for k in 1...9 {
            term *= -a2 / Double((2 * k) * (2 * k + 1))
            sum += term
        }
        return sum
    }
    static func cosPoly(_ a: Double) -> Double {
        let a2 = a * a
        var term = 1.0, sum = 1.0
        for k in 1...9 {
            term *= -a2 / Double((2 * k - 1) * (2 * k))
            sum += term
        }
        return sum
    }
}
