import Foundation
import Testing

/// Boots the vivid VM once for the whole suite (one `Tests/vivid/checks.sh` run, ~1.5 min) and
/// hands each test the `CHECK name value` lines.
enum VividVM {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The project's test machine (Tests/vm/README.md).
    static let script = root.appendingPathComponent("Tests/vm/run.sh").path

    static var available: Bool {
        ProcessInfo.processInfo.environment["SLOMO_SKIP_VIVID"] != "1"
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/qemu-system-x86_64")
    }
    /// What a skipped suite says (Swift Testing prints it beside the skip).
    static let skipReason: Comment =
        ProcessInfo.processInfo.environment["SLOMO_SKIP_VIVID"] == "1"
        ? "skipped: SLOMO_SKIP_VIVID=1" : "skipped: no qemu-system-x86_64 for the test machine (scripts/dev.sh deps installs it)"

    /// `SLOMO_BIN`, else the `slomo` built next to this test bundle (any `--scratch-path`), else `.build/debug/slomo`.
    static let binary: String = {
        if let b = ProcessInfo.processInfo.environment["SLOMO_BIN"] { return b }
        let next = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("slomo").path
        return FileManager.default.isExecutableFile(atPath: next) ? next : root.appendingPathComponent(".build/debug/slomo").path
    }()

    nonisolated(unsafe) static var cached: Result<[String: String], VMFailure>?
    nonisolated(unsafe) static var cachedAudio: Result<[String: String], VMFailure>?
    nonisolated(unsafe) static var cachedGPIO: Result<[String: String], VMFailure>?
    /// One VM at a time (the suites run in parallel; two emulated VMs on two cores would starve vivid).
    static let lock = NSLock()

    struct VMFailure: Error, CustomStringConvertible { var description: String }

    /// A check's value as numbers (`"300 15 0 57.1"`).
    static func numbers(_ c: [String: String], _ key: String) -> [Double] { (c[key] ?? "").split(separator: " ").compactMap { Double($0) } }

    /// Boots the VM once and runs every check; later calls reuse the result (or the failure).
    static func checks() throws -> [String: String] {
        lock.lock()
        defer { lock.unlock() }
        if cached == nil { cached = run(script: "Tests/vivid/checks.sh", out: "vivid-out") }
        return try cached!.get()
    }

    /// The sound checks: another boot, with the ALSA loopback card (`--alsa`), `Tests/vivid/audio-checks.sh`.
    static func audioChecks() throws -> [String: String] {
        lock.lock()
        defer { lock.unlock() }
        if cachedAudio == nil {
            cachedAudio = run(
                script: "Tests/vivid/audio-checks.sh", out: "vivid-audio-out", alsa: true,
                vivid: "n_devs=2 node_types=0x1,0x1 num_inputs=1,1 input_types=0x0,0x0")
        }
        return try cachedAudio!.get()
    }

    /// The GPIO checks: a boot with the kernel's simulated GPIO chip (`--gpio-sim`), `Tests/vivid/gpio-checks.sh`.
    static func gpioChecks() throws -> [String: String] {
        lock.lock()
        defer { lock.unlock() }
        if cachedGPIO == nil { cachedGPIO = run(script: "Tests/vivid/gpio-checks.sh", out: "vivid-gpio-out", gpioSim: true) }
        return try cachedGPIO!.get()
    }

    private static func run(
        script checks: String, out name: String, alsa: Bool = false, gpioSim: Bool = false,
        vivid: String = "n_devs=1 node_types=0x1 num_inputs=2 input_types=0xc"
    ) -> Result<[String: String], VMFailure> {
        // the VM shares only the package directory writable: keep the output inside it
        let binDir = URL(fileURLWithPath: binary).deletingLastPathComponent().path
        let out = binDir.hasPrefix(root.path + "/") ? binDir + "/" + name : root.appendingPathComponent(".build/" + name).path
        try? FileManager.default.removeItem(atPath: out)
        do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
            return .failure(VMFailure(description: "cannot create \(out): \(error)"))
        }
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return .failure(VMFailure(description: "no slomo binary at \(binary): build it first (swift build) or set SLOMO_BIN"))
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: script)
        p.currentDirectoryURL = root
        p.arguments =
            ["--timeout", "900"] + (alsa ? ["--alsa"] : []) + (gpioSim ? ["--gpio-sim"] : []) + [
                "--vivid", vivid, "--",
                "env", "SLOMO_BIN=\(binary)", "OUT_DIR=\(out)", "bash", checks,
            ]
        let pipe = Pipe()
        p.standardOutput = pipe
        _ = FileManager.default.createFile(atPath: out + "/vm.stderr", contents: nil)
        p.standardError = FileHandle(forWritingAtPath: out + "/vm.stderr")
        do { try p.run() } catch { return .failure(VMFailure(description: "cannot run \(script): \(error)")) }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        var result: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("CHECK ") {
            let parts = line.dropFirst(6).split(separator: " ", maxSplits: 1)
            result[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        if result["done"] != "1" {
            let tail = (try? String(contentsOfFile: out + "/vm.stderr", encoding: .utf8))?.split(separator: "\n").suffix(15).joined(separator: "\n") ?? ""
            return .failure(
                VMFailure(
                    description: "vivid VM run ended with status \(p.terminationStatus) before the last check "
                        + "(125 = VM machinery failed, 124 = timeout); stderr tail:\n\(tail)"))
        }
        return .success(result)
    }
}
