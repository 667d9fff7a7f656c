import Testing
@testable import SlomoCore

/// The sound card's clock fitted from status timestamps: rate, offset and the two directions of
/// the map, on pairs with the jitter a period timer gives.
@Suite struct AudioClockTests {
    /// A card at `rate` frames per second of CLOCK_MONOTONIC, started at 1000 s, a pair every
    /// 240 frames whose time is late by a repeating 0…3 ms (a jiffy-driven timer).
    func clock(rate: Rational, pairs: Int, window: Int = 4096) -> AudioClock {
        var c = AudioClock(nominalRate: 48_000, window: window)
        for k in 0..<pairs {
            let p = Int64(240 * (k + 1))
            let jitter = Rational(Int64(k % 4), 1000)
            c.add(position: p, time: Rational(1000) + Rational(p) / rate + jitter)
        }
        return c
    }

    @Test func aCardOnTimeMapsBothWays() throws {
        let c = clock(rate: Rational(48_000), pairs: 2000)  // 10 s
        #expect((c.rate - Rational(48_000)).magnitude <= Rational(1, 10), "\(c.rate)")  // < 2 ppm
        // the jitter averages 1.5 ms: the fitted line runs 1.5 ms after the true one, within 0.1 ms
        let t = try #require(c.time(ofPosition: 240_000))
        #expect((t - Rational(1005) - Rational(15, 10_000)).magnitude <= Rational(1, 10_000), "\(t)")
        let p = try #require(c.position(atTime: t))
        #expect(abs(p - 240_000) <= 1)
    }

    @Test func aFastCardIsMeasuredToTheFrame() {
        // +0.1 % (snd-aloop's "PCM Rate Shift 100100")
        let c = clock(rate: Rational(48_048), pairs: 12_000, window: 4096)  // 60 s, the window the last ~20 s
        #expect((c.rate - Rational(48_048)).magnitude <= Rational(1, 10), "\(c.rate)")
        #expect(abs(c.ppm - 1000) < 3)
    }

    /// Under two seconds of pairs only the offset is fitted (the slope is the nominal rate's): a
    /// few jittered pairs would give a slope off by percents and a start far off with it.
    @Test func aShortSpanFitsTheOffsetAtTheNominalRate() throws {
        let c = clock(rate: Rational(48_000), pairs: 8)  // 40 ms, jitter 0…3 ms
        #expect(c.rate == Rational(48_000))
        // mean jitter of the 8 pairs: 1.5 ms; the line through them at the nominal slope
        let t = try #require(c.time(ofPosition: 0))
        #expect((t - Rational(1000) - Rational(15, 10_000)).magnitude <= Rational(1, 10_000), "\(t)")
    }

    @Test func oneOrNoPairFallsBackToTheNominalRate() {
        var c = AudioClock(nominalRate: 48_000)
        #expect(c.time(ofPosition: 0) == nil && c.position(atTime: Rational(1)) == nil && c.rate == Rational(48_000))
        c.add(position: 480, time: Rational(10))
        #expect(c.time(ofPosition: 48_480) == Rational(11))
        #expect(c.position(atTime: Rational(12)) == 96_480)
    }

    @Test func theWindowFollowsAClockThatChanges() {
        var c = AudioClock(nominalRate: 48_000, window: 500)
        var t = Rational(0)
        for k in 1...2000 {  // 48 000 Hz, then 47 952 Hz
            t = t + Rational(240) / (k <= 1000 ? Rational(48_000) : Rational(47_952))
            c.add(position: Int64(240 * k), time: t)
        }
        #expect((c.rate - Rational(47_952)).magnitude <= Rational(1, 100), "\(c.rate)")
    }

    /// The sums kept as pairs come and go (and rebased once per turn of the window) give exactly
    /// the fit of the window's pairs summed afresh: a clock fed only the last `window` pairs.
    @Test func keptSumsGiveTheFitOfTheWindowAlone() {
        let window = 16
        var kept = AudioClock(nominalRate: 48_000, window: window)
        var pairs: [(Int64, Rational)] = []
        var jitter: UInt64 = 12345
        for k in 0..<1_000 {
            jitter = jitter &* 6364136223846793005 &+ 1442695040888963407
            let position = Int64(9_600 * k)  // a pair every 200 ms, 0.05 % fast
            let time = Rational(100 + Int64(k) * 1_999_900, 10_000_000) + Rational(Int64(jitter >> 54), 1_000_000)
            kept.add(position: position, time: time)
            pairs.append((position, time))
            guard k % 37 == 0 || k > 990 else { continue }
            var fresh = AudioClock(nominalRate: 48_000, window: window)
            for (p, t) in pairs.suffix(window) { fresh.add(position: p, time: t) }
            #expect(kept.rate == fresh.rate, "pair \(k)")
            for q in [position - 48_000, position, position + 480_000] {
                #expect(kept.time(ofPosition: q) == fresh.time(ofPosition: q), "pair \(k), position \(q)")
            }
            #expect(kept.position(atTime: time) == fresh.position(atTime: time), "pair \(k)")
        }
    }
}
