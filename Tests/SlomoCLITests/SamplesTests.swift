import Foundation
import Testing

/// The batch samples users copy: run the GNU parallel one for real, syntax-check the others.
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
        FileManager.default.createFile(atPath: d.file("jobs.json"), contents: Data("[\(jobs.joined(separator: ","))]".utf8))
        let r = try CLI.tool(["bash", "\(Self.samples)/gnu-parallel.sh", d.file("jobs.json"), "2", CLI.binary])
        let (status, out, err) = (r.status, r.stdout, r.stderr)
        #expect(status == 0, "\(err)")
        let lines = out.split(separator: "\n").filter { $0.contains("\"status\":\"ok\"") }
        #expect(lines.count == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.file("out")).sorted() == ["c0.mp4", "c1.mp4", "c2.mp4", "c3.mp4"])
    }

    @Test func scriptsParseAndManifestsValidate() throws {
        for f in ["gnu-parallel.sh", "retime-library.sh", "slurm-array.sbatch"] {
            let r = try CLI.tool(["bash", "-n", "\(Self.samples)/\(f)"])
            let (status, err) = (r.status, r.stderr)
            #expect(status == 0, "\(f): \(err)")
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
        let (status, err) = (r.status, r.stderr)
        #expect(status == 0, "\(err)")
        // both sample manifests parse and validate (dry run lists their jobs)
        for (m, n) in [("manifest.json", 4), ("manifest.csv", 2)] {
            let r = try CLI.run(["batch", "\(Self.samples)/\(m)", "--dry-run"], cwd: Self.samples)
            // outputs go to Samples/batch/out, which does not exist: dry runs still validate jobs first
            #expect(r.status == 73 || r.stdout.split(separator: "\n").count == n, "\(m): \(r.stderr)")
            #expect(!r.stderr.contains("unknown") && !r.stderr.contains("segment"), "\(m): \(r.stderr)")
        }
    }
}
