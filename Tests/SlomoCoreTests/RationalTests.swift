import PropertyBased
import Testing
@testable import SlomoCore

@Suite struct RationalTests {
    @Test func reducesAndNormalisesSign() {
        let r = Rational(6, -8)
        #expect(r.numerator == -3 && r.denominator == 4)
        #expect(Rational(0, -5) == .zero)
        #expect(Rational(30000, 1001).description == "30000/1001")
        #expect(Rational(240, 1).description == "240")
    }

    /// Seconds shown to whole units (a server's refusal says "2004 s"): rounded, never a trap.
    @Test func secondsWithoutDecimals() {
        #expect(Seconds(Rational(60125, 30), decimals: 0).description == "2004")
        #expect(Seconds(Rational(3, 2), decimals: 0).description == "2")
        #expect(Seconds(Rational(-7, 3), decimals: 0).description == "-2")
        #expect(Seconds(Rational(7, 4), decimals: 1).description == "1.8")
    }

    @Test func arithmeticIsExact() {
        #expect(Rational(1, 3) + Rational(1, 6) == Rational(1, 2))
        #expect(Rational(1001, 30000) * Rational(30) == Rational(1001, 1000))
        #expect(Rational(1, 8) / Rational(1, 240) == Rational(30))
        #expect(Rational(1, 10) + Rational(2, 10) == Rational(3, 10))  // the classic Double failure
    }

    @Test func overflowIsReportedNotWrapped() throws {
        let big = Rational(Int64.max, 1)
        #expect(throws: RationalError.overflow) { try big.checkedAdding(Rational(1)) }
        #expect(throws: RationalError.overflow) { try big.checkedMultiplying(Rational(2)) }
        #expect(throws: RationalError.zeroDenominator) { try Rational(checked: 1, 0) }
        #expect(throws: RationalError.divisionByZero) { try Rational(1).checkedDividing(.zero) }
        // 128-bit intermediates: a product that fits after reduction does not overflow
        #expect(try Rational(Int64.max, 3).checkedMultiplying(Rational(3, Int64.max)) == .one)
    }

    @Test(arguments: [
        ("3", Rational(3)), ("-2.5", Rational(-5, 2)), ("0.125", Rational(1, 8)), ("1/8", Rational(1, 8)),
        ("30000/1001", Rational(30000, 1001)), (" 0.1 ", Rational(1, 10)), ("1.5/2", Rational(3, 4)), ("007", Rational(7)),
    ])
    func parsesDecimalsAndFractionsExactly(text: String, expected: Rational) throws {
        #expect(try Rational(parsing: text) == expected)
    }

    @Test(arguments: ["nan", "inf", "", "1/", "/2", "1..2", "0x10", "1e3", "abc", "1/0", "--1", "٣"])
    func rejectsNonNumbers(text: String) {
        #expect(throws: RationalError.self) { try Rational(parsing: text) }
    }

    @Test func roundingModesMatchAVRounding() {
        let half = Rational(5, 2), negHalf = Rational(-5, 2), third = Rational(7, 3)
        #expect(half.rounded(.nearest) == 3 && negHalf.rounded(.nearest) == -3)
        #expect(half.rounded(.nearestEven) == 2 && Rational(7, 2).rounded(.nearestEven) == 4)
        #expect(third.rounded(.down) == 2 && third.rounded(.up) == 3)
        #expect(Rational(-7, 3).rounded(.down) == -3 && Rational(-7, 3).rounded(.towardZero) == -2)
        #expect(Rational(-7, 3).rounded(.awayFromZero) == -3)
        #expect(Rational(6, 3).rounded(.up) == 2)
    }

    @Test func ticksInTimeBases() throws {
        // 1001/30000 s in a 1/90000 time base is exactly 3003 ticks
        #expect(try Rational(1001, 30000).ticks(in: Rational(1, 90000), rounding: .nearest) == 3003)
        // frame 1 of 240 fps in MP4's 1/15360 time base: 64 ticks
        #expect(try Rational(1, 240).ticks(in: Rational(1, 15360), rounding: .nearest) == 64)
        // 1/30 s in a 1/1000 time base is 33.33 ticks: rounding mode decides
        #expect(try Rational(1, 30).ticks(in: Rational(1, 1000), rounding: .down) == 33)
        #expect(try Rational(1, 30).ticks(in: Rational(1, 1000), rounding: .up) == 34)
        #expect(try Rational.rescale(3003, from: Rational(1, 90000), to: Rational(1001, 30000), rounding: .nearest) == 1)
    }

    @Test func approximatesPrintedRates() {
        #expect(Rational.approximating(29.97002997, maxDenominator: 1001) == Rational(30000, 1001))
        #expect(Rational.approximating(0.25) == Rational(1, 4))
        #expect(Rational.approximating(.nan) == nil)
    }

    @Test func codableForms() throws {
        // JSON decoding is exercised in the Kit tests (Foundation); here: the text form round-trips.
        for r in [Rational(1, 8), Rational(-30000, 1001), Rational(42)] {
            #expect(try Rational(parsing: r.description) == r)
        }
    }

    @Test func propertyAdditionRoundTrips() async {
        await propertyCheck(
            input: Gen.int64(in: -1_000_000...1_000_000), Gen.int64(in: 1...100_000),
            Gen.int64(in: -1_000_000...1_000_000), Gen.int64(in: 1...100_000)
        ) { a, b, c, d in
            let x = Rational(a, b), y = Rational(c, d)
            #expect(x + y - y == x)
            #expect((x + y) == (y + x))
            if !y.isZero { #expect(x * y / y == x) }
            // ordering agrees with cross multiplication
            #expect((x < y) == (Int128(a) * Int128(d) < Int128(c) * Int128(b)))
        }
    }

    @Test func propertyTicksRoundTripWhenExact() async {
        // any tick count converts to seconds and back unchanged, in any time base
        await propertyCheck(input: Gen.int64(in: -10_000_000...10_000_000), Gen.int64(in: 1...1001), Gen.int64(in: 1...192_000)) { t, n, d in
            let tb = Rational(n, d)
            let seconds = Rational(ticks: t, timeBase: tb)
            #expect((try? seconds.ticks(in: tb, rounding: .nearest)) == t)
        }
    }
}
