import Testing

@testable import SlomoCore

/// The pure parts of the lab formats' bytes: Phantom's TIME64 and 0.32 exposures, `creation_time`
/// read exactly, DNG's CFA pattern and SMPTE time code.
@Suite struct LabLayoutTests {
    @Test func time64RoundsToTheNearestFractionAndCarries() throws {
        // half a second is 2^31 fractions; 1 µs is 4294.967296 fractions, to the nearest 4295
        #expect(try CineLayout.time64(Rational(3, 2)) == UInt64(1) << 32 | 1 << 31)
        #expect(try CineLayout.time64(Rational(1, 1_000_000)) == 4295)
        // a hair below the next second rounds up into it: fractions 0, seconds + 1
        #expect(try CineLayout.time64(Rational(1_999_999_999_999, 1_000_000_000_000)) == UInt64(2) << 32)
        #expect(try CineLayout.fraction32(Rational(1, 250)) == 17_179_869)
        #expect(try CineLayout.fraction32(Rational(2)) == UInt32.max)
    }

    @Test func creationTimeIsReadExactly() {
        #expect(utcSeconds(iso8601: "1970-01-01T00:00:00Z") == .zero)
        #expect(utcSeconds(iso8601: "2026-11-28T02:58:38.988188Z") == Rational(1_795_834_718) + Rational(988_188, 1_000_000))
        #expect(utcSeconds(iso8601: "2000-02-29T12:00:00.5Z") == Rational(951_825_600) + Rational(1, 2))
        #expect(utcSeconds(iso8601: "2026-11-28 02:58:38Z") == nil && utcSeconds(iso8601: "2026-13-01T00:00:00Z") == nil)
    }

    @Test func dngPatternAndTimeCode() {
        #expect(DNGFrame.cfaPattern("RGGB") == [0, 1, 1, 2] && DNGFrame.cfaPattern("gbrg") == [1, 2, 0, 1])
        #expect(
            DNGFrame.cfaPattern("GRBG") == [1, 0, 2, 1] && DNGFrame.cfaPattern("RGBG") == nil && DNGFrame.cfaPattern("RRGB") == nil
                && DNGFrame.cfaPattern("RGB") == nil)
        // 13:45:59 and 29/30 of a second, 30 frames a second, BCD
        let t = Rational(13 * 3600 + 45 * 60 + 59) + Rational(299, 300)
        #expect(DNGFrame.timeCode(t, rate: 30) == [0x29, 0x59, 0x45, 0x13, 0, 0, 0, 0])
        #expect(DNGFrame.timeCodeRate(Rational(250)) == 30 && DNGFrame.timeCodeRate(Rational(25)) == 25)
    }
}
