import SlomoCore
import Testing

/// `--burn-in`'s pure part: the settings' refusals, which source frame an output frame is labelled
/// with, and the label's text (exact decimals, UTC dates, the exposure a recording records).
@Suite struct BurnInLabelTests {
    /// 250 fps source frames, the trigger at frame 10.
    static let source = BurnInSource(
        times: (0..<21).map { Rational(Int64($0), 250) }, originIndex: 10, frameRate: Rational(250), exposure: "1.000 ms",
        utcAtZero: utcSeconds(iso8601: "2026-12-31T23:59:59.990000Z"))

    @Test func theDefaultLabelIsTheFrameAndMillisecondsFromTheTrigger() {
        let s = BurnInSettings()
        #expect(Self.source.label(ofFrame: 0, s) == "frame -10\n-40.000 ms")
        #expect(Self.source.label(ofFrame: 10, s) == "frame 0\n0.000 ms")
        #expect(Self.source.label(ofFrame: 13, s) == "frame 3\n12.000 ms")
    }

    @Test func otherFieldsInTheirOrder() throws {
        let s = try BurnInSettings(fields: "date,us,rate,exposure", corner: "bottom-right", size: 40)
        // the date rolls over into the new year: 23:59:59.990 + 12 ms (frame 3)
        #expect(Self.source.label(ofFrame: 3, s) == "2027-01-01 00:00:00.002\n-28000 us\n250 fps\nexp 1.000 ms")
        #expect(s.corner == .bottomRight && s.textSize(pictureHeight: 1080) == 40)
        #expect(BurnInSettings().textSize(pictureHeight: 1080) == 54 && BurnInSettings().textSize(pictureHeight: 120) == 16)
        let unknown = BurnInSource(times: [.zero], originIndex: 0)
        #expect(unknown.label(ofFrame: 0, try BurnInSettings(fields: "rate,exposure,date", corner: nil, size: nil)) == "rate ?\nexp ?\ndate ?")
    }

    @Test func refusals() {
        #expect(throws: SettingError.self) { try BurnInSettings(fields: "frame,sec", corner: nil, size: nil) }
        #expect(throws: SettingError.self) { try BurnInSettings(fields: nil, corner: "middle", size: nil) }
        #expect(throws: SettingError.self) { try BurnInSettings(fields: nil, corner: nil, size: 4) }
        do {
            _ = try BurnInSettings(fields: "frame,sec", corner: nil, size: nil)
        } catch {
            #expect("\(error)".contains("'sec' is not one of frame, ms, us, rate, exposure or date"), "\(error)")
        }
    }

    /// Exact decimals, rounded to nearest, negative times too; an NTSC rate with three decimals.
    @Test func decimals() {
        #expect(BurnInSource.decimal(Rational(1000, 240), places: 3) == "4.167")
        #expect(BurnInSource.decimal(Rational(-1000, 240), places: 3) == "-4.167")
        #expect(BurnInSource.decimal(Rational(-1, 4000), places: 3) == "0.000")
        #expect(BurnInSource.decimal(Rational(30000, 1001), places: 3) == "29.970")
        #expect(UTCText.dateTime(Rational(-1, 1000), places: 3) == "1969-12-31 23:59:59.999")
        #expect(UTCText.dateTime(Rational(951_782_400), places: 0) == "2000-02-29 00:00:00")
    }

    /// At 1/4 speed and 250 fps out of 250 fps in: output frames 4k…4k+3 show source frame k when
    /// held; made frames (weights 0, 1/4, 1/2, 3/4) are labelled k, k, k (halfway: the earlier), k+1.
    @Test func aMadeFrameIsLabelledWithTheNearerSourceFrame() throws {
        let times = (0..<21).map { Rational(Int64($0), 250) }
        let map = try RetimeMap(mappings: [
            TimeMapping(source: TimeRange(start: .zero, end: Rational(84, 1000)), target: TimeRange(start: .zero, end: Rational(336, 1000)))
        ])
        let schedule = CFRSchedule(map: map, frameRate: Rational(250))
        #expect((0..<8).map { schedule.labelledFrameIndex(ofFrame: $0, sourceTimes: times, made: false) } == [0, 0, 0, 0, 1, 1, 1, 1])
        #expect((0..<8).map { schedule.labelledFrameIndex(ofFrame: $0, sourceTimes: times, made: true) } == [0, 0, 0, 1, 1, 1, 1, 2])
    }

    @Test func theExposureFromTheRecordedControls() {
        #expect(BurnInSource.exposure(controls: "gain=10 (--gain 10); exposure_time_absolute=20 (--exposure 2ms)") == "2.000 ms")
        #expect(BurnInSource.exposure(controls: "ExposureTime=1234.5 (--exposure 1.2345ms)") == "1.235 ms")
        #expect(BurnInSource.exposure(controls: "gain=10 (--gain 10)") == nil)
    }
}
