import CV4L2
import Glibc
import Testing
import SlomoCore
import SlomoTestSupport
@testable import SlomoV4L2

/// Camera-class controls vivid lacks (exposure time and its auto menu, focus, white balance
/// temperature, zoom) on the fake ioctl layer: enumeration, write order, locks, crop, refusals.
@Suite struct ControlsFakeTests {
    static let mode = CaptureMode(pixelFormat: "MJPG", width: 640, height: 480, frameDuration: Rational(1, 120), compressed: true)

    /// A UVC-like camera: aperture-priority exposure, automatic white balance and focus.
    static func camera() -> FakeV4L2 {
        let f = FakeV4L2()
        f.extControls = [
            CameraControl(id: ControlID.brightness, name: "brightness", label: "Brightness", kind: .integer, minimum: -64, maximum: 64, value: 0),
            CameraControl(
                id: ControlID.autoWhiteBalance, name: "white_balance_automatic", label: "White Balance, Automatic", kind: .boolean, maximum: 1, defaultValue: 1,
                value: 1),
            CameraControl(id: ControlID.gain, name: "gain", label: "Gain", kind: .integer, maximum: 255, value: 32),
            CameraControl(
                id: ControlID.whiteBalanceTemperature, name: "white_balance_temperature", label: "White Balance Temperature",
                kind: .integer, minimum: 2800, maximum: 6500, step: 10, defaultValue: 4600, value: 4600),
            CameraControl(
                id: ControlID.exposureAuto, name: "auto_exposure", label: "Auto Exposure", kind: .menu, maximum: 3, defaultValue: 3, value: 3,
                menu: [.init(index: 1, name: "Manual Mode"), .init(index: 3, name: "Aperture Priority Mode")]),
            CameraControl(
                id: ControlID.exposureAbsolute, name: "exposure_time_absolute", label: "Exposure Time, Absolute", kind: .integer,
                minimum: 3, maximum: 2047, defaultValue: 166, value: 166),
            CameraControl(id: ControlID.focusAbsolute, name: "focus_absolute", label: "Focus, Absolute", kind: .integer, maximum: 250, step: 5, value: 0),
            CameraControl(
                id: ControlID.focusAuto, name: "focus_automatic_continuous", label: "Focus, Automatic Continuous", kind: .boolean, maximum: 1, defaultValue: 1,
                value: 1),
            CameraControl(
                id: ControlID.zoomAbsolute, name: "zoom_absolute", label: "Zoom, Absolute", kind: .integer, minimum: 100, maximum: 500, defaultValue: 100,
                value: 100),
        ]
        f.clusters = [
            ControlID.exposureAbsolute: (ControlID.exposureAuto, 1), ControlID.whiteBalanceTemperature: (ControlID.autoWhiteBalance, 0),
            ControlID.focusAbsolute: (ControlID.focusAuto, 0),
        ]
        f.settled = { id in id == ControlID.focusAbsolute ? 135 : id == ControlID.exposureAbsolute ? 250 : 5200 }
        return f
    }

    static func requests(_ a: [String: String], _ named: [String] = []) throws -> ControlRequests {
        try ControlRequests.parse(
            shutter: a["shutter"], shutterAngle: a["angle"], exposure: a["exposure"], gain: a["gain"],
            focus: a["focus"], whiteBalance: a["wb"], zoom: a["zoom"], controls: named)
    }

    @Test func enumeratesWithMenusValuesAndLiveFlags() throws {
        let list = try VideoDevice(path: "/dev/video0", syscalls: Self.camera()).controls()
        #expect(
            list.map(\.name) == [
                "brightness", "white_balance_automatic", "gain", "white_balance_temperature", "auto_exposure",
                "exposure_time_absolute", "focus_absolute", "focus_automatic_continuous", "zoom_absolute",
            ])
        let exposure = try #require(list.first { $0.name == "auto_exposure" })
        #expect(exposure.menu.map(\.index) == [1, 3] && exposure.describe(3) == "3 (Aperture Priority Mode)" && exposure.group == "camera")
        let time = try #require(list.first { $0.name == "exposure_time_absolute" })
        #expect(time.flags.contains(.inactive) && time.value == 250)  // governed by aperture priority: reads the settled value
        #expect(list.first { $0.name == "white_balance_temperature" }?.step == 10)
    }

    @Test func writesInOrderAutomaticOffFirstAndReadsBack() throws {
        let fake = Self.camera()
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        let a = try d.apply(Self.mode, controls: Self.requests(["angle": "180", "focus": "lock", "wb": "5000", "zoom": "300", "gain": "80"]))
        // 180° of 1/120 s = 1/240 s = 41.67 → 42 × 100 µs
        #expect(
            fake.log.filter { $0.hasPrefix("S_EXT") } == [
                "S_EXT auto_exposure=1", "S_EXT exposure_time_absolute=42", "S_EXT gain=80", "S_EXT white_balance_automatic=0",
                "S_EXT white_balance_temperature=5000", "S_EXT focus_automatic_continuous=0", "S_EXT focus_absolute=135", "S_EXT zoom_absolute=300",
            ])
        let set = try #require(a.cameraControls)
        #expect(
            set.map { "\($0.name)=\($0.readBack ?? -1)" } == [
                "auto_exposure=1", "exposure_time_absolute=42", "gain=80", "white_balance_automatic=0",
                "white_balance_temperature=5000", "focus_automatic_continuous=0", "focus_absolute=135", "zoom_absolute=300",
            ])
        #expect(set[1].note == "1/240 s = 42 × 100 µs (21/5000 s)" && set[1].requested == "1/240 s" && set[1].option == "--shutter-angle 180")
        #expect(set[6].note == "locked at 135, the value the automatic mode had settled on" && set[6].option == "--focus lock")
        #expect(set[0].readBackText == "1 (Manual Mode)")
    }

    @Test func aLockedValueStaysAndAMovedOneIsReported() throws {
        let fake = Self.camera()
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        let a = try d.apply(Self.mode, controls: Self.requests(["exposure": "lock"]))
        fake.settled = { _ in 999 }  // the automatic mode would have moved on
        let again = d.readAgain(a.cameraControls ?? [])
        #expect(again.map(\.atEnd) == [1, 250] && again.allSatisfy { $0.driftWarning == nil })
        let k = try #require(fake.extControls.firstIndex { $0.id == ControlID.exposureAbsolute })
        fake.extControls[k].value = 300  // something else changed it during the shot
        let moved = d.readAgain(a.cameraControls ?? [])
        #expect(moved[1].driftWarning == "exposure_time_absolute moved during the capture: 250 after --exposure lock, 300 at the end")
        #expect(AppliedControl.metadataText(moved) == "auto_exposure=1 (--exposure lock); exposure_time_absolute=250 (--exposure lock)")
    }

    @Test func zoomWithoutAZoomControlCropsTheSensorArea() throws {
        let fake = Self.camera()
        fake.extControls.removeAll { $0.id == ControlID.zoomAbsolute }
        fake.selection = (PixelRect(left: 0, top: 0, width: 1280, height: 720), PixelRect(left: 0, top: 0, width: 1280, height: 720))
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        let a = try d.apply(
            CaptureMode(pixelFormat: "YUYV", width: 1280, height: 720, frameDuration: Rational(1, 30), compressed: false),
            controls: Self.requests(["zoom": "2"]))
        #expect(fake.log.contains("S_SELECTION 640x360 at 320,180"))
        #expect(a.crop?.readBack == PixelRect(left: 320, top: 180, width: 640, height: 360) && a.width == 640 && a.height == 360)
        #expect(a.adjustments.last == "--zoom 2: sensor area cropped to 640x360 at 320,180 of 1280x720 at 0,0; frames are 640x360")
    }

    @Test func aDeviceThatCannotCropSaysSo() throws {
        let fake = Self.camera()
        fake.extControls.removeAll { $0.id == ControlID.zoomAbsolute }
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        do {
            _ = try d.apply(Self.mode, controls: Self.requests(["zoom": "2"]))
            Issue.record("cropped")
        } catch let e as V4L2Error {
            #expect(
                e.description
                    == "/dev/video0: VIDIOC_G_SELECTION crop bounds (--zoom 2: no zoom_absolute control, and the device cannot crop) failed: No data available (ENODATA)"
            )
            #expect(e.kind == .unavailable)
        }
    }

    @Test func refusalsComeBeforeAnyWriteAndBeforeBuffers() throws {
        let fake = Self.camera()
        fake.stream = FakeV4L2.Stream()
        let d = try VideoDevice(path: "/dev/video0", syscalls: fake)
        do {
            _ = try V4L2StreamingSource(device: d, mode: Self.mode, buffers: 4, controls: Self.requests(["wb": "5005"]))
            Issue.record("applied")
        } catch let e
            as ControlError
        {
            #expect(
                e.description == "/dev/video0: --white-balance 5005: white_balance_temperature 5005: not on the step: 2800...6500 step 10; nearest 5000 or 5010"
            )
            #expect(e.kind == .badRequest)
        }
        #expect(!fake.log.contains { $0.hasPrefix("S_EXT") } && !fake.calls.contains(.reqbufs))
        // a write the driver refuses ends the set-up with the control named, before any buffer
        fake.refuseExt[ControlID.gain] = EBUSY
        do {
            _ = try V4L2StreamingSource(device: d, mode: Self.mode, buffers: 4, controls: Self.requests(["gain": "80"]))
            Issue.record("applied")
        } catch let e
            as V4L2Error
        {
            #expect(e.description == "/dev/video0: VIDIOC_S_EXT_CTRLS gain=80 (--gain 80) failed: Device or resource busy (EBUSY)")
            #expect(e.kind == .unavailable)
        }
        #expect(!fake.calls.contains(.reqbufs) && !fake.calls.contains(.streamon))
    }

    @Test func lockWithoutAnAutomaticModeIsUnavailable() throws {
        let d = try VideoDevice(path: "/dev/video0", syscalls: Self.camera())
        do {
            _ = try d.apply(Self.mode, controls: Self.requests(["gain": "lock"]))
            Issue.record("locked")
        } catch let e as ControlError {
            #expect(e.description == "/dev/video0: --gain lock: the device has no automatic gain to lock (no gain_automatic control)" && e.kind == .unavailable)
        }
    }
}
