import Foundation
import Testing
import SlomoCore
import SlomoTestSupport
import SlomoKit
@testable import SlomoV4L2

/// The use-case layer over the fake driver: the reports `slomo devices` / `slomo formats` print.
@Suite struct DeviceServiceTests {
    static func json<T: Encodable>(_ value: T) throws -> [String: Any] {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return try JSONSerialization.jsonObject(with: e.encode(value)) as! [String: Any]
    }

    @Test func devicesListsEveryNodeAndReportsTheOnesThatFail() {
        let fake = FakeV4L2()
        fake.kinds = ["/dev/video0": .characterDevice, "/dev/video1": .inaccessible(errno: EACCES)]
        let (devices, problems) = DeviceService.devices(syscalls: fake)
        #expect(devices.map(\.path) == ["/dev/video0"] && devices[0].isCapture)
        #expect(problems == ["/dev/video1: stat failed: Permission denied (EACCES)"])
    }

    @Test func maxFpsIsAlwaysInTheJSONWithTheExactFraction() throws {
        let fake = FakeV4L2()
        let report = try DeviceService.formats(device: "/dev/video0", request: ModeRequest(), apply: false, syscalls: fake)
        let m = try #require(try Self.json(report)["maxFps"] as? [String: Any])
        #expect(m["pixelFormat"] as? String == "MJPG" && m["width"] as? Int == 640 && m["height"] as? Int == 480)
        #expect(m["fps"] as? Double == 120.0)
        #expect((m["frameDuration"] as? [String: Int64]) == ["numerator": 1, "denominator": 120])
        #expect(!fake.calls.contains(.sFmt))  // no --apply: nothing changed on the device

        // nothing selectable: "maxFps": null, present
        let none = FakeV4L2()
        none.fail = (.enumFrameintervals, EINVAL, after: 0)
        let empty = try DeviceService.formats(device: "/dev/video0", request: ModeRequest(), apply: false, syscalls: none)
        let obj = try Self.json(empty)
        #expect(obj.keys.contains("maxFps") && obj["maxFps"] is NSNull)
    }

    @Test func applyReportsTheReadBack() throws {
        let fake = FakeV4L2()
        fake.roundInterval = { _ in (1, 100) }
        var r = ModeRequest()
        r.format = "MJPG"
        let report = try DeviceService.formats(device: "/dev/video0", request: r, apply: true, syscalls: fake)
        let a = try #require(report.applied)
        #expect(a.requested.frameDuration == Rational(1, 120) && a.frameDuration == Rational(1, 100) && !a.exact)
        let applied = try #require(try Self.json(report)["applied"] as? [String: Any])
        #expect(applied["exact"] as? Bool == false && (applied["summary"] as? String)?.contains("NOT as requested") == true)

        // constraints that match nothing: a clear failure, exit 69, and the device untouched
        r.size = (4000, 3000)
        let other = FakeV4L2()
        do {
            _ = try DeviceService.formats(device: "/dev/video0", request: r, apply: true, syscalls: other)
            Issue.record("no error")
        } catch let e as DeviceError {
            #expect(
                e == .noSelectableMode(device: "/dev/video0") && e.kind == .unavailable && e.description.hasPrefix("/dev/video0: no selectable mode"), "\(e)")
        }
        #expect(!other.calls.contains(.sFmt))
    }

    @Test func rawModesOverTheUSB2BudgetGetAnAlternative() throws {
        let fake = FakeV4L2()
        fake.formats = [("YUYV", false, .discrete([(1280, 720, [(1, 60)]), (640, 480, [(1, 30)])]))]
        let report = try DeviceService.formats(device: "/dev/video0", request: ModeRequest(), apply: false, syscalls: fake)
        #expect(report.maxFps?.exceedsUSB2Budget == true && report.maxFps?.width == 1280)  // 110 MB/s: flagged
        #expect(report.maxFpsWithinUSB2Budget?.width == 640 && report.maxFpsWithinUSB2Budget?.exceedsUSB2Budget == false)
        #expect(try Self.json(report).keys.contains("maxFpsWithinUSB2Budget"))
    }

    @Test func optionParsing() throws {
        let r = try DeviceService.request(format: "mjpg", size: "1280x720", minSize: nil, fps: "30000/1001", prefer: "raw, mjpeg")
        #expect(r.format == "MJPG" && r.size?.0 == 1280 && r.fps == Rational(30000, 1001) && r.prefer == ["raw", "mjpeg"])
        for bad in [("size", "1280"), ("fps", "0"), ("fps", "fast"), ("prefer", "png"), ("format", "TOOLONG")] {
            do {
                _ = try DeviceService.request(
                    format: bad.0 == "format" ? bad.1 : nil, size: bad.0 == "size" ? bad.1 : nil,
                    minSize: nil, fps: bad.0 == "fps" ? bad.1 : nil, prefer: bad.0 == "prefer" ? bad.1 : nil)
                Issue.record("accepted \(bad)")
            } catch {
                #expect(error.kind == .badRequest && error.setting == Setting(bad.0) && error.value == bad.1, "\(error)")
            }
        }
    }
}
