import ArgumentParser
import Dispatch
import Foundation
import SlomoCore
import SlomoSystem
import SlomoKit
import SlomoServe

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Operate a camera (or several on one trigger) from a browser or a script: live picture, arm, trigger, review, export.",
        discussion: """
            The camera streams into the RAM ring from the start, so it can be aimed. One state machine serves \
            the page and the API alike: idle → armed (the pre-trigger window filling) → triggered (the \
            post-trigger window filling) → saving → armed again while the arm has shots left. Shots are saved \
            in --out-dir as shotNNNN.mp4 (x264 and compressed cameras) or .mkv (ffv1, raw), never over an \
            existing file; their frames are numbered from the trigger frame (0; negative before it).
            The page is at /; the API under /api/v1 (its OpenAPI description at /api/v1/openapi.json); the \
            live picture at /preview.mjpg, /snapshot.jpg and the WebSocket /api/v1/live; the rig's events \
            at /api/v1/events (Server-Sent Events). Docs/Serve.md describes each.
            Several cameras (slomo serve CAM1 CAM2 …: V4L2 devices, genicam:ID and synthetic:SPEC in any mix, \
            one rate, the same mode options) are one rig: one arm and one trigger, each camera's shot around the \
            same instant, saved as shotNNNN-camK; each camera's live picture and files by its number (?camera=K).
            Beside the API, --trigger gpio:CHIP:LINE or udp://[ADDR]:PORT fires shots from a GPIO line or \
            signed network messages, each at its event's own instant, only while armed (else an 'ignored' \
            event says why).
            Security: it listens on 127.0.0.1:8080 unless --listen says otherwise. Every request needs the token \
            (Authorization: Bearer TOKEN; the page trades it for a session cookie): it is read from --token-file, \
            or made there (mode 0600) when the file is missing. slomo prints the page's URL with the token on \
            stderr. Changes come only by POST, PATCH or DELETE, from no other origin; unknown Host names are \
            refused. For another machine, use an SSH tunnel (ssh -L 8080:127.0.0.1:8080 rig) or a reverse proxy \
            with TLS.
            Examples:
              slomo serve /dev/video0 --out-dir shots --pre-trigger 2 --post-trigger 1
              slomo serve --source synthetic:fps=240,size=640x360 --out-dir /tmp/shots
              slomo serve /dev/video0 --out-dir shots --trigger gpio:gpiochip0:17
              slomo serve genicam:127.0.0.1 genicam:127.0.0.2 --format Mono8 --size 320x240 --fps 100
              curl -H "Authorization: Bearer $(cat ~/.config/slomo/token)" \\
                  -X POST http://127.0.0.1:8080/api/v1/arm
            """)

    @OptionGroup var camera: CameraOptions
    @OptionGroup(title: "Configuration file") var configuration: ConfigOptions
    @OptionGroup(title: "Triggers beside the API (taken only while armed)") var triggering: TriggerOptions
    @OptionGroup(title: "Takes held in RAM") var takeOptions: TakeOptions
    @Option(help: "Listen on HOST:PORT (default 127.0.0.1:8080; port 0: any free one).") var listen = "127.0.0.1:8080"
    @Option(help: "Write shots and exports here (created when missing).", completion: .directory) var outDir = "."
    @Option(help: "The token file (default ~/.config/slomo/token; created with a new random token, mode 0600, when missing).", completion: .file())
    var tokenFile: String?
    @Flag(help: "No token (loopback addresses only).") var noToken = false
    @Option(help: "Another name the Host header may carry (a DNS name of the rig, a proxy's), repeatable.") var allowedHost: [String] = []
    @Option(parsing: .unconditional, help: ArgumentHelp(RigOption.shots.help)) var shots = 1
    @Option(parsing: .unconditional, help: ArgumentHelp(RigOption.previewFps.help)) var previewFps = "10"
    @Option(help: ArgumentHelp(RigOption.previewWidth.help)) var previewWidth = 640
    @Option(
        help: ArgumentHelp(
            "The shots' files: mp4 or mkv (the default, by --codec), or cine: Phantom Cine from the camera's own gray or mosaic samples, each frame's time in it (Docs/LabFormats.md).",
            valueName: "mp4|mkv|cine"))
    var shotFormat: String?
    @Flag(help: ArgumentHelp(CaptureCommand.previewBurnInHelp)) var previewBurnIn = false
    @Option(help: "An export over HTTP that would write more frames than this is refused (default 18000: 10 min at 30 fps).")
    var maxExportFrames: Int64 = RigConfig.defaultMaxExportFrames
    @Option(
        help: "Warn (an event, a line on stderr) when the output directory has less free than this, e.g. 2G; an arm whose take cannot fit is refused anyway.")
    var minFree: String?

    /// The shots' recording: MP4 for x264 and compressed cameras, Matroska for ffv1 and raw, or
    /// `--shot-format`; a codec the container cannot hold is refused now.
    func shotRecording(outDir: String) throws -> RecordingSettings {
        var recording = try camera.recording(output: (outDir as NSString).appendingPathComponent("shot.mp4"))
        if recording.rawCodec != .x264 { recording.output = (outDir as NSString).appendingPathComponent("shot.mkv") }
        if let f = shotFormat {
            guard RigConfig.shotExtensions.contains(f) else {
                throw CommandLineError("--shot-format '\(f)': expected \(RigConfig.shotExtensions.joined(separator: ", "))", .badRequest)
            }
            recording.output = (outDir as NSString).appendingPathComponent("shot." + f)
        }
        try recording.validate()
        return recording
    }

    func run() throws {
        ProcessSignals.interruptsStopTheRun()
        ProcessSignals.ignoreBrokenPipes()
        guard let (host, port) = ServeAccess.parseListen(listen) else { throw ServeError.badListen(listen) }
        // before anything starts: a token-less server only where nobody else can reach it
        if noToken && !ServeAccess.isLoopback(host) { throw ServeError.tokenNeededOffLoopback(host) }
        let outDir = try Self.checkOutDir(self.outDir)
        let limits = try camera.limits()
        let window = try camera.window()
        let recording = try shotRecording(outDir: outDir)
        let audio = try camera.audioOptions()
        let controls = try camera.cameraControls.requests()
        guard Set(camera.devices).count == camera.devices.count else {
            throw CommandLineError("a camera is given twice: \(camera.devices.joined(separator: " "))", .badRequest)
        }
        if camera.devices.count > 1 && camera.source != nil { throw CommandLineError("give CAMs or \(Setting.source), not both", .badRequest) }
        if !controls.isEmpty && camera.source != nil { throw CommandLineError("camera controls need a device, not \(Setting.source)", .badRequest) }
        let settings = RigSettings(
            preTrigger: window.pre, postTrigger: window.post, shots: shots,
            previewFps: try OptionValues.rational(previewFps, option: .previewFps), previewWidth: previewWidth)
        do { try settings.check() } catch { throw CommandLineError("\(error.message)", .badRequest) }
        let (trigger, triggerOut) = try physicalTrigger(window: window, audio: audio)
        let token: String? = noToken ? nil : try ServeAccess.token(file: tokenFile ?? Self.defaultTokenFile())
        guard maxExportFrames >= 1 else { throw CommandLineError("--max-export-frames \(maxExportFrames): must be at least 1", .badRequest) }
        let camera = self.camera, device = camera.devices.first
        var config = RigConfig(
            openSource: { try camera.openSource(device, controls: controls) }, outDir: outDir, recording: recording,
            limits: limits, audio: audio, settings: settings, trigger: trigger, triggerOutput: triggerOut)
        // several cameras: one event for all, shots named shotNNNN-camK, each camera by its CAM
        if camera.devices.count > 1 {
            config.moreSources = camera.devices.dropFirst().map { d in { try camera.openSource(d, controls: controls) } }
            config.cameraNames = camera.devices
        }
        config.maxExportFrames = maxExportFrames
        config.shotFormat = shotFormat
        config.previewBurnIn = previewBurnIn
        config.takes = try takeOptions.settings()
        config.minFree = try minFree.map { try OptionValues.bytes($0, option: Setting("min-free")) }
        let rig = Rig(config)
        for warning in try rig.start() { Console.error("slomo: warning: \(warning)") }
        var stopped = false
        defer { if !stopped { rig.stop() } }
        let access = ServeAccess(host: host, port: port, token: token, allowedHosts: allowedHost)
        try Self.serve(rig, RigServer(rig: rig, access: access), host: host, port: port, token: token)
        // SIGINT/SIGTERM: exports cancelled (their partial files removed), shots in flight saved;
        // SIGTERM (systemd's stop) is the service's normal end: 0; SIGINT 130, as for every command
        stopped = true
        let cancelled = rig.stop()
        let jobs =
            cancelled.isEmpty
            ? ""
            : "; export job\(cancelled.count == 1 ? "" : "s") \(cancelled.map(String.init).joined(separator: ", ")) cancelled, nothing written under their names"
        if ProcessSignals.stoppingSignal == SIGTERM {
            Console.error("slomo: stopped (SIGTERM): the server ended, shots in flight saved\(jobs)")
            return
        }
        throw CommandLineError("interrupted: the server stopped\(jobs)", .interrupted)
    }

    /// Runs the server until SIGINT or SIGTERM; under systemd, `RigNotifier` says READY once a frame
    /// has come and the server answers, then pings the watchdog while both go on.
    static func serve(_ rig: Rig, _ server: RigServer, host: String, port: Int, token: String?) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<Error?>(nil)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let probeHost = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
        let boundPort = Locked<Int?>(nil)
        let notifier =
            RigNotifier.wanted
            ? RigNotifier(rig: rig, answers: { boundPort.value.map { LoopbackProbe.answers(host: probeHost, port: $0) } ?? false }) : nil
        notifier?.start()
        Task.detached {
            do {
                try await server.run(stop: ProcessSignals.interrupt) { bound in
                    boundPort.set(bound)
                    Console.error("slomo: serving http://\(shownHost):\(bound)/" + (token.map { "?token=\($0)" } ?? ""))
                }
            } catch { failure.set(error) }
            done.signal()
        }
        done.wait()
        notifier?.stop("stopping: shots in flight are saved")
        if let e = failure.value {
            throw ServeError.portInUse(host, port, "\(e)".contains("Address already in use") ? "the port is in use (another program listens on it)" : "\(e)")
        }
    }

    /// `--trigger gpio:…|udp://…`: shots from a GPIO line or signed network messages beside the API;
    /// `--trigger-out`: the line raised for every shot (with or without `--trigger`).
    func physicalTrigger(window: (pre: Rational, post: Rational), audio: AudioSettings?) throws -> (TriggerSettings?, TriggerOutputLine?) {
        guard let given = triggering.trigger else {
            if let (name, _) = triggering.given.first(where: { $0.1 && $0.0 != .triggerOut }) {
                throw CommandLineError("\(name) needs \(Setting.trigger) gpio:… or udp://…", .badRequest)
            }
            return (nil, try triggering.triggerOut.map { try TriggerOutputLine.parse($0) })
        }
        let kind = try OptionValues.trigger(given)
        switch kind {
        case .gpio, .network: break
        default:
            throw CommandLineError(
                "\(Setting.trigger) \(given): serve takes shots from its API, and beside it from gpio:CHIP:LINE or udp://[ADDR]:PORT, not \(kind.name)",
                .badRequest)
        }
        var t = TriggerSettings(kind: kind, pre: window.pre, post: window.post, shots: 0)
        try triggering.apply(to: &t)
        try t.validate(audio: audio)  // a network trigger without its key, as capture refuses it
        let out = t.output
        t.output = nil
        return (t, out)
    }

    /// The output directory, created when missing, refused (exit 73) when it cannot be written.
    static func checkOutDir(_ dir: String) throws -> String {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if !fm.fileExists(atPath: dir, isDirectory: &isDir) {
            do { try fm.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw ServeError.outDir(dir, "it cannot be created (\((error as NSError).localizedDescription))")
            }
        } else if !isDir.boolValue {
            throw ServeError.outDir(dir, "it is a file")
        }
        guard access(dir, W_OK | X_OK) == 0 else { throw ServeError.outDir(dir, "no permission to write in it") }
        return URL(fileURLWithPath: dir).standardizedFileURL.resolvingSymlinksInPath().path
    }

    static func defaultTokenFile() throws -> String {
        let base = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] ?? (NSHomeDirectory() + "/.config")
        let dir = base + "/slomo"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return dir + "/token"
    }
}
