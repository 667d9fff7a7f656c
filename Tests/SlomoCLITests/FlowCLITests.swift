import Foundation
import Testing

/// `--frame-blend flow` from the command line: the frames it makes, what `plan` says first, the
/// report, and a machine without the optical-flow library.
@Suite struct FlowCLITests {
    /// A 60 fps calibration clip slowed 4x at 60 fps: every 4th output frame is a source frame's own
    /// time and is that frame (its index read back); the three between each pair are made by the
    /// flow. `plan --frame-blend flow` counts the same frames and pairs the export reports.
    @Test func flowMakesEveryInBetweenFrameAndPlanCountsThem() throws {
        let d = TempDir()
        let clip = CLI.generated(d, "c.mp4", ["--fps", "60", "--duration", "0.5", "--size", "320x240"])
        let plan = try CLI.run(["plan", clip, "--rate", "1/4", "--fps", "60", "--frame-blend", "flow", "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let use = try #require((try JSONSerialization.jsonObject(with: plan.output) as? [String: Any])?["frameUse"] as? [String: Any])
        let out = d.file("slow.mkv")
        let e = try CLI.run(["export", clip, "-o", out, "--rate", "1/4", "--fps", "60", "--frame-blend", "flow", "--no-audio", "--json"])
        #expect(e.status == 0, "\(e.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: e.output) as? [String: Any])
        let interp = try #require(report["interpolation"] as? [String: Any], "\(report.keys.sorted())")
        #expect(interp["method"] as? String == "flow" && interp["quality"] as? String == "medium")
        #expect(interp["framesMade"] as? Int == use["between"] as? Int && interp["pairs"] as? Int == use["pairs"] as? Int, "\(interp) against \(use)")
        #expect(use["between"] as? Int == 87 && use["pairs"] as? Int == 29, "\(use)")  // 30 frames: 29 pairs, 3 between each
        let indices = try CLI.calibrationIndices(out)
        #expect(indices.count == report["outputFrames"] as? Int)
        for (n, index) in indices.enumerated() where n % 4 == 0 && n / 4 < 30 {
            #expect(index == n / 4, "output frame \(n): \(String(describing: index))")
        }
        #expect(!e.stderr.contains("repeat"), "\(e.stderr)")
        // without it, the same export says the frames repeat
        let held = try CLI.run(["export", clip, "-o", d.file("held.mkv"), "--rate", "1/4", "--fps", "60", "--no-audio"])
        #expect(held.status == 0 && held.stderr.contains("repeat a source frame") && held.stderr.contains("--frame-blend flow"), "\(held.stderr)")
    }

    /// The same export on 1 thread and on 3 writes the same frames: which thread works a pair must
    /// not matter (DIS takes an output flow already of the right size as its first guess, so each
    /// thread's last pair would shape its next one). Raw video out: no encoder's own threading.
    @Test func theFramesDoNotDependOnTheThreads() throws {
        let d = TempDir()
        let clip = CLI.generated(d, "c.mp4", ["--fps", "60", "--duration", "0.5", "--size", "320x240"])
        let sums = try [1, 3].map { t -> String in
            let out = d.file("t\(t).nut")
            let e = try CLI.run([
                "export", clip, "-o", out, "--codec", "rawvideo", "--rate", "1/4", "--fps", "60", "--frame-blend", "flow",
                "--no-audio", "--threads", String(t),
            ])
            #expect(e.status == 0, "\(e.stderr)")
            let md5 = try CLI.tool(["ffmpeg", "-v", "error", "-i", out, "-f", "framemd5", "-"])
            return md5.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        }
        #expect(!sums[0].isEmpty && sums[0] == sums[1])
    }

    /// Without the optical-flow library (OpenCV): `flow` is refused before anything is written, one
    /// line naming the library, exit 69; every other export still works.
    @Test func withoutTheLibraryFlowIsRefusedAndTheRestWorks() throws {
        let d = TempDir()
        let clip = CLI.generated(d, "c.mp4", ["--fps", "30", "--duration", "0.3"])
        let gone = ["SLOMO_FLOW_LIBRARY": d.file("none/libslomo-flow.so")]
        let out = d.file("slow.mp4")
        let r = try CLI.run(["export", clip, "-o", out, "--rate", "1/4", "--frame-blend", "flow", "--no-audio"], environment: gone)
        expectOneLine(r, status: 69, contains: ["libslomo-flow.so", "--frame-blend flow", "OpenCV"])
        #expect(!FileManager.default.fileExists(atPath: out), "\(d.entries)")
        let blend = try CLI.run(["export", clip, "-o", out, "--rate", "1/4", "--frame-blend", "blend", "--no-audio"], environment: gone)
        #expect(blend.status == 0, "\(blend.stderr)")
    }
}
