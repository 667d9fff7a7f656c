import Foundation
import PropertyBased
import Testing
@testable import SlomoCore

@Suite struct RetimeMapTests {
    func spec(_ segments: String..., rate: Rational = .one) throws -> RetimeSpec {
        RetimeSpec(rate: rate, segments: try segments.map { try SegmentSpec(parsing: $0) })
    }

    @Test func segmentMapsExactly() throws {
        // 10 s clip, 2.5-4 at 1/4: the 1.5 s segment lasts 6 s, total 14.5 s
        let map = try spec("2.5-4@1/4").resolve(duration: Rational(10), frameRate: Rational(240))
        #expect(map.mappings.count == 3)
        #expect(map.target.duration == Rational(29, 2))
        #expect(map.targetTime(forSource: Rational(4)) == Rational(17, 2))  // 2.5 + 6
        #expect(map.sourceTime(forTarget: Rational(17, 2)) == Rational(4))
        #expect(map.rate(atSource: Rational(3)) == Rational(1, 4))
        #expect(map.rate(atSource: Rational(5)) == .one)
    }

    @Test func globalRateFillsTheGaps() throws {
        let map = try spec("1-2@1/8", rate: Rational(1, 2)).resolve(duration: Rational(4), frameRate: nil)
        // 1 s at 1/2 -> 2 s; 1 s at 1/8 -> 8 s; 2 s at 1/2 -> 4 s
        #expect(map.target.duration == Rational(14))
        #expect(map.mappings.map(\.rate) == [Rational(1, 2), Rational(1, 8), Rational(1, 2)])
    }

    @Test func frameNumbersAndClockTimes() throws {
        let s = try SegmentSpec(parsing: "f600-f960@1/4")
        #expect(try s.start.resolve(frameRate: Rational(240)) == Rational(5, 2))
        #expect(try s.end.resolve(frameRate: Rational(240)) == Rational(4))
        let c = try SegmentSpec(parsing: "00:01:02.5-01:03@1/2")
        #expect(c.start == .seconds(Rational(125, 2)) && c.end == .seconds(Rational(63)))
        #expect(throws: RetimeError.self) { try s.start.resolve(frameRate: nil) }
    }

    @Test(arguments: [
        ("5-2@0.5", "is not after start"), ("1-2@0", "rate must be > 0"), ("1-2@-1", "rate must be > 0"),
        ("1-2@nan", "is not a number"), ("1-2@1/0", "zero denominator"), ("1-2", "expected START-END@RATE"),
        ("-1-2@0.5", "negative"), ("1-2@5000", "outside"), ("a-2@1", "is not a time"), ("1:75-2@1", "below 60"),
        ("1-2@0.5:0.1", "only allowed with ramps"), ("1-1@0.5", "is not after start"), ("fx-f2@1", "frame number"),
    ])
    func malformedSegmentsAreRefusedWithAReason(text: String, reason: String) {
        do {
            _ = try SegmentSpec(parsing: text)
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
            #expect(error.description.contains(text))
        }
    }

    @Test func overlapsAndPastEndAreRefused() throws {
        #expect(throws: RetimeError.overlap("1-3@0.5", "2-4@0.25")) {
            try spec("2-4@0.25", "1-3@0.5").resolve(duration: Rational(10), frameRate: nil)
        }
        #expect(throws: RetimeError.pastEnd("8-12@0.5", end: Rational(12), mediaDuration: Rational(10))) {
            try spec("8-12@0.5").resolve(duration: Rational(10), frameRate: nil)
        }
        // touching segments are fine
        let m = try spec("1-2@1/2", "2-3@1/4").resolve(duration: Rational(3), frameRate: nil)
        #expect(m.target.duration == Rational(1 + 2 + 4))
    }

    /// A ramp is a curve on each side whose slowdown follows smoothstep at the quarter points:
    /// exact at every frame, eased (speed changes slowest at the ends), and as long as a linear
    /// ramp, (ramp) × (1/fromRate + 1/toRate) / 2 per side.
    @Test func rampEasesInAndOutAndKeepsTotalsExact() throws {
        let s = try SegmentSpec(parsing: "2-6@1/8:1/2", allowRamp: true)
        let map = try RetimeSpec(segments: [s]).resolve(duration: Rational(8), frameRate: Rational(240))
        // total target: 2 + ramp (1/2 × (1 + 8)/2) + hold 3 × 8 + ramp + 2
        #expect(map.target.duration == Rational(4) + Rational(24) + Rational(9, 4) * Rational(2))
        #expect(map.glides == [TimeRange(start: Rational(2), end: Rational(5, 2)), TimeRange(start: Rational(11, 2), end: Rational(6))])
        // exact at the ramp's quarter points: the slowdown there is 1 + 7 × smoothstep
        let slow = { (t: Rational) in Rational.one / map.rate(atSource: t) }
        // one frame (1/240 s) into the ramp the slowdown has barely moved; mid-ramp it moves fastest
        let first = slow(Rational(2) + Rational(1, 480)), middle = slow(Rational(9, 4) + Rational(1, 480)) - slow(Rational(9, 4) - Rational(1, 480))
        // (its first piece's slope is 7 × 5/32 per 1/8 s = 35/4 per second, over half a frame on average)
        #expect(first == Rational(1) + Rational(35, 4) / Rational(480))
        #expect(middle > Rational(7) * Rational(11, 8) / Rational(120) * Rational(9, 10))
        // the stretch rises monotonically into the hold and falls after it
        let ramp = map.mappings.filter { $0.source.start >= Rational(2) && $0.source.end <= Rational(5, 2) }.map { Rational.one / $0.rate }
        #expect(ramp.count == 120 && zip(ramp, ramp.dropFirst()).allSatisfy { $0.0 < $0.1 })
        #expect(map.rate(atSource: Rational(3)) == Rational(1, 8) && map.rate(atSource: Rational(7)) == .one)
        // without a frame rate: exact every 10 ms
        let coarse = try RetimeSpec(segments: [s]).resolve(duration: Rational(8), frameRate: nil)
        #expect(coarse.target.duration == map.target.duration)
        // 2.05 s is on both grids: both maps are exact there
        #expect(coarse.targetTime(forSource: Rational(41, 20)) == map.targetTime(forSource: Rational(41, 20)))
        #expect(throws: RetimeError.self) {
            try RetimeSpec(segments: [SegmentSpec(parsing: "2-3@1/8:1/2", allowRamp: true)]).resolve(duration: Rational(8), frameRate: nil)
        }
    }

    @Test func invalidMappingsAreRejected() {
        let r = TimeRange(start: .zero, duration: Rational(1))
        #expect(throws: RetimeError.self) {
            try RetimeMap(mappings: [
                TimeMapping(source: r, target: r),
                TimeMapping(source: TimeRange(start: Rational(2), duration: .one), target: TimeRange(start: .one, duration: .one)),
            ])
        }
        #expect(throws: RetimeError.empty) { try RetimeMap(mappings: []) }
    }

    /// Random segment lists: the map is strictly increasing, both directions invert each other
    /// exactly, and the target duration is the exact sum of segment durations / rates.
    @Test func propertyRoundTripMonotonicTotals() async {
        let rates = [Rational(1, 32), Rational(1, 8), Rational(1, 4), Rational(1, 2), Rational(2, 3), Rational(2), Rational(3, 2), Rational(1, 3)]
        await propertyCheck(count: 200, input: Gen.int(in: 0...4), Gen.int(in: 0...7), Gen.int(in: 1...3), Gen.int(in: 0...7)) { nSeg, r0, gap, r1 in
            var segments: [SegmentSpec] = []
            var t = Rational(Int64(gap), 3)
            for k in 0..<nSeg {
                let len = Rational(Int64(k + 1), 7)
                segments.append(SegmentSpec(start: .seconds(t), end: .seconds(t + len), rate: rates[(r1 + k) % rates.count]))
                t = t + len + Rational(Int64(gap), 5)
            }
            let duration = t + Rational(1)
            let spec = RetimeSpec(rate: rates[r0], segments: segments)
            let map = try spec.resolve(duration: duration, frameRate: nil)
            var expected = Rational.zero, covered = Rational.zero
            for s in segments {
                if case .seconds(let a) = s.start, case .seconds(let b) = s.end {
                    expected += (b - a) / s.rate
                    covered += b - a
                }
            }
            expected += (duration - covered) / rates[r0]
            #expect(map.target.duration == expected)
            #expect(map.source == TimeRange(start: .zero, end: duration))
            var previous: Rational?
            for i in 0...40 {
                let s = duration * Rational(Int64(i), 40)
                let tt = map.targetTime(forSource: s)
                #expect(map.sourceTime(forTarget: tt) == s)
                if let p = previous { #expect(tt > p) }
                previous = tt
            }
        }
    }
}

@Suite struct CFRScheduleTests {
    func schedule(rate: Rational, duration: Rational = Rational(2), fps: Rational = Rational(30)) throws -> CFRSchedule {
        CFRSchedule(map: try RetimeSpec(rate: rate).resolve(duration: duration, frameRate: nil), frameRate: fps)
    }

    @Test func rateOne240To30TakesEveryEighthFrame() throws {
        let s = try schedule(rate: .one)
        #expect(s.frameCount == 60)
        #expect(
            (0..<s.frameCount).map { s.sourceFrameIndex(ofFrame: $0, sourceFrameRate: Rational(240), sourceFrameCount: 480) }
                == (0..<60).map { $0 * 8 })
    }

    @Test func halfAndEighthSpeed() throws {
        let half = try schedule(rate: Rational(1, 2))
        #expect(half.frameCount == 120)
        #expect(half.sourceFrameIndex(ofFrame: 7, sourceFrameRate: Rational(240), sourceFrameCount: 480) == 28)
        let eighth = try schedule(rate: Rational(1, 8))
        #expect(eighth.frameCount == 480)
        #expect((0..<480).allSatisfy { eighth.sourceFrameIndex(ofFrame: $0, sourceFrameRate: Rational(240), sourceFrameCount: 480) == $0 })
    }

    @Test func tieBreakPicksTheFrameStartingExactlyThere() {
        let times = [Rational(0), Rational(1, 240), Rational(2, 240), Rational(3, 240)]
        #expect(CFRSchedule.frameIndex(at: Rational(1, 240), in: times) == 1)  // exactly on a pts: that frame
        #expect(CFRSchedule.frameIndex(at: Rational(1, 240) - Rational(1, 1_000_000), in: times) == 0)
        #expect(CFRSchedule.frameIndex(at: Rational(-1), in: times) == 0)  // before the first frame
        #expect(CFRSchedule.frameIndex(at: Rational(5), in: times) == 3)  // after the last: hold it
    }

    @Test func ntscSourceAtHalfSpeedTo30() throws {
        // 30000/1001 source, 1/2 speed, 30 fps out: output frame n shows source floor(n * 1001/2000)
        let s = try schedule(rate: Rational(1, 2), duration: Rational(1001, 100), fps: Rational(30))
        for n: Int64 in [0, 1, 2, 3, 599, 600] {
            let expected = (Rational(n) / Rational(60) * Rational(30000, 1001)).floor
            #expect(s.sourceFrameIndex(ofFrame: n, sourceFrameRate: Rational(30000, 1001), sourceFrameCount: 300) == expected)
        }
    }
}

/// Decode times for copied packets: the source's own when it has them, else rebuilt from the pts.
@Suite struct DecodeTimestampsTests {
    @Test func sourceDecodeTimesAreKeptWhenComplete() {
        // I P B B: pts 0 30 10 20, dts -10 0 10 20 (a valid reorder)
        #expect(DecodeTimestamps.make(pts: [0, 30, 10, 20], mappedDTS: [-10, 0, 10, 20]) == [-10, 0, 10, 20])
    }

    /// Matroska-style input: no dts on the first packets and guesses that run backwards. Rebuilt:
    /// increasing, each at or before its pts, and presentation times untouched.
    @Test func missingOrBackwardDecodeTimesAreRebuiltFromThePresentationTimes() {
        let pts: [Int64] = [0, 17, 8, 4, 13, 33, 25, 21, 29]
        let dts = DecodeTimestamps.make(pts: pts, mappedDTS: [nil, nil, 0, 4, 8, 13, 17, 21, 25])
        #expect(zip(dts.dropFirst(), dts).allSatisfy { $0 > $1 })
        #expect(zip(dts, pts).allSatisfy { $0 <= $1 })
        // sorted pts moved back by the smallest shift that keeps dts ≤ pts (9: packet 3, pts 4, is 4th smallest at 13)
        #expect(dts == [-9, -5, -1, 4, 8, 12, 16, 20, 24])
        // a dts after its own pts is not usable either
        #expect(DecodeTimestamps.make(pts: [0, 10, 5], mappedDTS: [0, 10, 11]) == [-5, 0, 5])
    }
}

/// The `slomo_retime` tag: written as `plan --json` shows a piece (since JSON version 2), and the
/// tags of files written before still read (their `source`/`target` as `{start, duration}`).
@Suite struct RetimeMapTagTests {
    @Test func oldAndNewTagsReadAlike() throws {
        let legacy =
            #"{"mappings":[{"source":{"start":{"numerator":0,"denominator":1},"duration":{"numerator":1,"denominator":1}},"target":{"start":{"numerator":0,"denominator":1},"duration":{"numerator":1,"denominator":1}}},{"source":{"start":{"numerator":1,"denominator":1},"duration":{"numerator":1,"denominator":2}},"target":{"start":{"numerator":1,"denominator":1},"duration":{"numerator":2,"denominator":1}}}]}"#
        let old = try JSONDecoder().decode(RetimeMap.self, from: Data(legacy.utf8))
        let want = try RetimeMap(mappings: [
            TimeMapping(source: TimeRange(start: .zero, end: .one), target: TimeRange(start: .zero, end: .one)),
            TimeMapping(source: TimeRange(start: .one, end: Rational(3, 2)), target: TimeRange(start: .one, end: Rational(3))),
        ])
        #expect(old == want)
        let written = String(decoding: try JSONEncoder().encode(want), as: UTF8.self)
        #expect(written.contains("\"sourceStart\"") && written.contains("\"targetEnd\"") && written.contains("\"rate\"") && !written.contains("\"duration\""))
        #expect(try JSONDecoder().decode(RetimeMap.self, from: Data(written.utf8)) == want)
    }
}
