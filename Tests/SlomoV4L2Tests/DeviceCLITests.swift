import Foundation
import Testing

/// The built `slomo devices` / `slomo formats` on this machine (no VM): bad nodes and files give one
/// line and the documented exit status; every shared listing goes through `--listing --json`.
@Suite struct DeviceCLITests {
    struct Run { var status: Int32; var stdout: String; var stderr: String }

    static func slomo(_ args: [String]) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: VividVM.binary)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()     // small outputs: read in turn
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
        (["formats", "--listing", "/etc/hostname"], 65,
         "slomo: /etc/hostname: not a 'v4l2-ctl --list-formats-ext' listing (no pixel format with sizes found)\n"),
        (["formats", "--listing", "/etc/hostname", "--fps", "0"], 64, "slomo: --fps '0': must be > 0\n"),
    ])
    func badInputIsOneLineWithItsExitStatus(args: [String], status: Int32, stderr: String) throws {
        guard FileManager.default.isExecutableFile(atPath: VividVM.binary) else { Issue.record("no slomo at \(VividVM.binary)"); return }
        let r = try Self.slomo(args)
        #expect(r.status == status && r.stderr == stderr && r.stdout.isEmpty, "\(r)")
    }

    @Test func everyListingGoesThroughTheCLI() throws {
        guard FileManager.default.isExecutableFile(atPath: VividVM.binary) else { Issue.record("no slomo at \(VividVM.binary)"); return }
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
