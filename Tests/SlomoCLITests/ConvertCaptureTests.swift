import Foundation
import Testing

/// `slomo convert` of a real triggered capture (the synthetic gray camera, FFV1 in Matroska): the
/// recording's clock, its trigger frame and the driver's sequence numbers reach the lab files; and
/// what convert refuses, or leaves behind when the disk fills.
@Suite struct ConvertCaptureTests {
    /// A shot of 21 frames at 250 fps, 10 before the trigger frame, with its report beside it.
    static let shot: TempDir = {
        let d = TempDir()
        let r = try! triggeredShot(size: "96x64", format: "gray", output: d.file("shot.mkv"), extra: "--codec ffv1")
        precondition(r.status == 0, r.stderr)
        return d
    }()

    static func tag(_ path: String, _ name: String) throws -> String {
        let r = try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "format_tags=\(name)", "-of", "default=nw=1:nk=1", path])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aTriggeredShotKeepsItsClockTriggerFrameAndSequence() throws {
        let d = TempDir(), src = Self.shot.file("shot.mkv")
        let r = try CLI.run(["convert", src, "-o", d.file("shot.h5"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        let rows = try #require(json["frames"] as? [[String: Any]])
        // the trigger frame as the capture tagged it (10 pre-trigger frames, fewer when the trigger came before the ring held them)
        let trigger = try #require(Int(try Self.tag(src, "SLOMO_TRIGGER_FRAME")))
        #expect(json["triggerFrame"] as? Int == trigger && json["clock"] as? String == "CLOCK_MONOTONIC" && json["exact"] as? Bool == true)
        #expect(rows.count == trigger + 11 && rows[trigger]["fromTrigger"] as? Int == 0 && rows[0]["fromTrigger"] as? Int == -trigger)
        // the trigger frame's time is the one the capture recorded for it, exactly
        let triggerTime = try Self.tag(src, "SLOMO_TRIGGER_FRAME_TIME").split(separator: "/").map { Int64($0)! }
        let t = try #require(rows[trigger]["time"] as? [String: Int])
        #expect(Int64(t["numerator"]!) * triggerTime[1] == triggerTime[0] * Int64(t["denominator"]!), "\(t) vs \(triggerTime)")
        // sequence numbers from the shot's report, the trigger frame's as the report says
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: src + ".capture.json"))) as? [String: Any])
        let shot = try #require((report["shots"] as? [[String: Any]])?.first)
        #expect(rows[trigger]["sequence"] as? Int == shot["triggerSequence"] as? Int)
        // h5py: the samples as FFmpeg decodes the source, each time = capture start + the file's pts
        let start = try Self.tag(src, "SLOMO_CAPTURE_START")
        let check = """
            import sys, subprocess, numpy as np, h5py
            from fractions import Fraction
            src, h5, start = sys.argv[1], sys.argv[2], Fraction(sys.argv[3])
            raw = subprocess.run(['ffmpeg', '-v', 'error', '-i', src, '-f', 'rawvideo', '-pix_fmt', 'gray', '-'], capture_output=True, check=True).stdout
            frames = np.frombuffer(raw, np.uint8).reshape(-1, 64, 96)
            pts = subprocess.run(['ffprobe', '-v', 'error', '-select_streams', 'v', '-show_entries', 'packet=pts_time', '-of', 'csv=p=0', src], capture_output=True, text=True, check=True).stdout.split()
            f = h5py.File(h5, 'r'); data = f['/entry/data/data']; a = f['/entry/instrument/NDAttributes']
            assert data.dtype == np.uint8 and data.shape == frames.shape, (data.shape, frames.shape)
            assert (data[:] == frames).all(), 'samples differ'
            for n, p in enumerate(pts):
                expected = start + Fraction(p)
                assert abs(Fraction(int(a['TimeNs'][n]), 10**9) - expected) <= Fraction(1, 10**6), (n, a['TimeNs'][n], float(expected))
            trigger = int(sys.argv[4])
            assert list(a['FromTrigger'][:]) == list(range(-trigger, 11)) and f['/entry'].attrs['trigger_frame'] == trigger
            print('ok')
            """
        #expect(try ConvertTests.python(check, [src, d.file("shot.h5"), start, "\(trigger)"]) == "ok\n")
        #expect(JSONDocsTests.problems("`slomo convert … --json`", JSONDocsTests.document(r)).isEmpty)
    }

    /// Colour into the gray-only .h5, a PNG without a frame number, an existing frame: one line, the
    /// documented status, nothing written. From a lossy colour source a TIFF sequence says what it holds.
    @Test func refusalsAndLossyInput() throws {
        let d = TempDir()
        let clip = CLI.generated(d, "c.mp4", ["--fps", "30", "--duration", "0.2", "--size", "160x90"])
        let before = d.entries
        expectOneLine(try CLI.run(["convert", clip, "-o", d.file("c.h5")]), status: 64, contains: ["c.h5", "colour (yuv420p)", "TIFF sequence"])
        expectOneLine(try CLI.run(["convert", clip, "-o", d.file("c.png")]), status: 64, contains: ["c.png", "one frame number", "name_%06d.png"])
        #expect(d.entries == before, "\(d.entries)")
        let r = try CLI.run(["convert", clip, "-o", d.file("c") + "/", "--json"])
        #expect(r.status == 0 && r.stderr.contains("slomo: note: \(clip): the frames are yuv420p, converted to rgb24"), "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        #expect(json["exact"] as? Bool == false && json["sampleFormat"] as? String == "rgb8" && json["frameCount"] as? Int == 6)
        #expect(JSONDocsTests.problems("`slomo convert … --json`", JSONDocsTests.document(r)).isEmpty)
        #expect(try CLI.tool(["tiffinfo", d.file("c/frame_000005.tiff")]).stdout.contains("Photometric Interpretation: RGB color"))
        expectOneLine(try CLI.run(["convert", clip, "-o", d.file("c") + "/"]), status: 73, contains: ["frame_000000.tiff", "exists"])
    }

    /// A 1 MB disk: a sequence stops with one line saying how many frames it wrote, and those are
    /// whole TIFFs tifffile reads; an HDF5 file leaves nothing. Exit 74. (Root only: it mounts a tmpfs.)
    @Test func aFullDiskKeepsTheFramesWritten() throws {
        let src = TempDir()
        let clip = src.file("big.mkv")
        let made = try CLI.tool([
            "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=250:d=0.06", "-pix_fmt", "gray16le", "-c:v", "ffv1", clip,
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let (disk, skipped) = FullDiskTests.smallDisk(1)
        if let skipped {
            print("ConvertCaptureTests: SKIPPED: \(skipped)")
            return
        }
        defer { FullDiskTests.unmount(disk) }
        let r = try CLI.run(["convert", clip, "-o", disk.file("f") + "/"])
        expectOneLine(r, status: 74, contains: ["stopped after ", " of 15 frames", "complete and readable", "(ENOSPC)"])
        let written = disk.entries.isEmpty ? [] : (try FileManager.default.contentsOfDirectory(atPath: disk.file("f"))).filter { $0.hasSuffix(".tiff") }
        #expect(r.stderr.contains("stopped after \(written.count) of 15 frames") && written.count > 0, "\(written) \(r.stderr)")
        #expect(!written.contains { $0.hasPrefix(".") }, "a partial frame was left: \(written)")
        let read = "import sys, tifffile; print(sum(tifffile.imread(p).shape == (240, 320) for p in sys.argv[1:]))"
        #expect(try ConvertTests.python(read, written.map { disk.file("f/" + $0) }) == "\(written.count)\n")
        try FileManager.default.removeItem(atPath: disk.file("f"))
        expectOneLine(try CLI.run(["convert", clip, "-o", disk.file("big.h5")]), status: 74, contains: ["big.h5", "(ENOSPC)"])
        #expect(disk.entries.isEmpty, "\(disk.entries)")
    }
}
