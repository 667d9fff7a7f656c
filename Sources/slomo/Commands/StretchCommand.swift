import ArgumentParser
import SlomoCore
import SlomoKit

struct StretchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stretch",
        abstract: "Time-stretch an audio file: zero-latency, time-domain, spectral, varispeed or mute.",
        discussion: """
        Rates: zero-latency snaps to 1/2, 2/3, 4/5, 1, 5/4, 3/2, 2; time-domain (SoundTouch WSOLA) 0.5–2; \
        spectral (Rubber Band R3) and varispeed (SoX resampler, pitch follows) 1/32–32. Output length is exact \
        to the sample. Output format from the extension (.wav .flac .m4a .mka .ogg .caf).
        Example: slomo stretch voice.wav -o slow.wav --rate 1/2 --pitch time-domain
        """)

    @Argument(help: "Input (any audio FFmpeg reads, or the audio of a video).") var input: String
    @Option(name: .shortAndLong, help: "Output audio file.") var output: String
    @OptionGroup var retime: RetimeOptions
    @Flag(help: "Replace the output if it exists.") var overwrite = false
    @Flag(help: "Print a JSON summary on stdout.") var json = false

    func run() throws {
        var r = StretchRequest(input: input, output: output, spec: try retime.spec())
        r.pitch = retime.pitch
        r.overwrite = overwrite
        let report = try Stretch.run(r)
        if json { try JSONOutput.print(report); return }
        Console.out("\(report.output): \(report.inputFrames) -> \(report.outputFrames) samples at \(report.sampleRate) Hz (\(report.algorithm), rate \(report.rates.map(\.description).joined(separator: ", ")))\(report.corruptPackets > 0 ? ", \(report.corruptPackets) corrupt packets skipped" : "")")
    }
}
