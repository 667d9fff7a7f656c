import Foundation
import Testing

/// A 6 MB tmpfs that fills up (root only: the test mounts it; elsewhere it says it is skipped):
/// capture stops with one line naming the output and "no space", keeps a file that plays, and puts
/// its report where it can; retime and stretch leave nothing under the final name; all exit 74.
@Suite(.serialized) struct FullDiskTests {
    /// Mounts a small tmpfs at a new directory; nil (with the reason) when this machine cannot.
    static func smallDisk(_ megabytes: Int) -> (dir: TempDir, skipped: String?) {
        let d = TempDir()
        guard getuid() == 0 else { return (d, "not root: cannot mount a small tmpfs") }
        let r = try? CLI.tool(["mount", "-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", d.path])
        guard r?.status == 0 else { return (d, "mount -t tmpfs failed: \(r?.stderr ?? "no mount")") }
        return (d, nil)
    }

    static func unmount(_ d: TempDir) { _ = try? CLI.tool(["umount", d.path]) }

    @Test func captureIntoAFullDiskStopsWithOneLineAndAPlayableFile() throws {
        let (disk, skipped) = Self.smallDisk(6)
        if let skipped {
            print("FullDiskTests: SKIPPED: \(skipped)")
            return
        }
        defer { Self.unmount(disk) }
        let tmp = TempDir()
        let out = disk.file("cap.mkv")
        let r = try CLI.run(
            ["capture", "--source", "synthetic:fps=240,size=640x360,format=yuyv", "--codec", "raw", "--duration", "5", "-o", out],
            environment: ["TMPDIR": tmp.path])
        #expect(r.status == 74, "\(r.stderr)")
        let lines = CLI.errorLines(r)
        #expect(lines.count == 1, "\(r.stderr)")
        let line = lines.first ?? ""
        #expect(
            line.hasPrefix("slomo: \(out): recording stopped after ") && line.contains("no space left on the device (ENOSPC)")
                && line.contains("the file plays up to its last complete fragment")
                && line.hasSuffix("report not written beside it (No space left on device (ENOSPC)): it is in \(tmp.file("cap.mkv.capture.json"))"), "\(line)")
        // the report went to TMPDIR, and says why the recording stopped
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tmp.file("cap.mkv.capture.json")))) as? [String: Any])
        #expect(report["stopReason"] as? String == "writeError")
        // what is on the disk decodes: every frame up to the last complete cluster
        #expect(try CLI.videoFrameCount(out) ?? 0 >= 5)
    }

    /// A read-only file system (the tmpfs remounted read-only): capture refuses before any camera
    /// or ring is set up, one line, exit 73.
    @Test func captureOntoAReadOnlyFileSystemIsRefusedFirst() throws {
        let (disk, skipped) = Self.smallDisk(1)
        if let skipped {
            print("FullDiskTests: SKIPPED: \(skipped)")
            return
        }
        defer { Self.unmount(disk) }
        #expect(try CLI.tool(["mount", "-o", "remount,ro", disk.path]).status == 0)
        let out = disk.file("cap.mp4")
        let r = try CLI.run(["capture", "--source", "synthetic:fps=60", "--duration", "1", "-o", out])
        #expect(r.status == 73 && r.stderr == "slomo: \(out): cannot write output: directory \(disk.path) is not writable\n", "\(r.stderr)")
    }

    @Test func retimeStretchExportAndBatchIntoAFullDiskLeaveNothing() throws {
        let src = TempDir()
        let clip = src.file("g.mp4")
        #expect(try CLI.run(["generate", "--fps", "60", "--duration", "4", "--size", "1280x720", "-o", clip]).status == 0)
        let (disk, skipped) = Self.smallDisk(1)
        if let skipped {
            print("FullDiskTests: SKIPPED: \(skipped)")
            return
        }
        defer { Self.unmount(disk) }
        let retime = try CLI.run(["retime", clip, "-o", disk.file("r.mp4"), "--rate", "1/2"])
        #expect(
            retime.status == 74 && retime.stderr.hasPrefix("slomo: \(disk.file("r.mp4")): ") && retime.stderr.contains("No space left on device"),
            "\(retime.stderr)")
        let stretch = try CLI.run(["stretch", clip, "-o", disk.file("s.wav"), "--rate", "1/4"])
        #expect(
            stretch.status == 74
                && stretch.stderr == "slomo: \(disk.file("s.wav")): write failed: No space left on device (ENOSPC); nothing was left under that name\n",
            "\(stretch.stderr)")
        #expect(disk.entries.isEmpty, "\(disk.entries)")  // no final name, no partial file
        let export = try CLI.run(["export", clip, "-o", disk.file("e.mp4"), "--rate", "1/2", "--preset", "ultrafast", "--crf", "0"])
        #expect(
            export.status == 74 && export.stderr.hasPrefix("slomo: \(disk.file("e.mp4")): ") && export.stderr.contains("No space left on device")
                && export.stderr.split(separator: "\n").count == 1, "\(export.stderr)")
        #expect(disk.entries.isEmpty, "\(disk.entries)")
        // batch: the job fails with the same line and status, the batch says so (exit 1), nothing is left
        let batch = try CLI.run(["batch", clip, "--out-dir", disk.path, "--rate", "1/2", "--preset", "ultrafast", "--crf", "0"])
        #expect(batch.status == 1, "\(batch.stderr)")
        let line = batch.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["job"] != nil }
        #expect(line?["status"] as? String == "failed" && line?["exitStatus"] as? Int == 74, "\(batch.stdout)")
        #expect((line?["error"] as? String)?.contains("No space left on device") == true, "\(batch.stdout)")
        #expect(disk.entries.isEmpty, "\(disk.entries)")
    }
}
