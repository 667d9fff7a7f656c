import Foundation
import Testing
@testable import SlomoCore

/// Control listings (saved `v4l2-ctl --list-ctrls[-menus]` texts of vivid and of real UVC cameras)
/// and the control planner: order (automatic off before the manual value), locks, and the refusals.
@Suite struct CameraControlTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/v4l2-controls")
    static func listing(_ name: String) throws -> [CameraControl] {
        try ControlListing.parse(String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8))
    }
    static func control(_ list: [CameraControl], _ name: String) -> CameraControl? { list.first { $0.name == name } }

    @Test func namesAreV4L2CtlsNames() {
        #expect(CameraControl.key("Gain, Automatic") == "gain_automatic")
        #expect(CameraControl.key("White Balance Temperature, Auto") == "white_balance_temperature_auto")
        #expect(CameraControl.key("Exposure (Absolute)") == "exposure_absolute")
        #expect(CameraControl.key("Integer 32 Bits") == "integer_32_bits")
        #expect(CameraControl.key("  Limited RGB Range (16-235) ") == "limited_rgb_range_16_235")
    }

    @Test func vividListingFromTheRealDriver() throws {
        let list = try Self.listing("vivid-webcam.txt")
        let expected = try String(contentsOf: Self.dir.appendingPathComponent("vivid-webcam.txt"), encoding: .utf8)
            .split(separator: "\n").filter { $0.contains(" 0x") && $0.contains("(") }.count
        #expect(list.count == expected && list.count == 70)
        let gain = try #require(Self.control(list, "gain"))
        #expect(gain.flags == [.inactive, .volatile] && gain.value == 16 && gain.rangeText == "0...255" && gain.group == "user")
        let menu = try #require(Self.control(list, "menu"))
        #expect(menu.menu.map(\.index) == [1, 3, 4] && menu.menuItem(4)?.name == "Menu Item 4" && menu.group == "vendor")
        let im = try #require(Self.control(list, "integer_menu"))
        #expect(im.kind == .integerMenu && im.menu.count == 7 && im.menuItem(8)?.value == 42 && im.describe(4) == "4 (5)")
        #expect(Self.control(list, "bitmask")?.value == 0x8000_2000)
        #expect(Self.control(list, "string")?.text == "  ")
        #expect(Self.control(list, "integer_64_bits")?.minimum == Int64.min)
        #expect(Self.control(list, "u32_dynamic_array")?.flags.contains(.dynamicArray) == true)
        #expect(Self.control(list, "u8_pixel_array")?.kind == .compound)
        #expect(Self.control(list, "button")?.flags == [.writeOnly, .executeOnWrite])
        #expect(Self.control(list, "power_present")?.group == "dv")
        #expect(Self.control(list, "dv_timings")?.menu.count == 111)
    }

    @Test func realUVCListings() throws {
        let old = try Self.listing("uvc-usb-camera-list-ctrls.txt")
        #expect(old.count == 14)
        let exposure = try #require(Self.control(old, "exposure_absolute"))
        #expect(exposure.group == "camera" && exposure.flags == [.inactive] && exposure.value == 156)
        #expect(Self.control(old, "exposure_auto")?.menu.isEmpty == true)  // --list-ctrls prints no entries
        let new = try Self.listing("uvc-webcam-ctrls-partial.txt")
        #expect(new.count == 12 && Self.control(new, "auto_exposure")?.value == 3)
        #expect(Self.control(new, "power_line_frequency")?.value == 1)
    }

    @Test func notAListing() {
        #expect(throws: ControlListing.ParseError(line: 0, reason: "not a v4l2-ctl control listing (no control lines)")) {
            try ControlListing.parse("hello\nworld\n")
        }
        #expect(throws: ControlListing.ParseError(line: 2, reason: "a menu entry without a menu control before it")) {
            try ControlListing.parse("User Controls\n\t\t\t\t0: Disabled\n")
        }
        #expect(throws: ControlListing.ParseError(line: 1, reason: "gain: max=x is not a number")) {
            try ControlListing.parse("  gain 0x00980913 (int)    : min=0 max=x step=1 default=0 value=0\n")
        }
    }

    // MARK: planning

    static func plan(_ r: ControlRequests, _ file: String = "vivid-webcam.txt", frame: Rational? = Rational(1, 60)) throws -> [String] {
        try ControlPlanner.plan(r, controls: try listing(file), frameDuration: frame).map { s in
            switch s {
            case .set(let c, let v, _): return "\(c.name)=\(v)"
            case .lock(let m, let a, let off, _): return "lock \(m.name) (\(a.name)=\(off))"
            case .crop(let f, _): return "crop \(f)"
            }
        }
    }

    static func refusal(_ r: ControlRequests, _ file: String = "vivid-webcam.txt", frame: Rational? = Rational(1, 60)) -> ControlError? {
        do {
            _ = try plan(r, file, frame: frame)
            return nil
        } catch let e as ControlError { return e } catch { return nil }
    }

    static func req(_ args: [String: String], controls: [String] = []) throws -> ControlRequests {
        try ControlRequests.parse(
            shutter: args["shutter"], shutterAngle: args["angle"], exposure: args["exposure"], gain: args["gain"],
            focus: args["focus"], whiteBalance: args["wb"], zoom: args["zoom"], controls: controls)
    }

    @Test func gainManualSwitchesAutomaticOffFirst() throws {
        #expect(try Self.plan(Self.req(["gain": "50"])) == ["gain_automatic=0", "gain=50"])
        #expect(try Self.plan(Self.req(["gain": "lock"])) == ["lock gain (gain_automatic=0)"])
        #expect(try Self.plan(Self.req(["gain": "auto"])) == ["gain_automatic=1"])
    }

    @Test func shutterOnARealUVCCamera() throws {
        // aperture priority (3) → manual (1) before the time; 1/2000 s = 5 × 100 µs
        #expect(try Self.plan(Self.req(["shutter": "1/2000"]), "uvc-usb-camera-list-ctrls.txt") == ["exposure_auto=1", "exposure_absolute=5"])
        // 180° at 240 fps = 1/480 s = 20.83 → 21 units
        #expect(
            try Self.plan(Self.req(["angle": "180"]), "uvc-webcam-ctrls-partial.txt", frame: Rational(1, 240)) == [
                "auto_exposure=1", "exposure_time_absolute=21",
            ])
        #expect(
            try Self.plan(Self.req(["exposure": "lock", "wb": "lock"]), "uvc-webcam-ctrls-partial.txt") == [
                "lock exposure_time_absolute (auto_exposure=1)", "lock white_balance_temperature (white_balance_automatic=0)",
            ])
        #expect(ControlPlanner.exposureUnits(Rational(1, 60), limit: Rational(1, 60)) == 166)  // 166.67 would be past the frame
    }

    @Test func shutterLongerThanAFrameIsRefusedWithTheLongest() throws {
        let e = Self.refusal(try Self.req(["shutter": "1/30"]), "uvc-usb-camera-list-ctrls.txt")
        #expect(e == .usage("--shutter 1/30: 1/30 s is longer than a frame (1/60 s at 60 fps); the longest is 83/5000 s (166 × 100 µs)"))
        #expect(
            Self.refusal(try Self.req(["shutter": "1/100000"]), "uvc-usb-camera-list-ctrls.txt")
                == .usage("--shutter 1/100000: exposure_absolute 0: outside 1...5000"))
    }

    @Test func namedControlsAndTheirRefusals() throws {
        #expect(
            try Self.plan(Self.req([:], controls: ["brightness=200", "menu=Menu Item 4", "boolean=off", "horizontal_flip=on"]))
                == ["brightness=200", "menu=4", "boolean=0", "horizontal_flip=1"])
        #expect(try Self.plan(Self.req([:], controls: ["gain_automatic=0", "gain=50"])) == ["gain_automatic=0", "gain=50"])
        #expect(
            Self.refusal(try Self.req([:], controls: ["gian=5"])) == .usage("--control gian=5: no control named 'gian' on this device; did you mean 'gain'?"))
        #expect(
            Self.refusal(try Self.req([:], controls: ["gain=50"]))
                == .unavailable(
                    "--control gain=50: gain is inactive while gain_automatic is automatic; put --control gain_automatic=0 before it, or use --gain N"))
        #expect(Self.refusal(try Self.req(["gain": "300"])) == .usage("--gain 300: gain 300: outside 0...255"))
        #expect(
            Self.refusal(try Self.req([:], controls: ["menu=2"]))
                == .usage("--control menu=2: menu 2: no entry 2; it offers 1 Menu Item 1, 3 Menu Item 3, 4 Menu Item 4"))
        #expect(
            Self.refusal(try Self.req([:], controls: ["read_only_integer_32_bits=1"]))
                == .unavailable("--control read_only_integer_32_bits=1: read_only_integer_32_bits is read-only on this device"))
        #expect(Self.refusal(try Self.req([:], controls: ["string=ab"]))?.kind == .badRequest)
        #expect(Self.refusal(try Self.req(["gain": "5"], controls: ["gain=6"])) == .usage("--control gain=6: gain is also set by --gain 5; give one"))
    }

    @Test func whatTheDeviceLacksIsUnavailable() throws {
        #expect(
            Self.refusal(try Self.req(["focus": "lock"]))
                == .unavailable("--focus lock: the device has no automatic focus to lock (no focus_automatic_continuous control)"))
        #expect(Self.refusal(try Self.req(["shutter": "1/1000"]))?.kind == .unavailable)
        #expect(Self.refusal(try Self.req(["exposure": "auto"]))?.kind == .unavailable)
        #expect(Self.refusal(try Self.req(["wb": "5000"])) == .unavailable("--white-balance 5000: the device has no white balance temperature control"))
        // no zoom control: a crop factor for the selection API
        #expect(try Self.plan(Self.req(["zoom": "2"])) == ["crop 2"])
        #expect(Self.refusal(try Self.req(["zoom": "1/2"]))?.kind == .badRequest)
    }

    @Test func malformedOptionsAreUsageErrors() {
        #expect(throws: ControlError.usage("\(Setting.shutter) and \(Setting.shutterAngle): give one")) { try Self.req(["shutter": "1/100", "angle": "180"]) }
        #expect(throws: ControlError.usage("\(Setting.gain) 'loud': expected a number, auto or lock")) { try Self.req(["gain": "loud"]) }
        #expect(throws: ControlError.usage("\(Setting.shutterAngle) '400': expected degrees in (0, 360], e.g. 180")) { try Self.req(["angle": "400"]) }
        #expect(throws: ControlError.usage("\(Setting.control) 'gain': expected NAME=VALUE (names as 'slomo controls' lists them)")) {
            try Self.req([:], controls: ["gain"])
        }
        #expect(throws: ControlError.usage("\(Setting.exposure) auto and \(Setting.shutter): the shutter sets a manual exposure; give one")) {
            try Self.req(["exposure": "auto", "shutter": "1/100"])
        }
    }

    /// Found by fuzz-listing (Regressions/fuzz-listing-crash-24554558): a 64-bit control spanning
    /// all of Int64 with a step overflowed `v − minimum`.
    @Test func stepChecksOverTheWholeInt64Range() {
        let c = CameraControl(id: 0x0098_f903, name: "integer_64_bits", kind: .integer64, minimum: .min, maximum: .max, step: 2)
        #expect(c.refusal(of: 0) == nil)
        #expect(c.refusal(of: 1) == "not on the step: \(Int64.min)...\(Int64.max) step 2; nearest 0 or 2")
        #expect(c.refusal(of: .max) == "not on the step: \(Int64.min)...\(Int64.max) step 2; nearest \(Int64.max - 1) or \(Int64.max)")
    }

    @Test func cropRectangleIsCentredAndEven() {
        let r = PixelRect(left: 0, top: 0, width: 640, height: 480).centred(zoom: Rational(3))
        #expect(r == PixelRect(left: 214, top: 160, width: 212, height: 160))
        #expect(PixelRect(left: 0, top: 0, width: 1280, height: 720).centred(zoom: Rational(2)) == PixelRect(left: 320, top: 180, width: 640, height: 360))
    }
}
