import ArgumentParser
import SlomoCore
import SlomoKit

struct StretchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stretch",
        abstract: "Time-stretch an audio file: zero-latency, time-domain, spectral, varispeed or mute.",
        discussion: """
            Rates: zero-latency snaps to 1/2, 2/3, 4/5, 1, 5/4, 3/2, 2 (the snapped rate is reported); \
            time-domain (SoundTouch WSOLA) 1/2–2; spectral (Rubber Band R3), varispeed (SoX resampler, pitch \
            follows) and mute 1/32–32. Each segment's length is exact to the sample; segments meet with a \
            10 ms crossfade. Output format from the extension (.wav .flac .aiff .caf .m4a .aac .mka .ogg .mp3). \
            Exit status 64 for rate problems, 65 for unusable audio, 66 for a missing input, 73 for an existing output.
            Examples:
              slomo stretch audio.wav -o slow.wav --rate 1/2 --pitch time-domain
              slomo stretch audio.wav -o ramp.flac --ramp 0.5-1.5@1/4:0.25
            """)

    @Argument(help: "Input (any audio FFmpeg reads, or the audio of a video).", completion: .file()) var input: String
    @Option(name: .shortAndLong, help: "Output audio file.", completion: .file()) var output: String
    @OptionGroup var retime: RetimeOptions
    @Option(parsing: .unconditional, help: "Audio stream index (default: the best audio stream).") var stream: Int?
    @Flag(help: "Replace the output if it exists.") var overwrite = false
    @Flag(help: "Print a JSON summary on stdout.") var json = false

    func run() throws {
        var run = try retime.run(.stretch, input: input, output: output, overwrite: overwrite)
        run.streamIndex = stream
        let report = try AudioStretch.run(try run.stretchRequest())
        if json {
            try JSONOutput.print(report)
            return
        }
        let rates = zip(report.requestedRates, report.rates).map { $0 == $1 ? "\($1)" : "\($0)→\($1)" }
        var line = "\(report.output): \(report.inputFrames) -> \(report.outputFrames) frames at \(report.sampleRate) Hz, "
        line += "\(report.channels) ch, \(report.algorithm) at \(rates.joined(separator: ", "))"
        if report.corruptPackets > 0 { line += "; \(report.corruptPackets) damaged packets skipped" }
        Console.out(line)
    }
}
