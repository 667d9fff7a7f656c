import Foundation
import Testing

/// A recording on a file system that refuses `fdatasync`: a FUSE file system
/// (`Tests/TestSupport/nofsync-fs.py`, Debian's python3-fusepy) that keeps the files but answers every
/// fsync with the errno it is given. Root only (it mounts); elsewhere the test says it is skipped.
@Suite(.serialized) struct FsyncRefusalTests {
    struct Mounted {
        let root: TempDir
        let process: Process
        var mountpoint: String { root.file("mnt") }
        var refusals: [Substring] {
            ((try? String(contentsOfFile: root.file("fsync-refusals"), encoding: .utf8)) ?? "").split(separator: "\n")
        }
        func unmount() {
            _ = try? CLI.tool(["fusermount", "-u", mountpoint])
            process.waitUntilExit()
        }
    }

    /// Mounts the refusing file system (`errno` "none": it syncs; `rate`: a disk that takes that
    /// many bytes a second); nil with the reason when this machine cannot.
    static func mount(refusing errno: String, rate: Int = 0) throws -> (Mounted?, String?) {
        guard getuid() == 0 else { return (nil, "not root: cannot mount a FUSE file system") }
        guard FileManager.default.fileExists(atPath: "/dev/fuse") else { return (nil, "no /dev/fuse") }
        let check = try CLI.tool(["/usr/bin/python3", "-c", "import fusepy"])
        guard check.status == 0 else { return (nil, "python3-fusepy missing (scripts/dev.sh deps installs it)") }
        let root = TempDir()
        try FileManager.default.createDirectory(atPath: root.file("back"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root.file("mnt"), withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TestSupport/nofsync-fs.py").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [script, root.file("back"), root.file("mnt"), errno, String(rate)]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        for _ in 0..<100 {
            if let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8), mounts.contains(" \(root.file("mnt")) fuse") {
                return (Mounted(root: root, process: p), nil)
            }
            usleep(50_000)
        }
        p.terminate()
        return (nil, "the FUSE file system did not mount in 5 s")
    }

    /// EINVAL (a file system without sync): the capture goes on to the end, every frame kept, one
    /// warning naming the output, and the report says syncing was refused.
    @Test func refusedSyncIsAWarningAndTheRecordingCompletes() throws {
        let (m, skipped) = try Self.mount(refusing: "EINVAL")
        guard let m else {
            print("FsyncRefusalTests: SKIPPED: \(skipped ?? "")")
            return
        }
        defer { m.unmount() }
        let out = m.mountpoint + "/cap.mp4"
        // a driver queue of 64 frames (the synthetic camera's `buffers`): a loaded CI machine once
        // held the reader long enough for the default 8 to drop 13 frames (the camera's drops, said apart)
        let r = try CLI.run(["capture", "--source", "synthetic:fps=240,size=320x180,buffers=64", "--duration", "2", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("slomo: warning:") && !$0.contains("the driver dropped") }
        #expect(
            warnings == [
                "slomo: warning: synthetic: \(out): the file system refuses fdatasync (Invalid argument): the recording was not forced to disk (a power cut may lose more than the last second)"
            ],
            "\(r.stderr)")
        #expect(m.refusals.contains { $0.hasPrefix("fdatasync /cap.mp4") }, "the file system was never asked: \(m.refusals)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + ".capture.json"))) as? [String: Any])
        let syncs = report["fileSyncs"] as? [String: Any]
        #expect((syncs?["refused"] as? String)?.contains("refuses fdatasync") == true, "\(String(describing: syncs))")
        // every frame the camera gave is in the file
        let written = report["framesWritten"] as? Int ?? -1, dropped = report["droppedByDriver"] as? Int ?? -1
        #expect(try CLI.videoFrameCount(out) == written && written + dropped == 480, "\(written) written, \(dropped) dropped by the camera")
    }

    /// EIO (write-back failed: what was written may be lost): the recording stops with one line
    /// naming the output once, exit 74, and what reached the file plays.
    @Test func failedSyncStopsTheRecordingWithOneLine() throws {
        let (m, skipped) = try Self.mount(refusing: "EIO")
        guard let m else {
            print("FsyncRefusalTests: SKIPPED: \(skipped ?? "")")
            return
        }
        defer { m.unmount() }
        let tmp = TempDir()
        let out = m.mountpoint + "/cap.mp4"
        let r = try CLI.run(
            ["capture", "--source", "synthetic:fps=240,size=320x180", "--duration", "3", "-o", out],
            environment: ["TMPDIR": tmp.path])
        #expect(r.status == 74, "\(r.stderr)")
        let lines = CLI.errorLines(r)
        #expect(lines.count == 1, "\(r.stderr)")
        let line = lines.first ?? ""
        #expect(
            line.hasPrefix("slomo: \(out): recording stopped after ")
                && line.contains(" frames: fdatasync failed: Input/output error (EIO); the file plays up to its last complete fragment")
                && line.components(separatedBy: out).count == 2, "\(line)")
        #expect(try CLI.videoFrameCount(out) ?? 0 >= 200)
    }
}
