import ArgumentParser
import SlomoCore
import SlomoKit

/// Options shared by retime and export: what to slow down and how the audio follows.
struct RetimeOptions: ParsableArguments {
    @Option(help: "Rate for the whole clip outside segments (0.5 = half speed; fractions like 1/8 allowed).") var rate: String?
    @Option(name: .customLong("segment"), help: "START-END@RATE (seconds, hh:mm:ss.sss or f600 frame numbers), repeatable.") var segments: [String] = []
    @Option(name: .customLong("ramp"), help: "START-END@RATE[:RAMP] eased in and out over RAMP seconds (default 0.5), repeatable.") var ramps: [String] = []
    @Option(help: "T0@R0,T1@R1,… a smooth speed curve: between key points the slowdown (1/rate) moves linearly in source time; the first rate holds before it, the last after it (Docs/Curves.md).") var curve: String?
    @Option(help: "Audio time-pitch algorithm: spectral, time-domain, zero-latency, varispeed, mute.") var pitch = "spectral"
    @Flag(help: "Leave the audio out.") var noAudio = false
    @Option(help: "Audio encoder: auto (the source's codec where the container holds it, else AAC), aac, opus, mp3, vorbis, flac, alac, pcm, pcm24, pcm-float.") var audioCodec = "auto"
    @Option(help: "For a file slomo retimed before: read segments on its 'original' timing or the 'current' one.") var relativeTo = "original"
    @Flag(help: "Rates are relative to real time, for a phone's slow-motion file that records its capture rate (com.android.capture.fps; see 'slomo probe'). Times stay the file's.") var realTime = false

    func spec() throws -> RetimeSpec { try Values.retimeSpec(rate: rate, segments: segments, ramps: ramps, curve: curve) }

    func fromOriginal() throws -> Bool {
        switch relativeTo {
        case "original": return true
        case "current": return false
        default: throw SimpleFailure("--relative-to '\(relativeTo)': expected original or current", .usage)
        }
    }
}

struct RetimeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retime",
        abstract: "Retime without re-encoding video: packets copied bit for bit, timestamps mapped per segment.",
        discussion: """
        The output plays the slowed parts slowly at the source's frame rate (variable frame rate). \
        Audio goes through the time-pitch engine and is encoded as AAC. The speed map is stored as \
        slomo metadata (see `slomo probe`), so a second retime can start from the original timing.
        Example: slomo retime in.mp4 -o out.mp4 --segment 2-4@1/4
        """)

    @Argument(help: "Input media file.") var input: String
    @Option(name: .shortAndLong, help: "Output file (.mp4, .mov, .mkv).") var output: String
    @OptionGroup var retime: RetimeOptions
    @Flag(help: "Replace the output if it exists.") var overwrite = false
    @Flag(help: "Print a JSON summary on stdout.") var json = false
    @Option(help: "Threads (accepted for batch symmetry; retime decodes no video).") var threads = 0
    @Option(help: .hidden) var jobKey: String?

    func run() throws {
        var r = RetimeRequest(input: input, output: output, spec: try retime.spec())
        r.pitch = retime.pitch
        r.audio = !retime.noAudio
        r.audioCodec = retime.audioCodec
        r.overwrite = overwrite
        r.fromOriginal = try retime.fromOriginal()
        r.realTime = retime.realTime
        r.jobKey = jobKey
        let report = try Retimer.retime(r)
        if let r = report.rotationDropped { Console.error(RotationWarning.line(input: input, output: output, degrees: r)) }
        if let damage = DamageSummary.line(report.damage) {
            Console.error("slomo: warning: \(input): damaged input, retimed the packets that are there: \(damage)")
        }
        if json { try JSONOutput.print(report); return }
        Console.out("\(report.output): \(report.videoPackets) video packets copied, \(Seconds(report.sourceDuration)) s -> \(Seconds(report.outputDuration)) s, average \(Seconds(report.averageFrameRate)) fps\(report.timestampsRounded ? " (timestamps rounded to \(report.outputTimeBase) s)" : "")")
    }
}
