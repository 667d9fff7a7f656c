import Foundation
import Testing

/// The samples users copy: run for real (GNU parallel, the JSON-only library script, both manifests,
/// the Swift library tour); the Slurm and Kubernetes files are syntax-checked here and run for real by `scripts/dev.sh slurm`/`k8s` (part of the test command).
@Suite struct SamplesTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/batch").path

    @Test func gnuParallelShardsRunEveryJobOnce() throws {
        let d = TempDir()
        try FileManager.default.createDirectory(atPath: d.file("out"), withIntermediateDirectories: true)
        var jobs: [String] = []
        for i in 0..<4 {
            _ = try CLI.run(["generate", "--fps", "120", "--duration", "1/4", "--size", "160x90", "--no-audio", "-o", d.file("c\(i).mp4")])
            jobs.append("{\"input\": \"\(d.file("c\(i).mp4"))\", \"output\": \"\(d.file("out/c\(i).mp4"))\", \"noAudio\": true}")
        }
        _ = FileManager.default.createFile(atPath: d.file("jobs.json"), contents: Data("[\(jobs.joined(separator: ","))]".utf8))
        let r = try CLI.tool(["bash", "\(Self.samples)/gnu-parallel.sh", d.file("jobs.json"), "2", CLI.binary])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").filter { $0.contains("\"status\":\"ok\"") }
        #expect(lines.count == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.file("out")).sorted() == ["c0.mp4", "c1.mp4", "c2.mp4", "c3.mp4"])
    }

    /// The script that uses only slomo's JSON: a broken clip is listed as FAILED, the summary is
    /// read from the JSON, and every output passes the script's own probe check.
    @Test func retimeLibraryScriptRunsOnJSONAlone() throws {
        let d = TempDir()
        try FileManager.default.createDirectory(atPath: d.file("clips"), withIntermediateDirectories: true)
        for (i, fps) in [60, 240].enumerated() {
            let g = try CLI.run(["generate", "--fps", "\(fps)", "--duration", "1/2", "--size", "160x90", "-o", d.file("clips/c\(i).mp4")])
            #expect(g.status == 0, "\(g.stderr)")
        }
        _ = FileManager.default.createFile(atPath: d.file("clips/broken.mp4"), contents: Data(String(repeating: "not video ", count: 50).utf8))
        let r = try CLI.tool(["bash", "\(Self.samples)/retime-library.sh", d.file("clips"), d.file("out"), CLI.binary])
        #expect(r.status == 1, "a failed job makes the batch exit 1: \(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("FAILED \(d.file("clips/broken.mp4")): ") }, "\(r.stdout)")
        #expect(lines.filter { $0.hasPrefix("slowest: ") }.count == 2, "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("done: 2 ok, 0 skipped, 1 failed in ") }, "\(r.stdout)")
        #expect(!lines.contains { $0.hasPrefix("CHECK") }, "\(r.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.file("out")).sorted() == ["c0.mp4", "c1.mp4"])
    }

    /// The sample manifests run for real on clips named as they expect: segments, ramps, frame-number
    /// segments, retime and export jobs, per-job pitch and codec settings.
    @Test func sampleManifestsRun() throws {
        let d = TempDir()
        try FileManager.default.createDirectory(atPath: d.file("clips"), withIntermediateDirectories: true)
        for (name, fps) in [("serve-240fps", 240), ("jump-240fps", 240), ("swing-120fps", 120)] {
            let g = try CLI.run(["generate", "--fps", "\(fps)", "--duration", "2", "--size", "160x90", "-o", d.file("clips/\(name).mp4")])
            #expect(g.status == 0, "\(g.stderr)")
        }
        for m in ["manifest.json", "manifest.yaml", "manifest.csv"] {
            try? FileManager.default.removeItem(atPath: d.file("out"))
            try FileManager.default.createDirectory(atPath: d.file("out"), withIntermediateDirectories: true)
            let r = try CLI.run(["batch", "\(Self.samples)/\(m)", "--progress", "none"], cwd: d.path)
            #expect(r.status == 0, "\(m): \(r.stderr)")
            let ok = r.stdout.split(separator: "\n").filter { $0.contains("\"status\":\"ok\"") }.count
            #expect(ok == (m == "manifest.csv" ? 2 : 4), "\(m): \(r.stdout)")
        }
        // the CSV's half-speed job: 2 s at 1/2 is 4 s at 30 fps, every frame from the schedule
        #expect(try CLI.calibrationIndices(d.file("out/serve-half.mp4")) == (0..<120).map { Optional(4 * $0) })
    }

    /// The Swift sample (Samples/library-tour): formats from a listing, the highest-rate mode, a clip
    /// generated at that rate, exported at half speed to 30 fps, each output frame checked.
    @Test func libraryTourRunsTheWholeJob() throws {
        let d = TempDir()
        let tour = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("library-tour").path
        let listing = URL(fileURLWithPath: Self.samples).deletingLastPathComponent().appendingPathComponent("library-tour/camera-listing.txt").path
        let r = try CLI.run(executable: tour, [listing, d.path])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("2 formats, 4 sizes; highest rate: MJPG 640x360 at 240 fps"), "\(r.stdout)")
        #expect(r.stdout.contains("240 frames →") && r.stdout.contains("60 frames at 30 fps (2 s)"), "\(r.stdout)")
        #expect(r.stdout.contains("output frames show the scheduled source frames: true (first: 0 4 8 12 16 20)"), "\(r.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.path).sorted() == ["clip-half-speed-30fps.mp4", "clip.mp4"])
    }

    @Test func scriptsParseAndManifestsValidate() throws {
        for f in ["gnu-parallel.sh", "retime-library.sh", "slurm-array.sbatch"] {
            let r = try CLI.tool(["bash", "-n", "\(Self.samples)/\(f)"])
            #expect(r.status == 0, "\(f): \(r.stderr)")
        }
        let sbatch = try String(contentsOfFile: "\(Self.samples)/slurm-array.sbatch", encoding: .utf8)
        #expect(sbatch.contains("#SBATCH --array=0-7") && sbatch.contains("--shard-base 0"))
        // the Kubernetes file is valid YAML with the fields an Indexed Job needs
        let check = """
            import sys, yaml
            d = yaml.safe_load(open(sys.argv[1]))
            s = d["spec"]
            assert d["apiVersion"] == "batch/v1" and d["kind"] == "Job"
            assert s["completionMode"] == "Indexed" and s["completions"] == 8
            assert "JOB_COMPLETION_INDEX" in s["template"]["spec"]["containers"][0]["args"][0]
            """
        let r = try CLI.tool(["python3", "-c", check, "\(Self.samples)/k8s-indexed-job.yaml"])
        #expect(r.status == 0, "\(r.stderr)")
        // both sample manifests parse and validate (dry run lists their jobs)
        for (m, n) in [("manifest.json", 4), ("manifest.yaml", 4), ("manifest.csv", 2)] {
            let r = try CLI.run(["batch", "\(Self.samples)/\(m)", "--dry-run"], cwd: Self.samples)
            // outputs go to Samples/batch/out, which does not exist: dry runs still validate jobs first
            #expect(r.status == 73 || r.stdout.split(separator: "\n").count == n, "\(m): \(r.stderr)")
            #expect(!r.stderr.contains("unknown") && !r.stderr.contains("segment"), "\(m): \(r.stderr)")
        }
    }
}
