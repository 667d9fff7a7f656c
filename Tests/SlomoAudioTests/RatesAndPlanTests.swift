import SlomoCore
import SlomoTestSupport
import Testing

@Suite struct RatesAndPlanTests {
    @Test(arguments: [
        ("1/2", "1/2"), ("0.55", "1/2"), ("0.6", "2/3"), ("2/3", "2/3"), ("0.75", "4/5"),
        ("0.9", "1"),  // tie 4/5 vs 1: the gentler one
        ("11/15", "4/5"),  // tie 2/3 vs 4/5: nearer to 1
        ("1.1", "1"), ("1.125", "1"), ("1.2", "5/4"), ("1.4", "3/2"), ("1.75", "3/2"), ("1.8", "2"), ("2", "2"),
    ])
    func zeroLatencySnapsToItsTable(rate: String, expected: String) throws {
        let r = try Rational(parsing: rate)
        #expect(try TimePitchAlgorithm.zeroLatency.playedRate(for: r) == Rational(parsing: expected))
        // the other algorithms play the rate as asked
        #expect(try TimePitchAlgorithm.timeDomain.playedRate(for: r) == r)
    }

    @Test func snappingTableEntriesAreFixedPoints() {
        #expect(TimePitchAlgorithm.snappingTable.map(\.description) == ["1/2", "2/3", "4/5", "1", "5/4", "3/2", "2"])
        for r in TimePitchAlgorithm.snappingTable { #expect(TimePitchAlgorithm.snap(r) == r) }
    }

    @Test func ratesOutsideTheRangeNameTheRangeAndTheAlternatives() {
        func failure(_ a: TimePitchAlgorithm, _ r: Rational) -> AudioFailure? {
            do {
                try a.validate(r)
                return nil
            } catch { return error }
        }
        let td = failure(.timeDomain, Rational(1, 8))
        #expect(td?.code == .rateOutOfRange && td?.kind == .badRequest)
        #expect(td?.description == "rate 1/8: time-domain time-pitch: outside time-domain's range 1/2…2; spectral, varispeed or mute cover it")
        let zl = failure(.zeroLatency, Rational(3))
        #expect(zl?.description.contains("range 1/2…2; spectral, varispeed or mute cover it") == true)
        let sp = failure(.spectral, Rational(64))
        #expect(sp?.description.contains("outside spectral's range 1/32…32; no algorithm covers it") == true)
        #expect(failure(.varispeed, Rational(1, 33))?.code == .rateOutOfRange)
        // boundaries are inside
        for (a, r) in [
            (TimePitchAlgorithm.spectral, Rational(1, 32)), (.spectral, Rational(32)), (.varispeed, Rational(1, 32)),
            (.timeDomain, Rational(1, 2)), (.timeDomain, Rational(2)), (.mute, Rational(32)),
        ] {
            #expect(failure(a, r) == nil)
        }
        // zero and negative rates
        #expect(failure(.spectral, .zero)?.code == .invalidRate)
        #expect(failure(.spectral, Rational(-1, 2))?.code == .invalidRate)
        #expect(failure(.spectral, Rational(-1, 2))?.kind == .badRequest)
    }

    @Test(arguments: ["nan", "NaN", "inf", "-inf", "0", "-1", "1/0", "", "fast"])
    func badRateTextIsRejected(text: String) {
        #expect(throws: AudioFailure.self) { try TimePitchAlgorithm.parseRate(text) }
        // and the retime syntax every command shares rejects it too
        #expect(throws: (any Error).self) { try RetimeSpec.parseRate(Substring(text), context: "rate '\(text)'") }
    }

    @Test func pitchNamesParseAndUnknownNamesListTheValidOnes() throws {
        for a in TimePitchAlgorithm.allCases { #expect(try TimePitchAlgorithm(parsing: a.rawValue) == a) }
        #expect(
            throws: AudioFailure(
                .invalidAlgorithm, subject: "\(Setting.pitch) 'rubber'" as Wording, operation: "choose algorithm",
                cause: "expected one of zero-latency, time-domain, spectral, varispeed, mute")
        ) {
            try TimePitchAlgorithm(parsing: "rubber")
        }
    }

    @Test func segmentLengthsAreExactAndRoundingNeverAccumulates() throws {
        // 700 segments of 1/7 s alternating 1/3 and 3/2 at 44.1 kHz: no boundary is a whole sample
        var segs: [SegmentSpec] = []
        for i in stride(from: 0, to: 700, by: 2) {
            segs.append(try SegmentSpec(parsing: "\(i)/7-\(i + 1)/7@1/3"))
        }
        let map = try RetimeSpec(rate: Rational(3, 2), segments: segs).resolve(duration: Rational(100), frameRate: nil)
        let sr = 44_100
        let plan = try AudioRenderPlan(map: map, sampleRate: sr, algorithm: .spectral)
        #expect(plan.segments.count == 700)
        #expect(plan.totalFrames == (map.target.duration * Rational(Int64(sr))).rounded(.nearest))
        #expect(plan.segments.reduce(0) { $0 + $1.length } == plan.totalFrames)
        for (m, s) in zip(map.mappings, plan.segments) {
            #expect(s.outStart == ((m.target.start - map.target.start) * Rational(Int64(sr))).rounded(.nearest))
            #expect(s.rate == m.rate)
            // engine alignment: output frame k maps to source within half an output frame
            let k = s.outStart + s.length / 2
            let exact = m.source.start * Rational(Int64(sr)) + (Rational(k) - (m.target.start - map.target.start) * Rational(Int64(sr))) * s.rate
            let viaEngine = Rational(s.feedStart) + Rational(k - s.renderStart + s.engineSkip) * s.rate
            #expect(abs((viaEngine - exact).doubleValue) <= s.rate.doubleValue / 2 + 1e-9)
            #expect(s.engineSkip >= 0)
        }
        // crossfades fit their segments and are symmetric around each boundary
        for (a, b) in zip(plan.segments, plan.segments.dropFirst()) {
            #expect(a.fadeOut == b.fadeIn && a.fadeOut <= a.length / 2 && b.fadeIn <= b.length / 2)
            #expect(a.outEnd == b.outStart)
        }
        #expect(plan.segments.first?.fadeIn == 0 && plan.segments.last?.fadeOut == 0)
    }

    @Test func zeroLatencyPlaysTheSnappedMap() throws {
        let seg = try SegmentSpec(parsing: "1-2@0.6")
        let map = try RetimeSpec(segments: [seg]).resolve(duration: Rational(3), frameRate: nil)
        let plan = try AudioRenderPlan(map: map, sampleRate: 48_000, algorithm: .zeroLatency)
        #expect(plan.segments.map(\.rate) == [.one, Rational(2, 3), .one])
        #expect(plan.segments.map(\.requestedRate) == [.one, Rational(3, 5), .one])
        // 1 + 1.5 + 1 s, not the 1 + 5/3 + 1 s the unsnapped map asks for
        #expect(plan.playedMap.target.duration == Rational(7, 2))
        #expect(plan.totalFrames == 168_000)
        #expect(throws: AudioFailure.self) {
            try AudioRenderPlan(map: wholeMap(seconds: Rational(1), rate: Rational(1, 4)), sampleRate: 48_000, algorithm: .zeroLatency)
        }
    }

    @Test func crossfadeGainsAreComplementary() {
        for n in [2, 3, 10, 480] {
            for i in 0..<n {
                let g = AudioRenderPlan.fadeGain(i, of: n) + AudioRenderPlan.fadeGain(n - 1 - i, of: n)
                #expect(abs(g - 1) < 1e-6)
            }
            #expect(AudioRenderPlan.fadeGain(0, of: n) < 0.5 && AudioRenderPlan.fadeGain(n - 1, of: n) > 0.5)
        }
    }

    @Test func sampleRatesOutside8To192kHzAreRejected() {
        for sr in [4000, 7999, 192_001, 384_000] {
            #expect(throws: AudioFailure.self) {
                try AudioRenderPlan(map: wholeMap(seconds: Rational(1), rate: .one), sampleRate: sr, algorithm: .spectral)
            }
        }
    }
}
