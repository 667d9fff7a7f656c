import CV4L2
import Glibc
import Testing
import SlomoCore
import SlomoTestSupport
@testable import SlomoV4L2

/// `VideoDevice.apply` against the fake driver: call order, read-back, and honest reporting of
/// what a driver rounded, refused or cannot do.
@Suite struct NegotiationTests {
    static let mjpg120 = CaptureMode(pixelFormat: "MJPG", width: 640, height: 480, frameDuration: Rational(1, 120), compressed: true)

    @Test func appliesFormatThenRateThenControlsAndReadsBack() throws {
        let fake = FakeV4L2()
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        let a = try d.apply(Self.mjpg120)
        #expect(fake.callsAfterOpen.prefix(5) == [.sFmt, .gFmt, .gParm, .sParm, .gParm])
        #expect(fake.log.filter { $0.hasPrefix("S_") } == ["S_FMT MJPG 640x480", "S_PARM 1/120"])
        #expect(a.pixelFormat == "MJPG" && a.width == 640 && a.height == 480 && a.bytesPerLine == 1280)
        #expect(a.frameDuration == Rational(1, 120) && a.timePerFrameSupported)
        #expect(a.exact && a.adjustments.isEmpty)
        #expect(a.summary == "driver set MJPG 640x480 at 1/120 s (120 fps), exactly as requested")
    }

    @Test func aRoundedRateIsReportedNotPretended() throws {
        let fake = FakeV4L2()
        fake.roundInterval = { _ in (1, 30) }  // e.g. a C920 that gives 30 whatever is asked
        fake.roundSize = { _ in (640, 360) }
        let a = try VideoDevice(path: "/dev/video0", syscalls: fake).apply(Self.mjpg120)
        #expect(a.frameDuration == Rational(1, 30) && a.height == 360 && !a.exact)
        #expect(
            a.adjustments == [
                "size 640x480 requested, driver set 640x360",
                "frame duration 1/120 s (120 fps) requested, driver runs at 1/30 s (30 fps)",
            ])
        #expect(a.summary == "driver set MJPG 640x360 at 1/30 s (30 fps), NOT as requested (MJPG 640x480 at 1/120 s, 120 fps)")
    }

    @Test func withoutTimePerFrameTheRateIsNotSetAndThatIsSaid() throws {
        let fake = FakeV4L2()
        fake.timePerFrame = false
        fake.interval = (1, 25)
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        #expect(d.info.hasTimePerFrame == false)
        let a = try d.apply(Self.mjpg120)
        #expect(!fake.calls.contains(.sParm))
        #expect(!a.timePerFrameSupported && a.frameDuration == Rational(1, 25))
        #expect(a.adjustments.first == "driver has no V4L2_CAP_TIMEPERFRAME: the rate cannot be set, capturing at the driver's rate")
        #expect(a.adjustments.count == 2 && !a.exact)
    }

    @Test func gParmUnsupportedFallsBackToDVTimings() throws {
        let fake = FakeV4L2()
        fake.fail = (.gParm, ENOTTY, after: 0)
        fake.dv = (clock: 36_288_000, htotal: 720, vtotal: 504)  // 640x480 CVT-RB2 at exactly 100 fps
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        #expect(d.dvTimingsRate() == Rational(100))
        let a = try d.apply(CaptureMode(pixelFormat: "YUYV", width: 640, height: 480, frameDuration: Rational(1, 100), compressed: false))
        #expect(a.frameDuration == Rational(1, 100) && a.dvTimingsFrameDuration == Rational(1, 100) && a.exact)
        #expect(a.adjustments == ["driver does not report its frame interval (VIDIOC_G_PARM: ENOTTY); the rate cannot be set, capturing at the driver's rate"])
    }

    @Test func driverAndDVTimingsDisagreeingIsNoted() throws {
        let fake = FakeV4L2()
        fake.dv = (clock: 36_288_000, htotal: 720, vtotal: 504)
        fake.interval = (907, 90720)  // vivid's integer-truncated interval for that signal
        fake.roundInterval = { _ in (907, 90720) }
        let a = try VideoDevice(path: "/dev/video0", syscalls: fake)
            .apply(CaptureMode(pixelFormat: "YUYV", width: 640, height: 480, frameDuration: Rational(907, 90720), compressed: false))
        #expect(a.frameDuration == Rational(907, 90720) && a.dvTimingsFrameDuration == Rational(1, 100) && a.exact)
        #expect(a.adjustments == ["the DV timings give 1/100 s (100 fps) while the driver reports 907/90720 s (100.022 fps)"])
    }

    @Test func busyOnSetFormatIsOneClearLine() throws {
        let fake = FakeV4L2()
        fake.fail = (.sFmt, EBUSY, after: 0)
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        let mode = CaptureMode(pixelFormat: "MJPG", width: 1280, height: 720, frameDuration: Rational(1, 60), compressed: true)
        do {
            _ = try d.apply(mode)
            Issue.record("applied")
        } catch let error as V4L2Error {
            #expect(error.description == "/dev/video0: VIDIOC_S_FMT MJPG 1280x720 failed: Device or resource busy (EBUSY)")
            #expect(error.kind == .unavailable && error.code == .busy)
        }
        #expect(!fake.calls.contains(.sParm))
    }

    @Test func exposurePriorityOffAndManualExposureClampedToTheFrameDuration() throws {
        let fake = FakeV4L2()
        fake.controls = [
            CV4L2_CID_EXPOSURE_AUTO_PRIORITY: (1, 0, 1, 0),
            CV4L2_CID_EXPOSURE_AUTO: (Int32(V4L2_EXPOSURE_MANUAL.rawValue), 0, 3, 0),
            CV4L2_CID_EXPOSURE_ABSOLUTE: (500, 3, 2047, 0),  // 50 ms: longer than 1/120 s
        ]
        let a = try VideoDevice(path: "/dev/video0", syscalls: fake).apply(Self.mjpg120)
        #expect(fake.log.filter { $0.hasPrefix("S_CTRL") } == ["S_CTRL exposure_auto_priority 0", "S_CTRL exposure_absolute 83"])
        #expect(a.controls == ["exposure_auto_priority": 0, "exposure_auto": 1, "exposure_absolute": 83])
        #expect(a.adjustments == ["exposure_absolute 500 clamped to 83 (100 µs units) to fit the frame duration 1/120 s"])
        #expect(a.exact)  // format and rate are as requested
    }

    @Test func shutterPriorityCountsAsManualAndAutoExposureIsLeftAlone() throws {
        let fake = FakeV4L2()
        fake.controls = [
            CV4L2_CID_EXPOSURE_AUTO: (Int32(V4L2_EXPOSURE_SHUTTER_PRIORITY.rawValue), 0, 3, 0),
            CV4L2_CID_EXPOSURE_ABSOLUTE: (100, 1, 5000, 0),
        ]
        _ = try VideoDevice(path: "/dev/video0", syscalls: fake).apply(Self.mjpg120)
        #expect(fake.controls[CV4L2_CID_EXPOSURE_ABSOLUTE]?.value == 83)
        let auto = FakeV4L2()
        auto.controls = [
            CV4L2_CID_EXPOSURE_AUTO: (Int32(V4L2_EXPOSURE_APERTURE_PRIORITY.rawValue), 0, 3, 0),
            CV4L2_CID_EXPOSURE_ABSOLUTE: (500, 1, 5000, 0),
        ]
        let a = try VideoDevice(path: "/dev/video0", syscalls: auto).apply(Self.mjpg120)
        #expect(auto.controls[CV4L2_CID_EXPOSURE_ABSOLUTE]?.value == 500 && a.controls["exposure_absolute"] == nil)
    }

    @Test func aRefusedControlIsReportedAndApplyContinues() throws {
        let fake = FakeV4L2()
        fake.controls = [CV4L2_CID_EXPOSURE_AUTO_PRIORITY: (1, 0, 1, 0)]
        fake.refuse = [CV4L2_CID_EXPOSURE_AUTO_PRIORITY: EIO]
        let a = try VideoDevice(path: "/dev/video0", syscalls: fake).apply(Self.mjpg120)
        #expect(a.controls["exposure_auto_priority"] == 1)
        #expect(a.adjustments == ["exposure_auto_priority could not be set to 0 (VIDIOC_S_CTRL: Input/output error (EIO)); it stays 1"])
    }

    @Test func exposureThatCannotFitIsSaid() throws {
        let fake = FakeV4L2()
        fake.controls = [CV4L2_CID_EXPOSURE_AUTO: (1, 0, 3, 0), CV4L2_CID_EXPOSURE_ABSOLUTE: (500, 100, 5000, 0)]  // min 10 ms
        let a = try VideoDevice(path: "/dev/video0", syscalls: fake).apply(Self.mjpg120)
        #expect(a.controls["exposure_absolute"] == 100)
        #expect(a.adjustments.last?.hasSuffix("longer than the frame duration 1/120 s: the driver will lower the rate") == true)
    }

    @Test func multiPlanarApplyUsesPixMp() throws {
        let fake = FakeV4L2()
        fake.caps = UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE | V4L2_CAP_STREAMING)
        let a = try VideoDevice(path: "/dev/video0", syscalls: fake).apply(Self.mjpg120)
        #expect(a.pixelFormat == "MJPG" && a.width == 640 && a.bytesPerLine == 1280 && a.frameDuration == Rational(1, 120))
        #expect(a.exact)
    }
}
