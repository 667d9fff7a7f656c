import Foundation
import Testing

/// Shots held in RAM as takes (`--takes`, `--save lifo`), saved to a disk four times slower than
/// the camera: the throttling FUSE file system (`Tests/TestSupport/nofsync-fs.py` with a rate,
/// Debian's python3-fusepy). Root only (it mounts); elsewhere each test says it is skipped.
@Suite(.serialized) struct TakesOnASlowDiskTests {
    /// The synthetic camera, 640x480 gray at 250 fps: 76.8 MB a second.
    static let camera = "synthetic:fps=250,size=640x480,format=gray"

    /// A triggered capture of `camera` into `out` (`%02d`: the shot), its stdin fed `triggers` lines
    /// `spacing` seconds apart once armed, then `quit`; its events as JSON lines on stderr, the report on stdout.
    static func capture(_ camera: String, out: String, triggers: Int, spacing: Double, _ extra: String) throws -> CLI.Result {
        let cmd =
            "'\(CLI.binary)' capture --source \(camera) --pre-trigger 0.1 --post-trigger 0.1 --trigger stdin --shots 0 --codec raw --json \(extra) -o '\(out)'"
        let steps = [(after: "slomo: armed", line: "trigger")] + (1..<triggers).map { _ in (after: "", line: "trigger") }
        return try CLI.tool(["bash", "-c", CLI.triggerScript(cmd, steps: steps, linger: 0.3, spacing: spacing, last: "quit")])
    }

    /// A lifo capture of `takes` takes into `out`, run in the background: once armed, `takes`
    /// triggers `spacing` seconds apart, then the shell lines `then` (`$pid`: the capture, `$d/err`:
    /// its stderr so far); its exit status and stderr are the result's.
    static func signalled(out: String, takes: Int, spacing: Double, json: Bool = false, then: String) throws -> CLI.Result {
        let script = """
            d=$(mktemp -d); mkfifo "$d/in"
            '\(CLI.binary)' capture --source \(Self.camera) --pre-trigger 0.1 --post-trigger 0.1 --trigger stdin --shots 0 --codec raw --save lifo --takes \(takes) \(json ? "--json" : "") -o '\(out)' <"$d/in" 2>"$d/err" & pid=$!
            exec 3>"$d/in"
            for _ in $(seq 600); do grep -q 'slomo: armed\\|"event":"armed"' "$d/err" && break; sleep 0.05; done
            for i in $(seq \(takes)); do echo trigger >&3; sleep \(spacing); done
            \(then)
            wait $pid; s=$?; exec 3>&-; cat "$d/err" >&2; rm -rf "$d"; exit $s
            """
        return try CLI.tool(["bash", "-c", script])
    }

    static func report(_ r: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any], "\(r.stdout.suffix(500)) \(r.stderr)")
    }

    static func mounted(_ test: String, rate: Int) throws -> FsyncRefusalTests.Mounted? {
        let (m, skipped) = try FsyncRefusalTests.mount(refusing: "none", rate: rate)
        if m == nil { print("TakesOnASlowDiskTests.\(test): SKIPPED: \(skipped ?? "")") }
        return m
    }

    /// Ten takes back to back on a disk a quarter of the camera's rate: saved from RAM newest first,
    /// none of the camera's frames lost by slomo, each take whole and without a gap; the same shots
    /// saved straight from the ring (the default) lose frames inside them on the same disk, which is
    /// what shows the disk is slower than the camera.
    @Test func tenTakesOnADiskAQuarterOfTheCamerasRateLoseNothing() throws {
        guard let m = try Self.mounted("tenTakes", rate: 19_200_000) else { return }
        defer { m.unmount() }
        let r = try Self.capture(Self.camera, out: m.mountpoint + "/lifo%02d.mkv", triggers: 10, spacing: 0.3, "--save lifo --takes 10")
        #expect(r.status == 0, "\(r.stderr)")
        let rep = try Self.report(r)
        let shots = rep["shots"] as? [[String: Any]] ?? []
        let takes = rep["takes"] as? [String: Any] ?? [:], counts = takes["counts"] as? [String: Any] ?? [:]
        let order = counts["savedOrder"] as? [Int] ?? []
        #expect(rep["droppedBySlomo"] as? Int == 0, "\(rep["droppedBySlomo"] ?? "")")
        #expect(shots.count == 10 && order.sorted() == Array(1...10), "\(order)")
        for s in shots {
            let out = s["output"] as? String ?? ""
            #expect(s["framesWritten"] as? Int == 51 && s["sequenceGaps"] as? Int == 0 && s["complete"] as? Bool == true, "\(s)")
            #expect(try CLI.videoFrameCount(out) == 51, "\(out)")
        }
        // newest first: the first take is saved alone, then the newest held each time; the second last
        #expect(order.first == 1 && order.last == 2 && order != order.sorted() && (counts["mostHeld"] as? Int ?? 0) >= 3, "\(counts)")
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: m.mountpoint)).contains { $0.contains(".partial.") })
        // quit came with shots still held: said, then they were saved
        let stopped = r.stderr.split(separator: "\n").filter { $0.contains("\"event\":\"stopped\"") }
        #expect(stopped.count == 1 && !stopped[0].contains("\"takesHeld\":0,\"takesSaving\":0"), "\(r.stderr.suffix(800))")

        let ring = try Self.capture(Self.camera, out: m.mountpoint + "/auto%02d.mkv", triggers: 10, spacing: 0.3, "")
        let auto = try Self.report(ring)
        let gaps = (auto["shots"] as? [[String: Any]] ?? []).map { $0["sequenceGaps"] as? Int ?? 0 }.reduce(0, +)
        #expect(
            (auto["droppedBySlomo"] as? Int ?? 0) > 0 && gaps > 0,
            "saved from the ring, the slow disk should have cost frames: \(auto["droppedBySlomo"] ?? "") dropped, \(gaps) in shots")
    }

    /// Every take held: the next triggers are refused in one sentence each, nothing overwritten;
    /// with --overwrite-unsaved the oldest take not being saved is reused, and said.
    @Test func aTriggerWithEveryTakeHeldIsRefused() throws {
        // 160x120 gray: a take of 51 frames is 0.98 MB, a second on this disk
        guard let m = try Self.mounted("refused", rate: 1_000_000) else { return }
        defer { m.unmount() }
        let small = "synthetic:fps=250,size=160x120,format=gray"
        let r = try Self.capture(small, out: m.mountpoint + "/full%02d.mkv", triggers: 5, spacing: 0.15, "--save lifo --takes 3")
        #expect(r.status == 0, "\(r.stderr)")
        let rep = try Self.report(r)
        let counts = (rep["takes"] as? [String: Any])?["counts"] as? [String: Any] ?? [:]
        #expect(counts["refused"] as? Int == 2 && (counts["savedOrder"] as? [Int] ?? []).sorted() == [1, 2, 3], "\(counts)")
        let refusals = r.stderr.split(separator: "\n").filter { $0.contains("\"event\":\"refused\"") }
        #expect(refusals.count == 2 && refusals.allSatisfy { $0.contains("refused: all 3 takes hold shots not yet saved") }, "\(refusals)")

        let o = try Self.capture(small, out: m.mountpoint + "/over%02d.mkv", triggers: 5, spacing: 0.15, "--save lifo --takes 3 --overwrite-unsaved")
        let oc = (try Self.report(o)["takes"] as? [String: Any])?["counts"] as? [String: Any] ?? [:]
        #expect(oc["refused"] as? Int == 0 && oc["overwritten"] as? [Int] == [2, 3] && (oc["savedOrder"] as? [Int] ?? []).sorted() == [1, 4, 5], "\(oc)")
        let names = try FileManager.default.contentsOfDirectory(atPath: m.mountpoint).filter { $0.hasPrefix("over") && $0.hasSuffix(".mkv") }.sorted()
        #expect(names == ["over01.mkv", "over04.mkv", "over05.mkv"], "\(names)")
    }

    /// kill -9 while a take is being saved: every take saved before plays whole; the one being
    /// saved is only under its `.partial.` name, never a damaged file under a shot's name.
    @Test func aKillDuringASaveLeavesEveryEarlierTakePlayable() throws {
        guard let m = try Self.mounted("kill", rate: 19_200_000) else { return }
        defer { m.unmount() }
        let r = try Self.signalled(
            out: m.mountpoint + "/kill%02d.mkv", takes: 6, spacing: 0.3,
            then: """
                for _ in $(seq 600); do [ "$(grep -c ' saved: ' "$d/err")" -ge 2 ] && break; sleep 0.05; done
                for _ in $(seq 600); do ls '\(m.mountpoint)' | grep -q '\\.partial\\.' && break; sleep 0.01; done
                kill -9 $pid
                """)
        let saved = r.stderr.split(separator: "\n").filter { $0.contains(" saved: ") }
        #expect(saved.count >= 2, "\(r.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: m.mountpoint).filter { $0.hasSuffix(".mkv") }
        let whole = names.filter { !$0.contains(".partial.") }
        #expect(whole.count >= saved.count && names.count > whole.count, "a take was being saved when killed (a partial file was seen): \(names)")
        for n in whole { #expect(try CLI.videoFrameCount(m.mountpoint + "/" + n) == 51, "\(n) under a shot's name is not whole") }
    }

    /// Ctrl-C stops the camera and the held takes are saved; Ctrl-C again gives up the rest: the
    /// save under way stops and its partial file is removed, the shots not saved are named (event,
    /// report, exit 130), and every shot saved before stays whole.
    @Test func aSecondInterruptGivesUpTheShotsNotYetSaved() throws {
        guard let m = try Self.mounted("interrupt", rate: 19_200_000) else { return }
        defer { m.unmount() }
        let r = try Self.signalled(
            out: m.mountpoint + "/int%02d.mkv", takes: 8, spacing: 0.15, json: true,
            then: """
                for _ in $(seq 600); do [ "$(grep -c '"event":"held"' "$d/err")" -ge 8 ] && break; sleep 0.05; done
                kill -INT $pid
                for _ in $(seq 600); do grep -q '"event":"stopped"' "$d/err" && break; sleep 0.05; done
                kill -INT $pid
                """)
        #expect(r.status == 130, "exit \(r.status): \(r.stderr.suffix(1500))")
        let rep = try Self.report(r)
        let takes = rep["takes"] as? [String: Any] ?? [:], counts = takes["counts"] as? [String: Any] ?? [:]
        let given = counts["abandoned"] as? [Int] ?? [], order = counts["savedOrder"] as? [Int] ?? []
        #expect(!given.isEmpty && Set(given).isDisjoint(with: order) && (given + order).sorted() == Array(1...8), "\(counts)")
        #expect(takes["unsaved"] as? [Int] == given, "\(takes)")
        #expect(r.stderr.contains("\"event\":\"abandoned\"") && r.stderr.contains("interrupted: \(given.count) shot"), "\(r.stderr.suffix(800))")
        let names = try FileManager.default.contentsOfDirectory(atPath: m.mountpoint).filter { $0.hasSuffix(".mkv") }
        #expect(!names.contains { $0.contains(".partial.") }, "the abandoned save's partial file is removed: \(names)")
        #expect(names.count == order.count, "\(names) \(order)")
        for n in names { #expect(try CLI.videoFrameCount(m.mountpoint + "/" + n) == 51, "\(n) is not whole") }
    }

    /// Take options a capture cannot serve: one line each, exit 64, nothing written.
    @Test func badTakeOptionsAreOneLine() throws {
        let dir = TempDir()
        let out = dir.file("s%02d.mkv")
        let base = ["capture", "--source", "synthetic:fps=250,size=640x480,format=gray", "-o", out]
        let trig = ["--trigger", "stdin", "--shots", "0"]
        expectOneLine(try CLI.run(base + trig + ["--save", "bogus"]), status: 64, contains: ["--save 'bogus': expected auto or lifo"])
        expectOneLine(try CLI.run(base + trig + ["--save", "review"]), status: 64, contains: ["expected auto or lifo (review", "not available yet"])
        expectOneLine(try CLI.run(base + ["--takes", "4"]), status: 64, contains: ["--takes needs --trigger"])
        expectOneLine(try CLI.run(base + trig + ["--takes", "0"]), status: 64, contains: ["--takes 0: must be in 1...1000"])
        expectOneLine(try CLI.run(base + trig + ["--overwrite-unsaved"]), status: 64, contains: ["--overwrite-unsaved is for shots held in RAM"])
        // more takes than memory holds: how many would
        expectOneLine(
            try CLI.run(base + trig + ["--pre-trigger", "20", "--post-trigger", "20", "--takes", "1000"]), status: 64,
            contains: ["synthetic: --takes 1000 needs 1000 × ", "MiB of RAM beside the ring", "takes fit"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
