import ArgumentParser
import SlomoCore
import SlomoKit

/// Options shared by export, retime and stretch: what to slow down and how the audio follows
/// (the audio's codec and `--no-audio` are export's and retime's: `AudioOutputOptions`).
/// Help texts come from `JobOption`, the table batch manifests and `slomo batch` use too.
struct RetimeOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(JobOption.rate.help)) var rate: String?
    @Option(name: .customLong(JobOption.segments.flag), help: ArgumentHelp(JobOption.segments.help)) var segments: [String] = []
    @Option(name: .customLong(JobOption.ramps.flag), help: ArgumentHelp(JobOption.ramps.help)) var ramps: [String] = []
    @Option(help: ArgumentHelp(JobOption.curve.help)) var curve: String?
    @Option(help: ArgumentHelp(JobOption.pitch.help), completion: .values(of: JobOption.pitch)) var pitch = "spectral"

    /// The job these options and `input`/`output` describe, and how to run it in this process.
    func run(_ command: BatchJob.Command, input: String, output: String, overwrite: Bool) throws -> JobRun {
        var job = BatchJob(input: input, output: output, command: command)
        job.rate = rate
        job.segments = segments
        job.ramps = ramps
        job.curve = curve
        job.pitch = pitch
        var run = try JobRun(job: job)
        run.overwrite = overwrite
        return run
    }
}

/// Export's and retime's own options: their audio track (stretch writes audio only, in its output's
/// format) and how they read a video's timing (an audio file carries neither a stored speed map nor
/// a capture rate).
struct VideoJobOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(JobOption.noAudio.help)) var noAudio = false
    @Option(help: ArgumentHelp(JobOption.audioCodec.help), completion: .values(of: JobOption.audioCodec)) var audioCodec = "auto"
    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp(JobOption.audioStreams.help)) var audioStream: [Int] = []
    @Option(help: "For a file slomo retimed before: read segments on its 'original' timing or the 'current' one.") var relativeTo = "original"
    @Flag(help: ArgumentHelp(JobOption.realTime.help)) var realTime = false

    func apply(to run: inout JobRun) throws {
        run.job.noAudio = noAudio
        run.job.audioCodec = audioCodec
        run.job.audioStreams = audioStream
        switch relativeTo {
        case "original": run.fromOriginal = true
        case "current": run.fromOriginal = false
        default: throw SettingError(.relativeTo, relativeTo, "expected original or current")
        }
        run.job.realTime = realTime
    }
}

struct RetimeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retime",
        abstract: "Retime without re-encoding video: packets copied bit for bit, timestamps mapped per segment.",
        discussion: """
            The output plays the slowed parts slowly at the source's frame rate (variable frame rate). \
            Audio goes through the time-pitch engine and is written in the source's codec where the \
            container holds it, else AAC (--audio-codec); AAC packets are copied where the map plays \
            at rate 1 (--audio-codec auto). The speed map is stored as slomo metadata (see \
            `slomo probe`), so a second retime can start from the original timing.
            Examples:
              slomo retime clip.mp4 -o impact.mp4 --segment 0.25-0.5@1/4
              slomo retime clip.mp4 -o whole.mkv --rate 1/8 --audio-codec flac
              slomo retime clip.mp4 -o part.mp4 --start f60 --end f120 --rate 1/4
            """)

    @Argument(help: "Input media file.", completion: .file()) var input: String
    @Option(name: .shortAndLong, help: "Output file (.mp4, .mov, .mkv).", completion: .file()) var output: String
    @OptionGroup var retime: RetimeOptions
    @OptionGroup var video: VideoJobOptions
    @OptionGroup var trim: TrimOptions
    @Flag(
        help:
            "Where a copy cannot cut at --start or --end (a B-frame's reference, a keyframe), cut at the nearest place it can and say where, instead of refusing."
    )
    var nearestCut = false
    @Flag(help: "Replace the output if it exists.") var overwrite = false
    @Flag(help: "Print a JSON summary on stdout.") var json = false
    @Option(help: "Progress on stderr: auto (bar on a terminal), json (NDJSON events), none.") var progress = "auto"
    @Option(parsing: .unconditional, help: "Accepted as export takes it; retime decodes no video and uses none.") var threads = 0

    func run() throws {
        var run = try retime.run(.retime, input: input, output: output, overwrite: overwrite)
        try video.apply(to: &run)
        trim.apply(to: &run.job)
        let reporter = try ProgressReporter(mode: progress, label: "retime")
        var request = try run.retimeRequest()
        var report: RetimeReport?
        // --nearest-cut: a cut the copy cannot make moves to the nearest one it can (start, then end)
        for attempt in 0..<3 {
            do { report = try Retimer.retime(request) { done, total in reporter.update(done, total) } } catch ExportError.copyCannotCut(
                _, let setting, let value, _, let nearest?)
                where nearestCut && attempt < 2
            {
                if setting == .start { request.trim.start = nearest } else { request.trim.end = nearest }
                Console.error("slomo: note: \(input): \(CLIFailure.flag(setting)) \(value) moved to \(nearest), the nearest place a copy can cut")
                continue
            }
            break
        }
        guard let report else { return }
        reporter.finish()
        DroppedStreamsWarning.lines(input: input, output: output, report.droppedStreams).forEach(Console.error)
        if let r = report.rotationDropped { Console.error(RotationWarning.line(input: input, output: output, degrees: r)) }
        if let t = report.captureRateTag { Console.error("slomo: note: \(output): \(t)") }
        if let damage = DamageSummary.line(report.damage) {
            Console.error("slomo: warning: \(input): damaged input, retimed the packets that are there: \(damage)")
        }
        if json {
            try JSONOutput.print(report)
            return
        }
        if let t = report.trim, t.prerollFrames > 0 {
            Console.error(
                "slomo: \(output): the copy starts at the keyframe at \(Seconds(t.keyframe)) s; its \(t.prerollFrames) frames before \(Seconds(t.sourceStart)) s are hidden by the file's edit list"
            )
        }
        let source =
            report.trim.map { "\(Seconds($0.sourceEnd - $0.sourceStart)) s from \(Seconds($0.sourceStart)) s" } ?? "\(Seconds(report.sourceDuration)) s"
        let copied = report.audioPackets.reduce(0) { $0 + $1.copied }, encoded = report.audioPackets.reduce(0) { $0 + $1.encoded }
        let audio = copied > 0 ? "; audio: \(copied) packets copied, \(encoded) encoded" : ""
        Console.out(
            "\(report.output): \(report.videoPackets) video packets copied, \(source) -> \(Seconds(report.outputDuration)) s, average \(Seconds(report.averageFrameRate)) fps\(report.timestampsRounded ? " (timestamps rounded to \(report.outputTimeBase) s)" : "")\(audio)"
        )
    }
}
