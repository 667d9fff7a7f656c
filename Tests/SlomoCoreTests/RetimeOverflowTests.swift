import Testing
@testable import SlomoCore

/// Found by fuzz-values (Regressions/fuzz-values-crash-ea28e167): `2.5-4@1.666666666666666668`
/// overflowed the map's 64-bit fractions and trapped. Rates and ramps keep at most 9 decimals, and
/// the map is built with checked arithmetic: a refusal, never a trap.
@Suite struct RetimeOverflowTests {
    @Test func aTooPreciseRateIsRefused() {
        #expect(
            throws: RetimeError.invalidSegment(
                "2.5-4@1.666666666666666668",
                reason: "rate '1.666666666666666668' is too precise: at most 9 decimals, or a fraction of whole numbers up to 10^9")
        ) {
            try SegmentSpec(parsing: "2.5-4@1.666666666666666668")
        }
        #expect(throws: RetimeError.self) { try SegmentSpec(parsing: "1-3@1/2:0.0000000000001", allowRamp: true) }
    }

    @Test func finePiecesThatStillFitResolveAndOnesThatDoNotAreRefused() throws {
        // millisecond times with an eased ramp resolve exactly
        let fine = try SegmentSpec(parsing: "0.123-0.987@1/3:0.1", allowRamp: true)
        let m = try RetimeSpec(rate: Rational(1, 2), segments: [fine]).resolve(duration: Rational(3600), frameRate: Rational(240))
        #expect(m.source.end == Rational(3600) && m.targetTime(forSource: Rational(3600)) > Rational(7200))
        // the finest rates allowed at once may not add up: refused with a sentence, not a trap
        let finest = try SegmentSpec(parsing: "0.123456789-0.987654321@999999999/1000000000:0.1", allowRamp: true)
        #expect(throws: RetimeError.self) {
            try RetimeSpec(rate: Rational(333333333, 999999998), segments: [finest]).resolve(duration: Rational(3600), frameRate: Rational(240))
        }
    }
}
