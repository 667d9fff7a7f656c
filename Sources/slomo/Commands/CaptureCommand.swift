import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Record a camera at its fastest mode, keeping every frame's kernel timestamp.",
        discussion: """
        The recording is a fragmented MP4/MOV (a fragment at least every second, flushed to disk): killed \
        or out of power, it plays up to its last fragment. Timestamps are the kernel's, in microseconds from \
        the first frame. MJPEG/H.264 cameras are stored as they arrive; raw ones are encoded (x264 with a \
        reference frame every 1/30 s and non-reference frames between, or FFV1). At the end the report is \
        printed and written next to the recording as OUTPUT.capture.json.
        Examples:
          slomo capture /dev/video0 --max-fps --duration 10 -o run.mp4
          slomo capture --source synthetic:fps=240,size=1280x720 --duration 3 -o demo.mp4
        """)

    @Argument(help: "V4L2 device (default /dev/video0) unless --source is given.") var device: String?
    @Option(name: .shortAndLong, help: "Output file (.mp4 or .mov; fragmented).") var output: String
    @Option(help: "synthetic:fps=240,size=1280x720,format=mjpeg|yuv420p|yuyv,pace=1,drop-every=0") var source: String?
    @Flag(help: "Pick the fastest mode (the default; kept for clarity).") var maxFps = false
    @Option(help: "Only this pixel format (fourcc).") var format: String?
    @Option(help: "Only this size WxH.") var size: String?
    @Option(help: "At least this size WxH.") var minSize: String?
    @Option(help: "The mode nearest at or above this rate.") var fps: String?
    @Option(help: "Stop after this many seconds (from the first frame).") var duration: String?
    @Option(help: "Stop after this many frames.") var frames: Int64?
    @Option(help: "Driver buffers (mmap).") var buffers = 8
    @Option(help: "Frames the writer queue holds before dropping.") var queue = 128
    @Option(help: "Raw cameras: x264 or ffv1 (lossless).") var codec = "x264"
    @Option(help: "x264 preset for raw cameras.") var preset = "superfast"
    @Option(help: "x264 constant rate factor for raw cameras.") var crf = 20
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
        guard (1...100_000).contains(queue) else { throw SimpleFailure("--queue \(queue): must be in 1...100000", .usage) }
        var settings = RecordingSettings(output: output)
        guard let raw = RecordingSettings.RawCodec(rawValue: codec) else { throw SimpleFailure("--codec '\(codec)': expected x264 or ffv1", .usage) }
        settings.rawCodec = raw; settings.preset = preset; settings.crf = crf; settings.overwrite = overwrite
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
            r.format = format; r.size = size; r.minSize = minSize; r.fps = fps; r.buffers = buffers
            src = try DeviceCapture.open(r)
        }
        let session = CaptureSession(source: src, settings: settings, limits: limits)
        let report = try session.run()
        if let plot = statsPlot {
            let svg = StatsPlot.svg(session.lastStats, nominal: report.nominalFrameRate, title: "\(report.device) \(report.format.fourcc) \(report.format.width)x\(report.format.height) → \(report.output)")
            try Data(svg.utf8).write(to: URL(fileURLWithPath: plot), options: .atomic)
        }
        if json { try JSONOutput.print(report) } else {
            let i = report.intervals
            Console.out("\(report.output): \(report.framesWritten) frames from \(report.device) \(report.format.fourcc) \(report.format.width)x\(report.format.height) in \(Seconds(report.duration)) s, achieved \(report.achievedFps.map { String($0) } ?? "?") fps (nominal \(report.nominalFrameRate.map { Seconds($0).description } ?? "?")), dropped \(report.droppedByDriver) by the driver + \(report.droppedBySlomo) by slomo; interval p50 \(i.map { String($0.p50Micros) } ?? "?") µs, p99 \(i.map { String($0.p99Micros) } ?? "?") µs, max \(i.map { String($0.maxMicros) } ?? "?") µs; stopped: \(report.stopReason)")
        }
        if report.stopReason == "disconnected" {
            throw SimpleFailure("\(report.device): device disconnected during capture (\(report.message ?? "no reason given")); \(report.framesWritten) frames kept in \(report.output)", .ioError)
        }
    }
}
