import Foundation
import Testing

/// Runs the built `slomo` binary, as a user would.
struct CLI {
    struct Result {
        var status: Int32
        /// stdout as bytes (e.g. raw samples) and as text.
        var output: Data
        var stderr: String
        var stdout: String { String(decoding: output, as: UTF8.self) }
    }

    /// The repository's root (scripts, Docs, Samples).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// `SLOMO_BIN`, else the `slomo` next to the test bundle, else `.build/debug/slomo`.
    static let binary: String = {
        if let b = ProcessInfo.processInfo.environment["SLOMO_BIN"] { return b }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("slomo").path,
            Bundle.main.bundleURL.appendingPathComponent("slomo").path,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/slomo").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()

    /// stderr's lines but capture's `slomo: ring: …` note.
    static func errorLines(_ r: Result) -> [String] {
        r.stderr.split(separator: "\n").filter { !$0.hasPrefix("slomo: ring:") }.map(String.init)
    }

    /// The first video stream's frame count as `probe --json` reads it (nil when probe fails).
    static func videoFrameCount(_ path: String) throws -> Int? {
        let probe = try run(["probe", path, "--json"])
        guard probe.status == 0 else { return nil }
        let streams = (try JSONSerialization.jsonObject(with: probe.output) as? [String: Any])?["streams"] as? [[String: Any]]
        return streams?.first?["frameCount"] as? Int
    }

    /// `environment`: added to this process's environment; `stdin`: written to the child's
    /// standard input, which is then closed (nil: the test's own).
    static func run(_ args: [String], cwd: String? = nil, environment: [String: String] = [:], stdin: Data? = nil) throws -> Result {
        try run(executable: binary, args, cwd: cwd, environment: environment, stdin: stdin)
    }

    /// The full path of a program on PATH, nil when it is not installed.
    static func which(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Another program, found on PATH (ffmpeg, bash, python3), run the same way.
    static func tool(_ args: [String], cwd: String? = nil) throws -> Result {
        try run(executable: "/usr/bin/env", args, cwd: cwd)
    }

    static func run(
        executable: String, _ args: [String], cwd: String? = nil, environment: [String: String] = [:],
        stdin: Data? = nil
    ) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        // GenICam discovery broadcasts on every interface: none unless a test asks (in its own
        // network namespace)
        var env = ProcessInfo.processInfo.environment
        if env["SLOMO_GENICAM_INTERFACES"] == nil { env["SLOMO_GENICAM_INTERFACES"] = "none" }
        p.environment = env.merging(environment) { $1 }
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let input = stdin.map { _ in Pipe() }
        if let input { p.standardInput = input }
        try p.run()
        if let input, let stdin {
            // a child that exits before reading it must fail its test, not end the run with SIGPIPE
            signal(SIGPIPE, SIG_IGN)
            // written on its own thread: a child that does not read it all must not block the test
            DispatchQueue.global().async {
                try? input.fileHandleForWriting.write(contentsOf: stdin)
                try? input.fileHandleForWriting.close()
            }
        }
        // read both pipes fully before waiting (large JSON would otherwise block the child)
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.wait()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, output: outData, stderr: String(decoding: errData, as: UTF8.self))
    }
}

final class TempDir: Sendable {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("slomo-cli-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ n: String) -> String { (path as NSString).appendingPathComponent(n) }
    var entries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

extension CLI {
    /// A calibration clip written by `slomo generate ARGS -o DIR/NAME`; the tests stop if it fails.
    static func generated(_ dir: TempDir, _ name: String, _ args: [String]) -> String {
        let path = dir.file(name)
        let r = try! run(["generate"] + args + ["-o", path])
        precondition(r.status == 0, r.stderr)
        return path
    }

    /// Every frame of `path` as `slomo probe --frames --json` lists it (a damaged file's frames
    /// too: probe then also exits non-zero).
    static func probedFrames(_ path: String) throws -> [[String: Any]] {
        let p = try run(["probe", path, "--frames", "--json"])
        guard let json = (try? JSONSerialization.jsonObject(with: p.output)) as? [String: Any],
            let frames = json["frames"] as? [[String: Any]]
        else { throw ProbeFailed(message: "probe \(path): no frames list: \(p.stderr)") }
        return frames
    }

    /// The calibration index each frame of `path` carries (nil where none is read).
    static func calibrationIndices(_ path: String) throws -> [Int?] {
        try probedFrames(path).map { $0["calibrationIndex"] as? Int }
    }

    struct ProbeFailed: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// A triggered capture of the synthetic camera at 250 fps: a line `trigger` on its standard input
/// once it says it is armed, 10 frames kept before the trigger frame and 10 after (`extra`: more
/// capture options).
func triggeredShot(size: String, format: String, output: String, extra: String = "") throws -> CLI.Result {
    try CLI.triggered(
        "'\(CLI.binary)' capture --source synthetic:fps=250,size=\(size),format=\(format) \(extra) --pre-trigger 0.04 --post-trigger 0.04 --trigger stdin -o '\(output)'"
    )
}

extension CLI {
    /// Runs `capture` (a shell command line reading its triggers from standard input) and, for each
    /// step, waits until its stderr holds `after` (`slomo: armed` is said once the ring holds the
    /// pre-trigger frames), then writes `line`; stdin closes `linger` seconds after the last. Sleeping
    /// a fixed time instead lost pre-trigger frames on a loaded CI machine (the camera started late).
    /// stderr is the capture's, whole, after it ends.
    static func triggered(
        _ capture: String, steps: [(after: String, line: String)] = [("slomo: armed", "trigger")], linger: Double = 0.6
    ) throws -> Result {
        try tool(["bash", "-c", triggerScript(capture, steps: steps, linger: linger)])
    }

    /// `triggered`'s shell lines, to put in a script of one's own (`$?` after them is the capture's).
    /// `spacing`: seconds slept after each line; `last`: a line written after the steps (`quit`).
    static func triggerScript(
        _ capture: String, steps: [(after: String, line: String)] = [("slomo: armed", "trigger")], linger: Double = 0.6,
        spacing: Double = 0, last: String? = nil
    ) -> String {
        let pause = spacing > 0 ? "; sleep \(spacing)" : ""
        let feed = steps.map { step in "wait_for '\(step.after)'; echo '\(step.line)' >&3\(pause)" }.joined(separator: "; ")
        let end = last.map { "echo '\($0)' >&3; " } ?? ""
        return """
            d=$(mktemp -d); mkfifo "$d/in"
            \(capture) <"$d/in" 2>"$d/err" & pid=$!
            exec 3>"$d/in"
            wait_for() { for _ in $(seq 1200); do grep -qF -- "$1" "$d/err" && return; kill -0 $pid 2>/dev/null || return; sleep 0.05; done; }
            \(feed); sleep \(linger); \(end)exec 3>&-
            wait $pid; s=$?; cat "$d/err" >&2; rm -rf "$d"; (exit $s)
            """
    }
}

/// The bad-input contract for one run: exit `status`, one line on stderr, holding every one of `parts`.
func expectOneLine(_ r: CLI.Result, status: Int32, contains parts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(r.status == status, "exit \(r.status), stderr: \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderr.split(separator: "\n").count == 1, "stderr: \(r.stderr)", sourceLocation: sourceLocation)
    for p in parts { #expect(r.stderr.contains(p), "'\(p)' not in: \(r.stderr)", sourceLocation: sourceLocation) }
}
