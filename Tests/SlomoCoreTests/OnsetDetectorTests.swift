import Testing
@testable import SlomoCore

/// The sound trigger's detector: sample-exact onsets of loud sounds, never hum or quiet noise.
@Suite struct OnsetDetectorTests {
    /// Stereo 48 kHz: `signal(k)` for every frame, fed in blocks of `block` frames.
    func onsets(_ d: inout OnsetDetector, frames: Int, block: Int = 256, _ signal: (Int) -> Float) -> [Int64] {
        var out: [Int64] = []
        var pos = 0
        while pos < frames {
            let n = min(block, frames - pos)
            let l = (0..<n).map { signal(pos + $0) }, r = l.map { -$0 * 0.5 }
            l.withUnsafeBufferPointer { lp in
                r.withUnsafeBufferPointer { rp in
                    out += d.feed([lp.baseAddress!, rp.baseAddress!], count: n, position: Int64(pos))
                }
            }
            pos += n
        }
        return out
    }

    /// A 2 ms full-scale square burst, as the real-driver test's click player makes, every `every` frames from `first`.
    static func clicks(first: Int, every: Int, level: Float = 0.85) -> (Int) -> Float {
        { k in
            guard k >= first else { return 0 }
            let since = (k - first) % every
            return since < 96 ? ((since / 12) % 2 == 1 ? -level : level) : 0
        }
    }

    @Test func aClickIsFoundAtItsFirstSample() {
        var d = OnsetDetector(sampleRate: 48_000, channels: 2, levelDBFS: -20, holdoff: Rational(1, 2))
        // the click starts inside a block, not on its edge
        #expect(onsets(&d, frames: 200_000, Self.clicks(first: 30_001, every: 48_000)) == [30_001, 78_001, 126_001, 174_001])
    }

    @Test func theHoldoffSkipsWhatFollowsWithinIt() {
        var d = OnsetDetector(sampleRate: 48_000, channels: 2, levelDBFS: -20, holdoff: Rational(1))
        // clicks every half second: every other one falls inside the holdoff of the one before
        #expect(onsets(&d, frames: 150_000, Self.clicks(first: 10_000, every: 24_000)) == [10_000, 58_000, 106_000])
    }

    @Test func quietNoiseAndLoudHumNeverFire() {
        var seed: UInt32 = 12345
        let noise: (Int) -> Float = { _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return (Float(seed >> 8) / Float(1 << 24) * 2 - 1) * 0.01  // ±0.01: −40 dBFS peak
        }
        var d = OnsetDetector(sampleRate: 48_000, channels: 2, levelDBFS: -20, holdoff: Rational(1, 2))
        #expect(onsets(&d, frames: 480_000, noise).isEmpty)
        // 50 Hz at −6 dBFS: far over the level, but the high-pass keeps it under (a fixed 0.5 would fire unfiltered)
        var h = OnsetDetector(sampleRate: 48_000, channels: 2, levelDBFS: -20, holdoff: Rational(1, 2))
        #expect(onsets(&h, frames: 96_000) { k in Float(sin2pi(Double(k) * 50 / 48_000)) * 0.5 }.isEmpty)
    }

    @Test func theLevelDecides() {
        var quiet = OnsetDetector(sampleRate: 48_000, channels: 2, levelDBFS: -20, holdoff: Rational(1, 2))
        #expect(onsets(&quiet, frames: 60_000, Self.clicks(first: 30_000, every: 48_000, level: 0.03)).isEmpty)  // −30 dBFS
        var sensitive = OnsetDetector(sampleRate: 48_000, channels: 2, levelDBFS: -40, holdoff: Rational(1, 2))
        #expect(onsets(&sensitive, frames: 60_000, Self.clicks(first: 30_000, every: 48_000, level: 0.03)) == [30_000])
        #expect(abs(Double(quiet.threshold) - 0.1) < 1e-6)
    }
}
