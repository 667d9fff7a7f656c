import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export at a constant frame rate (default 30 fps) with the retime applied and time-pitch audio.",
        discussion: """
            Output frame n shows the last source frame whose pts is at or before the mapped time \
            (Docs/Export.md). Frames no output frame shows and no other frame references are not decoded.
            Examples:
              slomo export clip.mp4 -o slow.mp4 --rate 0.5 --pitch spectral
              slomo export clip.mp4 -o smooth.mp4 --segment 0.25-0.75@1/8 --fps 60 \\
                  --frame-blend blend
              slomo export shot.mkv -o labelled.mp4 --rate 1/8 --burn-in
            """)

    @Argument(help: "Input media file.", completion: .file()) var input: String
    @Option(name: .shortAndLong, help: "Output file (.mp4, .mov, .mkv, .webm).", completion: .file()) var output: String
    @OptionGroup var retime: RetimeOptions
    @OptionGroup var video: VideoJobOptions
    @Option(parsing: .unconditional, help: ArgumentHelp(JobOption.fps.help)) var fps = "30"
    @Option(help: ArgumentHelp(JobOption.codec.help)) var codec: String?
    @Option(help: ArgumentHelp(JobOption.preset.help)) var preset: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(JobOption.crf.help)) var crf: Int?
    @OptionGroup var delivery: DeliveryOptions
    @Option(help: ArgumentHelp(JobOption.frameBlend.help), completion: .values(of: JobOption.frameBlend)) var frameBlend = "none"
    @Option(help: ArgumentHelp(JobOption.flowQuality.help), completion: .values(of: JobOption.flowQuality)) var flowQuality: String?
    @Option(help: ArgumentHelp(JobOption.rotation.help), completion: .values(of: JobOption.rotation)) var rotation = "auto"
    @OptionGroup var burnIn: BurnInOptions
    @Option(help: "Progress on stderr: auto (bar on a terminal), json (NDJSON events), none.") var progress = "auto"
    @Flag(help: "Decode every frame, even those no output frame shows (for comparisons).") var decodeAll = false
    @Option(parsing: .unconditional, help: "Decoder/encoder threads, and --frame-blend flow pairs worked at once (0 = all cores).") var threads = 0
    @Flag(help: "Replace the output if it exists.") var overwrite = false
    @Flag(help: "Print a JSON summary on stdout.") var json = false

    func run() throws {
        var run = try retime.run(.export, input: input, output: output, overwrite: overwrite)
        try video.apply(to: &run)
        run.job.fps = fps
        run.job.codec = codec
        run.job.preset = preset
        run.job.crf = crf
        delivery.apply(to: &run.job)
        let reporter = try ProgressReporter(mode: progress, label: "export")
        if let note = OptionValues.ntscNote(fps, option: .fps) { reporter.say("slomo: note: " + note.rendered(naming: CLIFailure.flag)) }
        run.job.frameBlend = frameBlend
        run.job.flowQuality = flowQuality
        run.job.rotation = rotation
        burnIn.apply(to: &run.job)
        run.skipUnneeded = !decodeAll
        run.threads = threads
        let r = try run.exportRequest()
        let report = try Exporter.export(r) { done, total in reporter.update(done, total) }
        reporter.finish()
        if let c = report.cropped {
            reporter.say(
                "slomo: note: \(input): \(report.videoCodec ?? "the encoder") does not take odd sizes: cropped \(c) (no resampling); --codec ffv1 keeps them")
        }
        DroppedStreamsWarning.lines(input: input, output: output, report.droppedStreams).forEach(reporter.say)
        if let r = report.rotationDropped { reporter.say(RotationWarning.line(input: input, output: output, degrees: r)) }
        if let t = report.captureRateTag { reporter.say("slomo: note: \(output): \(t)") }
        if let damage = DamageSummary.line(report.damage) {
            reporter.say(
                "slomo: warning: \(input): damaged input, exported what decodes: \(damage)\(report.missingFrames > 0 ? "; \(report.missingFrames) output frames show an earlier frame instead" : "")"
            )
        }
        // repeated frames stutter: say so once, and what makes them instead
        if r.frameBlend == .none, report.repeatedFrames * 10 >= report.outputFrames, report.repeatedFrames > 0 {
            reporter.say(
                "slomo: note: \(input): \(report.repeatedFrames) of \(report.outputFrames) output frames repeat a source frame (the source has fewer frames than \(report.frameRate) fps at this speed): --frame-blend flow makes them along the motion"
            )
        }
        if let f = report.interpolation?.fallback { reporter.say("slomo: note: \(input): \(f)") }
        if json {
            try JSONOutput.print(report)
            return
        }
        Console.out(
            "\(report.output): \(report.outputFrames) frames at \(report.frameRate) fps (\(Seconds(report.outputDuration)) s); decoded \(report.decodedPackets) of \(report.sourceFrames) source frames, \(String(format: "%.1f", report.encodeFps)) fps"
        )
    }
}

/// The part of the source a job keeps (`--start`, `--end`): export's and retime's.
struct TrimOptions: ParsableArguments {
    @Option(help: ArgumentHelp(JobOption.start.help)) var start: String?
    @Option(help: ArgumentHelp(JobOption.end.help)) var end: String?

    func apply(to job: inout BatchJob) {
        job.start = start
        job.end = end
    }
}

/// Export's part of the source and its delivery (`--start`, `--end`, `--size`, `--pix-fmt`,
/// `--bitrate`, `--gop`): declared once, for export and for batch's export jobs.
struct DeliveryOptions: ParsableArguments {
    @OptionGroup var trim: TrimOptions
    @Option(help: ArgumentHelp(JobOption.size.help)) var size: String?
    @Option(help: ArgumentHelp(JobOption.pixFmt.help)) var pixFmt: String?
    @Option(help: ArgumentHelp(JobOption.bitrate.help)) var bitrate: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(JobOption.gop.help)) var gop: Int?

    func apply(to job: inout BatchJob) {
        trim.apply(to: &job)
        job.size = size
        job.pixFmt = pixFmt
        job.bitrate = bitrate
        job.gop = gop
    }
}

/// `--burn-in` and its fields, corner and size: export's and batch's.
struct BurnInOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(JobOption.burnIn.help)) var burnIn = false
    @Option(help: ArgumentHelp(JobOption.burnInFields.help)) var burnInFields: String?
    @Option(help: ArgumentHelp(JobOption.burnInCorner.help), completion: .values(of: JobOption.burnInCorner)) var burnInCorner: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(JobOption.burnInSize.help)) var burnInSize: Int?

    func apply(to job: inout BatchJob) {
        job.burnIn = burnIn
        job.burnInFields = burnInFields
        job.burnInCorner = burnInCorner
        job.burnInSize = burnInSize
    }
}

/// Progress as a terminal bar or NDJSON events on stderr.
final class ProgressReporter: @unchecked Sendable {
    // Safe: `update` and `finish` take `lock`; batch workers call them from several threads.
    private let lock = NSLock()
    enum Mode { case bar, json, none }
    let mode: Mode
    let bar: Progress
    private var throttle = ProgressThrottle()
    private let started = DispatchTime.now()

    init(mode: String, label: String) throws {
        bar = Progress(label: label)
        switch mode {
        case "auto": self.mode = bar.enabled ? .bar : .none
        case "json": self.mode = .json
        case "none": self.mode = .none
        default: throw SettingError(.progress, mode, "expected auto, json or none")
        }
    }

    func update(_ done: Int64, _ total: Int64) {
        lock.lock()
        defer { lock.unlock() }
        switch mode {
        case .bar: bar.update(done, total)
        case .json:
            guard throttle.due(done, total) else { return }
            // the rate so far and the time left at that rate
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            var e = ProgressEvent(done: done, total: total)
            if elapsed > 0, done > 0 {
                let fps = Double(done) / elapsed
                e.throughputFps = (fps * 10).rounded() / 10
                e.etaSeconds = (Double(total - done) / fps * 10).rounded() / 10
            }
            if let line = try? JSONSchema.line(e, type: "progress") { Console.error(line) }
        case .none: break
        }
    }

    /// A batch's aggregated progress: jobs finished, overall fraction (finished jobs plus running
    /// exports' frame fractions), output frames so far.
    func batch(jobsDone: Int, jobs: Int, fraction: Double, frames: Int64, fps: Double, eta: Double) {
        lock.lock()
        defer { lock.unlock() }
        switch mode {
        case .bar:
            bar.draw(
                fraction: fraction, detail: String(format: "%d/%d jobs, %lld frames, %.0f fps, ETA %.0fs", jobsDone, jobs, frames, fps, eta),
                force: jobsDone == jobs)
        case .json:
            let e = ProgressEvent(jobsDone: jobsDone, jobs: jobs, fraction: fraction, frames: frames, fps: fps, etaSeconds: eta)
            if let line = try? JSONSchema.line(e, type: "progress") { Console.error(line) }
        case .none: break
        }
    }

    /// A diagnostic line: on stderr as it is, or with `--progress json` as a `note` or `warning`
    /// event, so that every line there stays JSON.
    func say(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        guard mode == .json else {
            Console.error(line)
            return
        }
        if let l = try? JSONSchema.line(ProgressEvent(diagnostic: line), type: "progress") { Console.error(l) }
    }

    func finish() { if mode == .bar { bar.finish() } }
}
