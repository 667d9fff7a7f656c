import ArgumentParser
import Foundation
import SlomoCore
import SlomoSystem
import SlomoKit

struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Record a camera at its fastest mode, keeping every frame's kernel timestamp.",
        discussion: """
            Frames go from the driver into a RAM ring on a real-time capture thread that only copies and \
            gives each buffer back; encoding and writing run on other threads, and everything costly (FFmpeg, \
            the encoder, the driver's buffers) is ready before the camera starts streaming. The recording is a \
            fragmented MP4/MOV (a fragment at least every second, flushed to disk) or Matroska/NUT: killed or \
            out of power, it plays up to its last fragment. Timestamps are the kernel's, in microseconds from \
            the first frame. MJPEG/H.264 cameras are stored as they arrive; raw ones are encoded (x264 with a \
            reference frame every 1/30 s; FFV1, lossless in the camera's own sampling and depth; or raw, the \
            frames' bytes unchanged). The report is printed and written next to the recording as OUTPUT.capture.json.
            Pre/post-trigger: the ring keeps the last --pre-trigger seconds; a trigger (a line 'trigger' on \
            stdin, SIGUSR1, motion in the picture, or a signed network message from 'slomo trigger', placed at the \
            instant it names) saves them and the next --post-trigger seconds as a shot; \
            --shots N re-arms (0: until stopped; OUT takes %d or %03d for the shot number).
            GenICam cameras (GigE Vision, USB3 Vision; see 'slomo devices') are genicam:ID: --size is a \
            region of the sensor (centred unless --offset X,Y), --format a GenICam name (Mono8), --fps or the \
            fastest rate the camera allows; frame ids count the drops, damaged frames are counted and never \
            stored, and the report has the stream's statistics under "transport".
            Examples:
              slomo capture /dev/video0 --max-fps --duration 5 -o run.mp4
              slomo capture --source synthetic:fps=240,size=640x360 --duration 2 \\
                  -o demo.mp4
              slomo capture /dev/video0 --pre-trigger 2 --post-trigger 1 --trigger stdin \\
                  -o shot.mp4
              slomo capture /dev/video0 --pre-trigger 1 --post-trigger 1 \\
                  --trigger motion=12 --shots 0 -o 'shot%03d.mkv' --codec ffv1
              slomo capture /dev/video0 --audio hw:1,0 \\
                  --preview udp://10.0.0.2:5000 -o take.mkv
              slomo capture /dev/video0 /dev/video2 --pre-trigger 1 --post-trigger 1 \\
                  --trigger signal -o 'cam{camera}.mp4'
              slomo capture /dev/video0 --trigger udp://239.1.2.3:7000 \\
                  --trigger-key rig.key --shots 0 -o 'shot%03d.mkv'
              slomo capture /dev/video0 --trigger gpio:gpiochip0:17 \\
                  --trigger-out gpio:gpiochip0:27,pulse=5 -o shot.mkv
              slomo capture /dev/video0 --gain lock --control brightness=10 \\
                  --duration 2 -o run.mp4
              slomo capture genicam:192.168.1.20 --format Mono8 --size 640x480 \\
                  --max-fps --shutter 1/2000 --duration 5 -o run.mkv --codec ffv1
            """)

    @OptionGroup var camera: CameraOptions
    @OptionGroup(title: "Configuration file") var configuration: ConfigOptions
    @Option(name: .shortAndLong, help: "Output file (.mp4, .mov, .mkv or .nut; %d or %03d: the shot number).", completion: .file()) var output: String
    @Option(parsing: .unconditional, help: "Stop after this many seconds (from the first frame).") var duration: String?
    @Option(parsing: .unconditional, help: "Stop after this many frames.") var frames: Int64?
    @OptionGroup var triggering: TriggerOptions
    @OptionGroup(title: "Takes held in RAM") var takeOptions: TakeOptions
    @Option(help: "The sound trigger's own microphone (an ALSA capture device; default: it listens to --audio).") var triggerAudio: String?
    @Option(help: "The motion trigger's region X,Y,WIDTH,HEIGHT in pixels (default: the whole frame).") var triggerRegion: String?
    @Option(parsing: .unconditional, help: "Shots before stopping (0: until stopped; more than 1 needs %d in -o).") var shots = 1
    @Flag(help: "Number shots after those already in the folder (-o with %d): shot%03d.mkv goes on from the highest saved.") var continueShots = false
    @Option(name: .customLong("segment"), help: "Mark START-END@RATE slowed while recording, repeatable.") var segments: [String] = []
    @Option(name: .customLong("ramp"), help: "START-END@RATE[:RAMP] phone-style slowed section, repeatable.") var ramps: [String] = []
    @Option(help: "T0@R0,T1@R1,… a speed curve applied while recording (times from the first frame; exact every 10 ms; Docs/Curves.md).") var curve: String?
    @Option(help: "Send a live low-rate MJPEG picture here: - (stdout), a file, or a URL such as udp://HOST:PORT (NUT).") var preview: String?
    @Option(parsing: .unconditional, help: "Preview pictures per second.") var previewFps = "10"
    @Option(help: "Preview width at most (pixels).") var previewWidth = 640
    @Flag(help: ArgumentHelp(Self.previewBurnInHelp)) var previewBurnIn = false
    @Option(help: "Write the frame-interval timeline and histogram to this SVG file.", completion: .file(extensions: ["svg"])) var statsPlot: String?
    @Flag(help: "Replace the output if it exists.") var overwrite = false
    @Flag(help: "Print the report as JSON.") var json = false

    static let previewBurnInHelp =
        "Label each live picture with its camera frame's sequence number and time on the capture clock (CLOCK_MONOTONIC, s; raw formats: an MJPEG camera's own JPEGs pass unlabelled)."

    /// `--preview`, `--preview-fps`, `--preview-width` (exit 64 on values out of range).
    func previewOptions() throws -> PreviewSettings? {
        guard let preview else { return nil }
        let fps = try OptionValues.rational(previewFps, option: .previewFps)
        if preview == "-" && json {
            throw CommandLineError(
                "\(Setting.preview) - takes stdout: drop \(Setting.json) (the report is also in OUTPUT.capture.json) or preview to a file or URL", .badRequest)
        }
        // a reader that goes away must end the preview, not the capture
        ProcessSignals.ignoreBrokenPipes()
        var p = PreviewSettings(output: preview)
        p.fps = fps
        p.width = previewWidth
        p.burnIn = previewBurnIn
        try p.validate()
        return p
    }

    func audioOptions() throws -> AudioSettings? { try camera.audioOptions() }

    func run() throws {
        ProcessSignals.interruptsStopTheRun()  // first: a SIGINT during device set-up must stop, not be lost
        let limits = try limitOptions()
        let triggerSettings = try triggerOptions()
        let previewSettings = try previewOptions()
        if let statsPlot { try OutputFile.check(statsPlot, overwrite: true) }  // before the camera opens, not after the capture
        let settings = try recordingOptions(limits: limits, firstShot: triggerSettings?.firstShot ?? 1)
        let controls = try camera.cameraControls.requests()
        if !controls.isEmpty && camera.source != nil {
            throw CommandLineError(
                "camera controls (\(Setting.shutter), \(Setting.gain), \(Setting.control)…) need a V4L2 device, not \(Setting.source)", .badRequest)
        }
        if camera.devices.count > 1 {
            try runSeveral(
                settings: settings, limits: limits, trigger: triggerSettings, audio: try audioOptions(), preview: previewSettings, controls: controls)
            return
        }
        let src: CaptureSource
        if let source = camera.source {
            guard camera.devices.isEmpty else { throw CommandLineError("give a DEVICE or \(Setting.source), not both", .badRequest) }
            src = try SyntheticSource(spec: source)
        } else {
            src = try DeviceCapture.open(request(camera.devices.first ?? "/dev/video0", controls: controls))
        }
        var hooks = CaptureHooks()
        if let t = triggerSettings {
            let what = Self.awaited(t.kind)
            let json = self.json, camera = src.name
            // the human line always: scripts wait for `slomo: armed` (Docs/Capture.md)
            hooks.onArmed = {
                Console.error("slomo: armed: waiting for \(what)")
                if json { Console.error(Self.eventLine(CaptureEvent(.armed, camera: camera))) }
            }
            hooks.onEvent = { e in Console.error(json ? Self.eventLine(e) : e.line) }
        }
        let session = try CaptureSession(
            source: src, settings: settings, limits: limits, trigger: triggerSettings, audio: try audioOptions(),
            preview: previewSettings, hooks: hooks)
        let plan = session.ringPlan
        Console.error(
            "slomo: ring: \(plan.slots) frames × \(plan.slotBytes) bytes = \(plan.mebibytes) MiB"
                + (triggerSettings.map { "; keeps \(plan.preFrames) frames before a \($0.kind.name) trigger and \(plan.postFrames) after" } ?? ""))
        let report = try session.run()
        if let plot = statsPlot {
            let svg = StatsPlot.svg(
                session.lastStats, nominal: report.nominalFrameRate,
                title: "\(report.device) \(report.format.fourcc) \(report.format.width)x\(report.format.height) → \(report.output)")
            try OutputFile.write(Data(svg.utf8), to: plot)
        }
        if json { try JSONOutput.print(report) } else { summary(report) }
        for w in report.warnings { Console.error("slomo: warning: \(report.device): \(w)") }
        if let failure = Self.failure(report) { throw failure }
    }

    /// A capture event as one JSON line (`--json`: the report stays alone on stdout).
    static func eventLine(_ e: CaptureEvent) -> String { (try? JSONSchema.line(e, type: "capture")) ?? e.line }

    /// `--duration`, `--frames`, `--buffers`, the ring's size, `--no-mlock`, `--no-realtime`,
    /// `--bytes-per-line` (exit 64 on values out of range).
    func limitOptions() throws -> CaptureLimits {
        var limits = try camera.limits()
        limits.duration = try duration.map { d throws(SettingError) in try OptionValues.rational(d, option: .duration) }
        limits.frames = frames
        try limits.validate()
        return limits
    }

    /// The recording's codec, output and segments, checked before the camera opens: a codec the
    /// container cannot hold, an output that cannot be written (a read-only or missing directory,
    /// an existing file), a segment that cannot be laid out.
    func recordingOptions(limits: CaptureLimits, firstShot: Int = 1) throws -> RecordingSettings {
        var settings = try camera.recording(output: output)
        settings.overwrite = overwrite
        try settings.validate()  // a codec the container cannot hold: refused before the camera opens
        // so is an output that cannot be written (a read-only or missing directory, an existing file)
        let first = TriggerSettings.path(MultiCapture.path(output, camera: 1), shot: firstShot)
        // (a lab format's names are checked when the camera's samples are known: LabFrameFile)
        if !LabOutput.isLabName(first) { try OutputFile.check(first, overwrite: overwrite) }
        if !segments.isEmpty || !ramps.isEmpty || curve != nil {
            let spec = try Values.retimeSpec(rate: nil, segments: segments, ramps: ramps, curve: curve)
            // segments are relative to the first frame; the map runs to the longest allowed capture
            let horizon = limits.duration ?? Rational(86_400)
            settings.map = try spec.resolve(duration: horizon, frameRate: nil)  // a RetimeError: usage, 64
        }
        return settings
    }

    /// The human summary of one camera's capture (on stderr when the preview has stdout).
    func summary(_ report: CaptureReport) {
        let i = report.intervals
        let toStderr = preview == "-"
        func say(_ line: String) { if toStderr { Console.error(line) } else { Console.out(line) } }
        let shots = report.shots ?? []
        // a triggered capture's output is a name template: say what was saved, not the template
        let head =
            report.shots == nil
            ? "\(report.output): \(report.framesWritten) frames written"
            : "\(shots.count) shot\(shots.count == 1 ? "" : "s") saved (\(report.framesWritten) frames\(shots.isEmpty ? "" : ": " + shots.map(\.output).joined(separator: ", ")))"
        say(
            "\(head): \(report.framesCaptured) frames captured from \(report.device) \(report.format.fourcc) \(report.format.width)x\(report.format.height) in \(Seconds(report.duration)) s, achieved \(report.achievedFps.map { String($0) } ?? "?") fps (nominal \(report.nominalFrameRate.map { Seconds($0).description } ?? "?")), dropped \(report.droppedByDriver) by the driver + \(report.droppedBySlomo) by slomo; interval p50 \(i.map { String($0.p50Micros) } ?? "?") µs, p99 \(i.map { String($0.p99Micros) } ?? "?") µs, max \(i.map { String($0.maxMicros) } ?? "?") µs; stopped: \(report.stopReason.rawValue)"
        )
        if let a = report.audio {
            say(
                "audio: \(a.device) \(a.sampleRate) Hz × \(a.channels) as \(a.codec): \(a.framesWritten) frames; the card runs at \(Seconds(a.measuredRate, decimals: 3)) Hz on the camera's clock (\(a.ppm) ppm), \(a.driftCorrectionFrames) frames of drift corrected; \(a.overruns) overruns (\(a.framesLost) frames lost)"
            )
        }
        if let p = report.preview {
            say("preview: \(p.output) \(p.width)x\(p.height) at \(Seconds(p.fps)) fps: \(p.framesSent) pictures sent, \(p.framesSkipped) skipped")
        }
        for c in report.controls ?? [] { say("control: " + ControlsTable.applied(c)) }
        if let f = report.fileSyncs, f.count > 0 {
            say(
                "disk: fdatasync \(f.count) times, \(Seconds(Rational(f.totalMicros, 1000), decimals: 1)) ms in all, longest \(Seconds(Rational(f.maxMicros, 1000), decimals: 1)) ms"
            )
        }
        for shot in report.shots ?? [] {
            say(
                "shot \(shot.shot): \(shot.output): \(shot.framesWritten) frames, trigger frame \(shot.triggerFrame) (sequence \(shot.triggerSequence)), \(shot.preFrames) before + \(shot.postFrames) after\(shot.leadInFrames.map { $0 > 0 ? " after \($0) lead-in frames from the keyframe" : "" } ?? ""), trigger frame \(shot.latencyMs) ms after the event, decided \(shot.decisionLatencyMs) ms after it\(shot.triggerOut.map { ", output raised \($0.afterEventMs) ms after it" } ?? "")\(shot.complete ? "" : " (incomplete)")\(shot.warning.map { "; \($0)" } ?? "")"
            )
        }
    }

    func request(_ device: String, controls: ControlRequests) -> DeviceCaptureRequest { camera.request(device, controls: controls) }

    /// Several cameras on one event (`MultiCapture`): one session each, `{camera}` in the names,
    /// the same mode options; the sound and the preview go with the first camera.
    func runSeveral(
        settings: RecordingSettings, limits: CaptureLimits, trigger: TriggerSettings?, audio: AudioSettings?,
        preview previewSettings: PreviewSettings?, controls: ControlRequests
    ) throws {
        guard camera.source == nil else { throw CommandLineError("give DEVICEs or \(Setting.source), not both", .badRequest) }
        guard output.contains("{camera}") else {
            throw CommandLineError("-o '\(output)': several cameras need {camera} in the name (e.g. -o 'cam{camera}.mp4')", .badRequest)
        }
        guard Set(camera.devices).count == camera.devices.count else {
            throw CommandLineError("a device is given twice: \(camera.devices.joined(separator: " "))", .badRequest)
        }
        if let t = trigger, case .motion = t.kind {
            throw CommandLineError("\(Setting.trigger) motion with several cameras is not supported: use stdin or signal (one event for all)", .badRequest)
        }
        if statsPlot != nil { throw CommandLineError("\(Setting.statsPlot) with several cameras is not supported: see each OUTPUT.capture.json", .badRequest) }
        let json = self.json
        var hooks = CaptureHooks(onEvent: { e in Console.error(json ? Self.eventLine(e) : e.line) })
        if let t = trigger {
            let what = Self.awaited(t.kind)
            let armed = ArmedCount(camera.devices.count), n = camera.devices.count
            hooks.onArmed = { if armed.one() { Console.error("slomo: armed: \(n) cameras waiting for \(what)") } }
        }
        var sessions: [CaptureSession] = []
        for (i, d) in camera.devices.enumerated() {
            var s = settings
            s.output = MultiCapture.path(output, camera: i + 1)
            let src = try camera.openSource(d, controls: controls)
            sessions.append(
                try CaptureSession(
                    source: src, settings: s, limits: limits, trigger: trigger,
                    audio: i == 0 ? audio : nil, preview: i == 0 ? previewSettings : nil, hooks: hooks))
        }
        try MultiCapture.checkRates(sessions)
        for s in sessions {
            let plan = s.ringPlan
            Console.error("slomo: ring: \(s.source.name): \(plan.slots) frames × \(plan.slotBytes) bytes = \(plan.mebibytes) MiB")
        }
        let report = try MultiCapture.run(sessions, trigger: trigger)
        if json {
            try JSONOutput.print(report)
        } else {
            for r in report.cameras { summary(r) }
            for k in report.skew {
                Console.out(
                    "skew: \(k.camera) against \(k.reference): p50 \(k.p50Ms) ms, p99 \(k.p99Ms) ms, max \(k.maxMs) ms, mean \(k.meanMs) ms over \(k.frames) frames"
                )
            }
            if let spread = report.triggerFrameSpreadMs, !spread.isEmpty {
                Console.out(
                    "trigger frames across cameras: " + spread.enumerated().map { "shot \($0.offset + 1) within \($0.element) ms" }.joined(separator: ", "))
            }
        }
        for r in report.cameras { for w in r.warnings { Console.error("slomo: warning: \(r.device): \(w)") } }
        if let failure = report.cameras.lazy.compactMap(Self.failure).first { throw failure }
    }

    /// The pre/post-trigger options as one value (nil: continuous recording), checked together.
    func triggerOptions() throws -> TriggerSettings? {
        guard let trigger = triggering.trigger else {
            for (name, given) in [
                (Setting.preTrigger, camera.preTrigger != nil), (.postTrigger, camera.postTrigger != nil),
                (.triggerRegion, triggerRegion != nil), (.shots, shots != 1), (.continueShots, continueShots),
                (.triggerAudio, triggerAudio != nil),
            ] + triggering.given + takeOptions.given where given {
                throw CommandLineError("\(name) needs \(Setting.trigger) stdin|signal|motion|sound|gpio:…|udp://…", .badRequest)
            }
            return nil
        }
        let kind = try OptionValues.trigger(trigger)
        // neither given: a second each side (a shot of one frame is never what anyone wants)
        let window = try camera.window()
        var t = TriggerSettings(kind: kind, pre: window.pre, post: window.post, shots: shots)
        try triggering.apply(to: &t)
        t.takes = try takeOptions.settings()
        if continueShots {
            guard TriggerSettings.hasShotNumber(output) else {
                throw CommandLineError("-o \(output): \(Setting.continueShots) needs %d or %03d in the name for the shot number", .badRequest)
            }
            // after the highest shot of any camera, so that no camera's file is taken
            t.firstShot = (1...Swift.max(1, camera.devices.count)).map { TriggerSettings.nextFreeShot(MultiCapture.path(output, camera: $0)) }.max() ?? 1
        }
        if let triggerAudio { t.audio = AudioSettings(device: triggerAudio) }
        try t.validate(audio: try audioOptions())
        if shots != 1 && !TriggerSettings.hasShotNumber(output) {
            throw CommandLineError("-o \(output): \(Setting.shots) \(shots) writes several files: put %d or %03d in the name for the shot number", .badRequest)
        }
        if let triggerRegion {
            guard case .motion = kind else { throw CommandLineError("\(Setting.triggerRegion) is for \(Setting.trigger) motion", .badRequest) }
            t.region = try PixelRegion(parsing: triggerRegion)
        }
        return t
    }
}

/// Counts the cameras that are armed; true for the last one (one `armed` line for all).
final class ArmedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int
    init(_ n: Int) { left = n }
    func one() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        left -= 1
        return left == 0
    }
}
