import Foundation
import Testing

/// The built `slomo devices` / `slomo formats` on this machine (no VM): bad nodes and files give one
/// line and the documented exit status; every shared listing goes through `--listing --json`.
@Suite struct DeviceCLITests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func slomo(_ args: [String]) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: VividVM.binary)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()  // small outputs: read in turn
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static let listings = VividVM.root.appendingPathComponent("Tests/SlomoCoreTests/Fixtures/v4l2-listings")

    @Test(arguments: [
        (["formats", "/dev/video-none"], Int32(66), "slomo: /dev/video-none: open failed: No such file or directory (ENOENT)\n"),
        (["formats", "/etc/hostname"], 66, "slomo: /etc/hostname: not a V4L2 device (not a character device)\n"),
        (["formats", "/dev/null"], 66, "slomo: /dev/null: VIDIOC_QUERYCAP failed: Inappropriate ioctl for device (ENOTTY): not a V4L2 device\n"),
        (["formats", "--listing", "/nonexistent.txt"], 66, "slomo: /nonexistent.txt: cannot read listing: no such file\n"),
        (
            ["formats", "--listing", "/etc/hostname"], 65,
            "slomo: /etc/hostname: not a 'v4l2-ctl --list-formats-ext' listing (no pixel format with sizes found)\n"
        ),
        (["formats", "--listing", "/etc/hostname", "--fps", "0"], 64, "slomo: --fps '0': must be > 0\n"),
    ])
    func badInputIsOneLineWithItsExitStatus(args: [String], status: Int32, stderr: String) throws {
        guard FileManager.default.isExecutableFile(atPath: VividVM.binary) else {
            Issue.record("no slomo at \(VividVM.binary)")
            return
        }
        let r = try Self.slomo(args)
        #expect(r.status == status && r.stderr == stderr && r.stdout.isEmpty, "\(r)")
    }

    @Test func everyListingGoesThroughTheCLI() throws {
        guard FileManager.default.isExecutableFile(atPath: VividVM.binary) else {
            Issue.record("no slomo at \(VividVM.binary)")
            return
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.listings.path).filter { $0.hasSuffix(".txt") }.sorted()
        #expect(files.count == 18)
        for f in files {
            let r = try Self.slomo(["formats", "--listing", Self.listings.appendingPathComponent(f).path, "--json"])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(f): \(r.stderr)")
            let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            #expect(obj?.keys.contains("maxFps") == true, "\(f)")
            // the one listing without intervals selects nothing: null, still present
            #expect((obj?["maxFps"] is NSNull) == f.hasPrefix("rpi-camera-v1"), "\(f)")
        }
        let brio = try Self.slomo(["formats", "--listing", Self.listings.appendingPathComponent("logitech-brio.txt").path, "--min-size", "1280x720"])
        #expect(brio.stdout.split(separator: "\n").last == "max fps: MJPG 1280x720 @ 1/90 s = 90 fps")
    }
}

/// `slomo controls` on saved listings, and the control options' refusals that need no device.
@Suite struct ControlsCLITests {
    static let fixtures = VividVM.root.appendingPathComponent("Tests/SlomoCoreTests/Fixtures/v4l2-controls")

    @Test func listingsAsJSONWithTheDocumentedFields() throws {
        guard FileManager.default.isExecutableFile(atPath: VividVM.binary) else {
            Issue.record("no slomo at \(VividVM.binary)")
            return
        }
        let r = try DeviceCLITests.slomo(["controls", "--listing", Self.fixtures.appendingPathComponent("uvc-webcam-ctrls-partial.txt").path, "--json"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(obj["version"] as? Int == 2 && obj["device"] == nil)
        let controls = try #require(obj["controls"] as? [[String: Any]])
        #expect(controls.count == 12)
        // every field of Docs/Controls.md, present (null where a kind has none)
        let fields: Set = ["name", "label", "id", "group", "type", "minimum", "maximum", "step", "default", "value", "valueText", "flags"]
        for c in controls { #expect(fields.isSubset(of: Set(c.keys)), "\(c)") }
        let time = try #require(controls.first { $0["name"] as? String == "exposure_time_absolute" })
        #expect(time["id"] as? String == "0x009a0902" && time["group"] as? String == "camera" && time["flags"] as? [String] == ["inactive"])
        #expect(controls.first { $0["name"] as? String == "auto_exposure" }?["valueText"] as? String == "3")
        // the text groups camera controls first
        let text = try DeviceCLITests.slomo(["controls", "--listing", Self.fixtures.appendingPathComponent("uvc-webcam-ctrls-partial.txt").path])
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.count > 2 && lines[1] == "camera controls:", "\(text.stdout)")
        #expect(lines.contains { $0.hasPrefix("  exposure_time_absolute") && $0.hasSuffix("integer, 3...2047, default 166: 166 [inactive]") }, "\(text.stdout)")
    }

    @Test(arguments: [
        (["controls", "--listing", "/nonexistent.txt"], Int32(66), "slomo: /nonexistent.txt: cannot read listing: no such file\n"),
        (["controls", "--listing", "/etc/hostname"], 65, "slomo: /etc/hostname: not a v4l2-ctl control listing (no control lines)\n"),
        (["controls", "/dev/null"], 66, "slomo: /dev/null: VIDIOC_QUERYCAP failed: Inappropriate ioctl for device (ENOTTY): not a V4L2 device\n"),
        (
            ["capture", "--source", "synthetic:fps=30", "--gain", "5", "-o", "/tmp/slomo-never.mp4"], 64,
            "slomo: camera controls (--shutter, --gain, --control…) need a V4L2 device, not --source\n"
        ),
        (
            ["capture", "/dev/video-none", "--shutter", "1/0", "-o", "/tmp/slomo-never.mp4"], 64,
            "slomo: --shutter '1/0': expected seconds such as 1/2000 or 0.0005 (more than 0, at most 10)\n"
        ),
        (["formats", "/dev/video-none", "--gain", "lock"], 64, "slomo: camera controls (--shutter, --gain, --control…) are set with --apply\n"),
    ])
    func badInputIsOneLineWithItsExitStatus(args: [String], status: Int32, stderr: String) throws {
        guard FileManager.default.isExecutableFile(atPath: VividVM.binary) else {
            Issue.record("no slomo at \(VividVM.binary)")
            return
        }
        let r = try DeviceCLITests.slomo(args)
        #expect(r.status == status && r.stderr.hasPrefix(stderr) && r.stderr.filter { $0 == "\n" }.count == 1 && r.stdout.isEmpty, "\(r)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/slomo-never.mp4"))
    }
}
