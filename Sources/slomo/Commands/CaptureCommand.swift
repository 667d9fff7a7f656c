import ArgumentParser
import Foundation
import SlomoCore
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
        stdin, SIGUSR1, or motion in the picture) saves them and the next --post-trigger seconds as a shot; \
        --shots N re-arms (0: until stopped; OUT takes %d or %03d for the shot number).
        Examples:
          slomo capture /dev/video0 --max-fps --duration 10 -o run.mp4
          slomo capture --source synthetic:fps=240,size=1280x720 --duration 3 -o demo.mp4
          slomo capture /dev/video0 --pre-trigger 2 --post-trigger 1 --trigger stdin -o shot.mp4
          slomo capture /dev/video0 --pre-trigger 1 --post-trigger 1 --trigger motion=12 --shots 0 -o 'shot%03d.mkv' --codec ffv1
        """)

    @Argument(help: "V4L2 device (default /dev/video0) unless --source is given.") var device: String?
    @Option(name: .shortAndLong, help: "Output file (.mp4, .mov, .mkv or .nut; %d or %03d: the shot number).") var output: String
    @Option(help: "synthetic:fps=240,size=1280x720,format=mjpeg|yuv420p|yuyv,pace=1,drop-every=0,buffers=8,preload=0") var source: String?
    @Flag(help: "Pick the fastest mode (the default; kept for clarity).") var maxFps = false
    @Option(help: "Only this pixel format (fourcc).") var format: String?
    @Option(help: "Only this size WxH.") var size: String?
    @Option(help: "At least this size WxH.") var minSize: String?
    @Option(help: "The mode nearest at or above this rate.") var fps: String?
    @Option(help: "Raw formats: ask the driver to pad rows to this many bytes.") var bytesPerLine: Int?
    @Option(help: "Stop after this many seconds (from the first frame).") var duration: String?
    @Option(help: "Stop after this many frames.") var frames: Int64?
    @Option(help: "Driver buffers (mmap).") var buffers = 8
    @Option(help: "RAM ring size, e.g. 512M or 2G (default: 2 s of frames or 64 MiB; triggered: the shot + 1/4 s).") var ringMemory: String?
    @Option(help: "RAM ring size in frames (instead of --ring-memory).") var ringFrames: Int?
    @Flag(help: "Do not lock the ring in RAM (mlock).") var noMlock = false
    @Flag(help: "Keep the capture thread at normal priority (default: SCHED_FIFO where allowed, else nice -10).") var noRealtime = false
    @Option(help: "Raw cameras: x264, ffv1 (lossless) or raw (uncompressed; .mkv, .mov or .nut).") var codec = "x264"
    @Option(help: "x264 preset for raw cameras.") var preset = "superfast"
    @Option(help: "x264 constant rate factor for raw cameras.") var crf = 20
    @Option(help: "Keep this many seconds before the trigger (needs --trigger).") var preTrigger: String?
    @Option(help: "Keep this many seconds after the trigger frame (needs --trigger).") var postTrigger: String?
    @Option(help: "stdin ('trigger' / 'quit' lines), signal (SIGUSR1) or motion[=THRESHOLD] (mean brightness change, 8-bit, default 10).") var trigger: String?
    @Option(help: "The motion trigger's region X,Y,WIDTH,HEIGHT in pixels (default: the whole frame).") var triggerRegion: String?
    @Option(help: "Shots before stopping (0: until stopped; more than 1 needs %d in -o).") var shots = 1
    @Option(name: .customLong("segment"), help: "Mark START-END@RATE slowed while recording, repeatable.") var segments: [String] = []
    @Option(name: .customLong("ramp"), help: "START-END@RATE[:RAMP] phone-style slowed section, repeatable.") var ramps: [String] = []
    @Option(help: "Write the frame-interval timeline and histogram to this SVG file.") var statsPlot: String?
    @Flag(help: "Replace the output if it exists.") var overwrite = false
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        StopFlag.install()      // first: a SIGINT during device set-up must stop, not be lost
        var limits = CaptureLimits()
        if let duration {
            let d = try OptionValues.rational(duration, option: "--duration")
            guard d.isPositive, d <= Rational(86_400) else { throw SimpleFailure("--duration \(duration): must be in (0, 86400] s", .usage) }
            limits.duration = d
        }
        if let frames { guard frames > 0 else { throw SimpleFailure("--frames \(frames): must be at least 1", .usage) }; limits.frames = frames }
        guard (2...64).contains(buffers) else { throw SimpleFailure("--buffers \(buffers): must be in 2...64", .usage) }
        if let ringFrames { guard (4...1_000_000).contains(ringFrames) else { throw SimpleFailure("--ring-frames \(ringFrames): must be in 4...1000000", .usage) } }
        limits.ringFrames = ringFrames
        limits.ringMemory = try ringMemory.map { m throws(SimpleFailure) in try OptionValues.bytes(m, option: "--ring-memory") }
        limits.lockMemory = !noMlock
        limits.realtime = !noRealtime
        if let bytesPerLine { guard (1...1 << 20).contains(bytesPerLine) else { throw SimpleFailure("--bytes-per-line \(bytesPerLine): must be in 1...1048576", .usage) } }
        let triggerSettings = try triggerOptions()
        var settings = RecordingSettings(output: output)
        guard let raw = RecordingSettings.RawCodec(rawValue: codec) else { throw SimpleFailure("--codec '\(codec)': \(OptionValues.expected(RecordingSettings.RawCodec.self))", .usage) }
        settings.rawCodec = raw; settings.preset = preset; settings.crf = crf; settings.overwrite = overwrite
        try settings.validate()         // a codec the container cannot hold: refused before the camera opens
        if !segments.isEmpty || !ramps.isEmpty {
            let spec = try Values.retimeSpec(rate: nil, segments: segments, ramps: ramps)
            // segments are relative to the first frame; the map runs to the longest allowed capture
            let horizon = limits.duration ?? Rational(86_400)
            do { settings.map = try spec.resolve(duration: horizon, frameRate: nil) } catch {
                throw SimpleFailure("\(error)", .usage)
            }
        }
        let src: CaptureSource
        if let source {
            guard device == nil else { throw SimpleFailure("give a DEVICE or --source, not both", .usage) }
            src = try SyntheticSource(spec: source)
        } else {
            var r = DeviceCaptureRequest(device: device ?? "/dev/video0")
            r.format = format; r.size = size; r.minSize = minSize; r.fps = fps; r.buffers = buffers; r.bytesPerLine = bytesPerLine
            src = try DeviceCapture.open(r)
        }
        let session = try CaptureSession(source: src, settings: settings, limits: limits, trigger: triggerSettings)
        let plan = session.ringPlan
        Console.error("slomo: ring: \(plan.slots) frames × \(plan.slotBytes) bytes = \(plan.mebibytes) MiB"
                      + (triggerSettings.map { "; keeps \(plan.preFrames) frames before a \($0.kind.name) trigger and \(plan.postFrames) after" } ?? ""))
        if let t = triggerSettings {
            let what = t.kind == .stdin ? "a line 'trigger' on stdin" : t.kind == .signal ? "SIGUSR1 (kill -USR1 \(getpid()))" : "motion"
            session.onArmed = { Console.error("slomo: armed: waiting for \(what)") }
        }
        let report = try session.run()
        if let plot = statsPlot {
            let svg = StatsPlot.svg(session.lastStats, nominal: report.nominalFrameRate, title: "\(report.device) \(report.format.fourcc) \(report.format.width)x\(report.format.height) → \(report.output)")
            try Data(svg.utf8).write(to: URL(fileURLWithPath: plot), options: .atomic)
        }
        if json { try JSONOutput.print(report) } else {
            let i = report.intervals
            Console.out("\(report.output): \(report.framesWritten) frames from \(report.device) \(report.format.fourcc) \(report.format.width)x\(report.format.height) in \(Seconds(report.duration)) s, achieved \(report.achievedFps.map { String($0) } ?? "?") fps (nominal \(report.nominalFrameRate.map { Seconds($0).description } ?? "?")), dropped \(report.droppedByDriver) by the driver + \(report.droppedBySlomo) by slomo; interval p50 \(i.map { String($0.p50Micros) } ?? "?") µs, p99 \(i.map { String($0.p99Micros) } ?? "?") µs, max \(i.map { String($0.maxMicros) } ?? "?") µs; stopped: \(report.stopReason)")
            for shot in report.shots ?? [] {
                Console.out("shot \(shot.shot): \(shot.output): \(shot.framesWritten) frames, trigger frame \(shot.triggerFrame) (sequence \(shot.triggerSequence)), \(shot.preFrames) before + \(shot.postFrames) after, latency \(shot.latencyMs) ms\(shot.complete ? "" : " (incomplete)")")
            }
        }
        for w in report.warnings { Console.error("slomo: warning: \(report.device): \(w)") }
        if report.stopReason == "disconnected" {
            throw SimpleFailure("\(report.device): device disconnected during capture (\(report.message ?? "no reason given")); \(report.framesWritten) frames kept in \(report.output)", .ioError)
        }
    }

    /// The pre/post-trigger options as one value (nil: continuous recording), checked together.
    func triggerOptions() throws(SimpleFailure) -> TriggerSettings? {
        guard let trigger else {
            for (name, given) in [("--pre-trigger", preTrigger != nil), ("--post-trigger", postTrigger != nil),
                                  ("--trigger-region", triggerRegion != nil), ("--shots", shots != 1)] where given {
                throw SimpleFailure("\(name) needs --trigger stdin|signal|motion", .usage)
            }
            return nil
        }
        let kind = try OptionValues.trigger(trigger)
        var t = TriggerSettings(kind: kind, pre: try preTrigger.map { v throws(SimpleFailure) in try OptionValues.seconds(v, option: "--pre-trigger", max: Rational(3600)) } ?? .zero,
                                post: try postTrigger.map { v throws(SimpleFailure) in try OptionValues.seconds(v, option: "--post-trigger", max: Rational(3600)) } ?? .zero,
                                shots: shots)
        guard shots >= 0 else { throw SimpleFailure("--shots \(shots): must be 0 (until stopped) or more", .usage) }
        if shots != 1 && !TriggerSettings.hasShotNumber(output) {
            throw SimpleFailure("-o \(output): --shots \(shots) writes several files: put %d or %03d in the name for the shot number", .usage)
        }
        if let triggerRegion {
            guard case .motion = kind else { throw SimpleFailure("--trigger-region is for --trigger motion", .usage) }
            t.region = try PixelRegion(parsing: triggerRegion)
        }
        return t
    }
}
