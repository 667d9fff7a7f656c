import Testing

@testable import SlomoCore

/// Points on the source timeline as users write them, trigger-relative ones included, and seconds
/// shown for any exact time (a Cine file's 2^-32 s wall-clock times included).
@Suite struct TimePointTests {
    @Test func triggerRelativePointsParse() throws {
        #expect(try TimePoint(parsing: "t-0.1") == .fromTrigger(Rational(-1, 10)))
        #expect(try TimePoint(parsing: "t+1/3") == .fromTrigger(Rational(1, 3)))
        #expect(try TimePoint(parsing: "t") == .fromTrigger(.zero))
        #expect(try TimePoint(parsing: "f-50") == .framesFromTrigger(-50))
        #expect(try TimePoint(parsing: "F+200") == .framesFromTrigger(200))
        #expect(try TimePoint(parsing: "f600") == .frame(600))
        #expect(try TimePoint(parsing: "2.5") == .seconds(Rational(5, 2)))
        #expect(TimePoint.fromTrigger(Rational(-1, 10)).description == "t-0.1" && TimePoint.framesFromTrigger(200).description == "f+200")
        for bad in ["f-", "f+x", "t-x", "t*2", "f-1234567890123456"] {
            #expect(throws: RetimeError.self, "\(bad)") { try TimePoint(parsing: Substring(bad)) }
        }
        // only --start/--end know a recording's trigger
        #expect(throws: RetimeError.self) { try TimePoint.framesFromTrigger(3).resolve(frameRate: Rational(250)) }
    }

    @Test func secondsShowAnyExactTime() {
        // TIME64: 1795858332 s and 2^32 - 1 fractions of 2^-32 s (scaling it whole would overflow)
        let t = Rational(1_795_858_332) + Rational(4_294_967_295, 1 << 32)
        #expect(Seconds(t).description == "1795858333")
        #expect(Seconds(Rational(1_795_858_332) + Rational(1, 4)).description == "1795858332.25")
        #expect(Seconds(Rational(-1, 3)).description == "-0.333333")
        #expect(Seconds(Rational(-1, 3_000_000_000)).description == "0")
        #expect(Seconds(Rational(3, 2), decimals: 0).description == "2")
    }
}
