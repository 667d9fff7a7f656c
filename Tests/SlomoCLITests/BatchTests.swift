import Foundation
import Testing

/// `slomo batch` on the built binary: JSON Lines, resumability, shards, refusals before any job runs.
@Suite(.serialized) struct BatchTests {
    /// Four small calibration clips (60/120/240 fps) and one non-media file, in `dir/clips`.
    static func library() throws -> TempDir {
        let d = TempDir()
        try FileManager.default.createDirectory(atPath: d.file("clips"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: d.file("out"), withIntermediateDirectories: true)
        for (name, fps) in [("a", "60"), ("b", "120"), ("c", "240"), ("d", "240")] {
            let r = try CLI.run(["generate", "--fps", fps, "--duration", "1/2", "--size", "160x90", "--no-audio", "-o", d.file("clips/\(name).mp4")])
            precondition(r.status == 0, r.stderr)
        }
        return d
    }

    func records(_ r: CLI.Result) throws -> [[String: Any]] {
        try r.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    /// `--out-dir` that does not exist yet is made (as `mkdir -p`); a dry run makes nothing.
    @Test func outDirIsMadeWhenMissing() throws {
        let d = try Self.library()
        let out = d.file("new/deeper")
        let dry = try CLI.run(["batch", d.file("clips/a.mp4"), "--out-dir", out, "--rate", "1/2", "--no-audio", "--dry-run"])
        #expect(dry.status == 0 && !FileManager.default.fileExists(atPath: out), "\(dry.stderr)")
        let r = try CLI.run(["batch", d.file("clips/a.mp4"), "--out-dir", out, "--rate", "1/2", "--no-audio", "--progress", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["a.mp4"])
    }

    @Test func oneBadInputDoesNotStopTheBatchAndResumeSkipsFinishedJobs() throws {
        let d = try Self.library()
        _ = FileManager.default.createFile(atPath: d.file("clips/broken.mp4"), contents: Data("not a video".utf8))
        let args = ["batch", d.file("clips/*.mp4"), "--out-dir", d.file("out"), "--rate", "1/2", "--no-audio", "--jobs", "2"]
        let first = try CLI.run(args)
        #expect(first.status == 1, "\(first.stderr)")
        let recs = try records(first)
        let jobs = recs.filter { $0["summary"] == nil }
        #expect(jobs.count == 5)
        #expect(jobs.filter { $0["status"] as? String == "ok" }.count == 4)
        let failed = try #require(jobs.first { $0["status"] as? String == "failed" })
        #expect((failed["error"] as? String)?.contains("broken.mp4") == true)
        #expect(failed["exitStatus"] as? Int == 65)
        let summary = try #require(recs.last?["summary"] as? [String: Any])
        #expect(summary["ok"] as? Int == 4 && summary["failed"] as? Int == 1)
        // outputs are real half-speed 30 fps files
        #expect(try CLI.run(["probe", d.file("out/c.mp4")]).stdout.contains("fps CFR, 30 frames"))

        // resume: everything complete is skipped; a damaged output and a deleted one are redone
        let cData = try Data(contentsOf: URL(fileURLWithPath: d.file("out/c.mp4")))
        _ = FileManager.default.createFile(atPath: d.file("out/c.mp4"), contents: cData.prefix(cData.count / 3))
        try FileManager.default.removeItem(atPath: d.file("out/a.mp4"))
        let second = try records(try CLI.run(args))
        let status = Dictionary(
            uniqueKeysWithValues: second.compactMap { r -> (String, String)? in
                guard let i = r["input"] as? String, let s = r["status"] as? String else { return nil }
                return (URL(fileURLWithPath: i).lastPathComponent, s)
            })
        #expect(status == ["a.mp4": "ok", "b.mp4": "skipped", "c.mp4": "ok", "d.mp4": "skipped", "broken.mp4": "failed"])
        // different options are a different job: the same outputs are redone
        let third = try records(try CLI.run(args.map { $0 == "1/2" ? "1/4" : $0 }))
        #expect(third.filter { $0["status"] as? String == "skipped" }.isEmpty)
        // --force redoes complete ones
        let forced = try records(try CLI.run(args.map { $0 == "1/2" ? "1/4" : $0 } + ["--force"]))
        #expect(forced.filter { $0["status"] as? String == "ok" }.count == 4)
        let outs = try FileManager.default.contentsOfDirectory(atPath: d.file("out"))
        #expect(!outs.contains { $0.contains("partial") })
    }

    /// `--progress json`: one aggregated stream over all jobs, fed by the running exports' frame
    /// progress (not only by finished jobs), ending at every job and every output frame.
    @Test func progressAggregatesTheRunningJobsFrames() throws {
        let d = try Self.library()
        let r = try CLI.run([
            "batch", d.file("clips/*.mp4"), "--out-dir", d.file("out"), "--rate", "1/2", "--no-audio",
            "--jobs", "2", "--progress", "json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "progress" }
        let fractions = events.compactMap { $0["fraction"] as? Double }
        #expect(fractions.count == events.count && fractions.count >= 5, "\(r.stderr)")
        #expect(zip(fractions.dropFirst(), fractions).allSatisfy { $0 >= $1 - 1e-9 }, "\(fractions)")
        // frames reached the aggregate while jobs were still running
        #expect(events.contains { ($0["jobsDone"] as? Int ?? 0) < 4 && ($0["frames"] as? Int ?? 0) > 0 && ($0["fraction"] as? Double ?? 0) > 0 })
        let last = try #require(events.last)
        // four 0.5 s clips at half speed, 30 fps: 30 output frames each
        #expect(last["jobsDone"] as? Int == 4 && last["jobs"] as? Int == 4 && last["frames"] as? Int == 120 && last["fraction"] as? Double == 1)
    }

    @Test func shardsCoverEveryJobExactlyOnce() throws {
        let d = try Self.library()
        var seen: [String] = []
        for i in 1...3 {
            let r = try CLI.run(["batch", d.file("clips/*.mp4"), "--out-dir", d.file("out"), "--no-audio", "--shard", "\(i)/3", "--dry-run"])
            #expect(r.status == 0, "\(r.stderr)")
            seen += try records(r).compactMap { $0["input"] as? String }
        }
        #expect(seen.sorted() == ["a", "b", "c", "d"].map { d.file("clips/\($0).mp4") })
        // zero-based numbering for Slurm/Kubernetes gives the same split
        let z = try records(try CLI.run(["batch", d.file("clips/*.mp4"), "--out-dir", d.file("out"), "--shard", "0/3", "--shard-base", "0", "--dry-run"]))
        let o = try records(try CLI.run(["batch", d.file("clips/*.mp4"), "--out-dir", d.file("out"), "--shard", "1/3", "--dry-run"]))
        #expect(z.compactMap { $0["input"] as? String } == o.compactMap { $0["input"] as? String })
    }

    @Test(arguments: ["3/2", "0/0", "0/3", "x/2", "1-2"])
    func badShardSpecsAreRefused(spec: String) throws {
        let d = try Self.library()
        let r = try CLI.run(["batch", d.file("clips/*.mp4"), "--out-dir", d.file("out"), "--shard", spec])
        #expect(r.status == 64 && r.stderr.contains("--shard"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.file("out")).isEmpty)
    }

    @Test func manifestErrorsStopBeforeAnyJob() throws {
        let d = try Self.library()
        func manifest(_ name: String, _ text: String) -> String {
            let p = d.file(name)
            _ = FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
            return p
        }
        let a = d.file("clips/a.mp4"), out = d.file("out/x.mp4")
        let cases: [(String, Int32, [String])] = [
            // syntax errors: line and column, and what was expected there
            (
                manifest("syntax.json", "{\"jobs\": [\n {\"input\": \"\(a)\",\n \"output\": }\n]}"), 65,
                ["syntax.json:3:12: not valid JSON", "the value of 'output'"]
            ),
            (
                manifest("comma.json", "[\n {\"input\": \"\(a)\"\n  \"rate\": \"1/2\"}\n]"), 65,
                ["comma.json:3:3:", "expected ',' or '}' after the value of 'input'"]
            ),
            (
                manifest("fraction.json", "[\n {\"input\": \"\(a)\", \"output\": \"\(out)\",\n  \"rate\": 1/2}\n]"), 65,
                ["fraction.json:3:11:", "1/2 is not a JSON number"]
            ),
            (
                manifest("twice.json", "[{\"input\": \"\(a)\",\n \"rate\": \"1/2\", \"rate\": \"1/4\"}]"), 65,
                ["twice.json:2:17:", "field 'rate' appears twice"]
            ),
            (manifest("open.json", "[{\"input\": \"\(a)\"}\n"), 65, ["open.json:2:1:", "a ']' is missing"]),
            // a bad field: the job's line, its index and the field (the manifest is wrong: 65, always)
            (
                manifest(
                    "lines.json",
                    "{\"jobs\": [\n {\"input\": \"\(a)\", \"output\": \"\(out)\"},\n {\"input\": \"\(a)\", \"output\": \"\(d.file("out/y.mp4"))\", \"pitch\": \"warble\"}\n]}"
                ), 65,
                ["lines.json:3: jobs[1]: pitch 'warble'"]
            ),
            (
                manifest("crf.json", "[{\"input\": \"\(a)\", \"output\": \"\(out)\", \"crf\": \"high\"}]"), 65,
                ["crf.json:1: jobs[0].crf: crf: expected a whole number"]
            ),
            (manifest("field.json", "[{\"input\": \"\(a)\", \"output\": \"\(out)\", \"rte\": \"1/2\"}]"), 65, ["jobs[0]", "unknown field 'rte'"]),
            (manifest("command.json", "[{\"input\": \"\(a)\", \"output\": \"\(out)\", \"command\": \"melt\"}]"), 65, ["jobs[0]", "melt"]),
            (manifest("segment.json", "[{\"input\": \"\(a)\", \"output\": \"\(out)\", \"segments\": [\"5-2@1\"]}]"), 65, ["jobs[0]", "5-2@1"]),
            (
                manifest("dup.json", "[{\"input\": \"\(a)\", \"output\": \"\(out)\"}, {\"input\": \"\(d.file("clips/b.mp4"))\", \"output\": \"\(out)\"}]"), 64,
                ["both write"]
            ),
            (manifest("bad.csv", "input,output,colour\n\(a),\(out),red\n"), 65, ["bad.csv:1", "unknown column 'colour'"]),
            (manifest("cells.csv", "input,output,rate\n\(a),\(out)\n"), 65, ["cells.csv:2", "cells"]),
            (manifest("nodir.json", "[{\"input\": \"\(a)\", \"output\": \"\(d.file("missing/x.mp4"))\"}]"), 73, ["does not exist"]),
        ]
        for (path, status, parts) in cases {
            let r = try CLI.run(["batch", path])
            #expect(r.status == status, "\(path): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            for p in parts { #expect(r.stderr.contains(p), "'\(p)' not in \(r.stderr)") }
            // and the same refusal as the one JSON line on stdout
            let line = try records(r)
            #expect(
                line.count == 1 && line[0]["status"] as? String == "refused" && line[0]["exitStatus"] as? Int == Int(status)
                    && "slomo: \(line[0]["error"] as? String ?? "")\n" == r.stderr, "\(r.stdout)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.file("out")).isEmpty)
        // an output directory that is a file
        let r = try CLI.run(["batch", a, "--out-dir", a])
        #expect(r.status == 73 && r.stderr.contains("--out-dir"), "\(r.stderr)")
    }

    /// A directory the user may not write to (mode 0555; as root, the check runs as user nobody,
    /// for whom the mode holds): refused before any job, nothing written.
    @Test func unwritableOutputDirectoryIsRefusedBeforeAnyJob() throws {
        let d = try Self.library()
        let ro = d.file("readonly")
        try FileManager.default.createDirectory(atPath: ro, withIntermediateDirectories: false)
        for p in [d.path, d.file("clips"), d.file("clips/a.mp4")] { chmod(p, 0o755) }
        chmod(d.file("clips/a.mp4"), 0o644)
        chmod(ro, 0o555)
        /// slomo as a user the mode binds (root ignores it): nobody, through setpriv, when run as root
        func asUser(_ args: [String]) throws -> CLI.Result {
            getuid() == 0
                ? try CLI.run(executable: "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", CLI.binary] + args)
                : try CLI.run(args)
        }
        let r = try asUser(["batch", d.file("clips/a.mp4"), "--out-dir", ro, "--rate", "1/2"])
        #expect(r.status == 73, "\(r.stderr)")
        #expect(r.stderr == "slomo: \(ro): --out-dir is not writable\n")
        #expect(r.stdout == "{\"error\":\"\(ro): --out-dir is not writable\",\"exitStatus\":73,\"status\":\"refused\",\"type\":\"refusal\",\"version\":2}\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: ro).isEmpty)
        // the same job with a manifest naming an output inside it
        let m = d.file("ro.json")
        _ = FileManager.default.createFile(atPath: m, contents: Data("[{\"input\": \"\(d.file("clips/a.mp4"))\", \"output\": \"\(ro)/a.mp4\"}]".utf8))
        chmod(m, 0o644)
        let mr = try asUser(["batch", m])
        #expect(mr.status == 73 && mr.stderr.contains(ro) && mr.stderr.contains("not writable"), "\(mr.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: ro).isEmpty)
        // sharded: only the shard with the unwritable directory refuses; the other runs its job
        let ok = d.file("ok")
        try FileManager.default.createDirectory(atPath: ok, withIntermediateDirectories: true)
        chmod(ok, 0o777)
        let two = d.file("two.json")
        _ = FileManager.default.createFile(
            atPath: two,
            contents: Data(
                ("[{\"input\": \"\(d.file("clips/a.mp4"))\", \"output\": \"\(ro)/a.mp4\", \"noAudio\": true},"
                    + " {\"input\": \"\(d.file("clips/b.mp4"))\", \"output\": \"\(ok)/b.mp4\", \"noAudio\": true}]").utf8))
        chmod(two, 0o644)
        let first = try asUser(["batch", two, "--shard", "0/2", "--shard-base", "0", "--progress", "none"])
        #expect(first.status == 73 && first.stdout.contains("\"status\":\"refused\""), "\(first.stderr)")
        let second = try asUser(["batch", two, "--shard", "1/2", "--shard-base", "0", "--progress", "none"])
        #expect(second.status == 0 && second.stdout.contains("\"shard\":\"1/2\",\"shardBase\":0"), "\(second.stderr) \(second.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: ok) == ["b.mp4"])
    }

    @Test func csvManifestRuns() throws {
        let d = try Self.library()
        let p = d.file("jobs.csv")
        let text =
            "input,output,command,rate,segments,noAudio\n\(d.file("clips/c.mp4")),\(d.file("out/c-seg.mkv")),export,,0.1-0.2@1/4;0.3-0.4@1/2,true\n\(d.file("clips/a.mp4")),\(d.file("out/a-r.mp4")),retime,1/2,,true\n"
        _ = FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
        let r = try CLI.run(["batch", p])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try records(r).filter { $0["status"] as? String == "ok" }.count == 2)
        // 0.5 s with 0.1 s at 1/4 and 0.1 s at 1/2: 0.3 + 0.4 + 0.2 = 0.9 s -> 27 frames at 30 fps
        #expect(try CLI.run(["probe", d.file("out/c-seg.mkv")]).stdout.contains("27 frames"))
    }

    @Test func interruptKeepsFinishedOutputsAndLeavesNoPartials() throws {
        let d = TempDir()
        try FileManager.default.createDirectory(atPath: d.file("out"), withIntermediateDirectories: true)
        for name in ["long1", "long2", "long3"] {
            _ = try CLI.run(["generate", "--fps", "240", "--duration", "6", "--size", "640x360", "--no-audio", "-o", d.file("\(name).mp4")])
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["batch", d.file("long*.mp4"), "--out-dir", d.file("out"), "--rate", "1/8", "--no-audio", "--jobs", "1", "--preset", "slow"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        var waited = 0
        while (try FileManager.default.contentsOfDirectory(atPath: d.file("out"))).isEmpty && waited < 400 {
            usleep(50_000)
            waited += 1
        }
        usleep(500_000)
        kill(p.processIdentifier, SIGINT)
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        // the signal reached the job running then (it stopped, it did not finish), and no job started after
        #expect(lines.contains(#""status":"interrupted""#), "\(lines)")
        #expect(!lines.contains(#""status":"ok""#), "\(lines)")
        let left = try FileManager.default.contentsOfDirectory(atPath: d.file("out"))
        #expect(!left.contains { $0.contains("partial") }, "\(left)")
        for f in left { #expect(try CLI.run(["probe", d.file("out/\(f)")]).status == 0) }
    }
}
