import Testing
@testable import SlomoCore

/// A driver clock that jumps back (a wrapped 64-bit nanosecond count, a reset) keeps the capture's
/// timeline increasing, by sequence numbers; a forward gap is real time and stays.
@Suite struct TimestampContinuityTests {
    @Test func aWrappedClockContinuesByTheSequenceNumbers() {
        var c = TimestampContinuity(frameDuration: Rational(1, 60))
        let start = Rational(9_223_372_020, 1)  // 2^63 ns − 16 s, in seconds (rounded)
        var out: [Rational] = []
        for k in 0..<4 { out.append(c.mend(start + Rational(Int64(k), 60), sequence: UInt64(k))) }
        // the clock wraps to a negative time; frame 5 also skipped a sequence number (one drop)
        out.append(c.mend(Rational(-9_223_372_036, 1), sequence: 5))
        out.append(c.mend(Rational(-9_223_372_036, 1) + Rational(1, 60), sequence: 6))
        #expect(out[4] == out[3] + Rational(2, 60))  // two sequence steps after the last good frame
        #expect(out[5] - out[4] == Rational(1, 60))  // the driver's interval kept after the jump
        #expect(
            c.jumps == [
                TimestampContinuity.Jump(
                    frame: 4, before: start + Rational(3, 60), after: Rational(-9_223_372_036, 1), offset: out[4] - Rational(-9_223_372_036, 1))
            ])
        #expect(c.warnings.count == 1 && c.warnings[0].contains("went back") && c.warnings[0].contains("at frame 4"))
    }

    @Test func aForwardGapAndARepeatedTimeAreHandledApart() {
        var c = TimestampContinuity(frameDuration: Rational(1, 100))
        #expect(c.mend(Rational(10), sequence: 0) == Rational(10))
        #expect(c.mend(Rational(15), sequence: 1) == Rational(15))  // the camera paused 5 s: real time, kept
        #expect(c.mend(Rational(15), sequence: 2) == Rational(1501, 100))  // the same time again: one frame on
        #expect(c.jumps.count == 1 && c.offset == Rational(1, 100))
        #expect(c.mend(Rational(1502, 100), sequence: 3) == Rational(1503, 100))
    }

    /// Sequence numbers that wrap at 2^32 are neither drops nor repeats; a real gap across the wrap
    /// is counted as the frames it skipped, and a repeat as one.
    @Test func sequenceNumbersWrapWithoutADropOrARepeat() {
        var s = CaptureStats()
        for (k, q) in [UInt64(UInt32.max) - 1, UInt64(UInt32.max), 0, 1].enumerated() { s.record(sequence: q, timestamp: Rational(Int64(k), 60)) }
        #expect(s.droppedByDriver == 0 && s.repeatedSequence == 0 && s.framesCaptured == 4)
        var g = CaptureStats()
        for (k, q) in [UInt64(UInt32.max) - 1, 1, 1].enumerated() { g.record(sequence: q, timestamp: Rational(Int64(k), 60)) }
        #expect(g.droppedByDriver == 2 && g.repeatedSequence == 1)  // .max and 0 skipped; 1 twice
    }
}
