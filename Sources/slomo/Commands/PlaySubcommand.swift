import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

struct PlaySubcommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Paced real-time playback at a rate, to stdout, a file or a URL, with commands on stdin.",
        discussion: """
            Video packets are copied (no re-encode) and written on time by the wall clock; audio goes through \
            the time-pitch engine as float PCM. Default output: NUT on stdout, e.g.
              slomo play clip.mp4 --rate 1/4 | mpv -
              slomo play clip.mp4 -o udp://127.0.0.1:1234?pkt_size=1316
            Commands on stdin, one per line: rate 0.25 | pitch time-domain | seek 12.5 | pause | resume | quit. \
            Events are JSON lines on stderr; each command's "applied" event gives its wall-clock latency \
            (latencyMs) and how far after the command's moment the change starts to play in the stream \
            (videoEffectMs, audioEffectMs): at most --lead (default 10 ms) plus one 5 ms audio packet, plus \
            the B-frame reorder depth for video. A command the current state cannot take (a rate outside \
            the algorithm's range) is an "error" event and playback goes on. A file output is written under a \
            temporary name and renamed when playback ends (the input's end or quit); Ctrl-C leaves nothing.
            Examples:
              slomo play clip.mp4 --rate 1/4 | mpv -
              slomo play clip.mp4 --rate 1/2 --pitch varispeed -o take.nut
            """)

    @Argument(help: "Input media file.", completion: .file()) var input: String
    @Option(name: .shortAndLong, help: "'-' (stdout), a file, or a URL FFmpeg can write.", completion: .file()) var output = "-"
    @Option(help: "Container for stdout/URLs (nut, matroska…).") var format: String?
    @Option(parsing: .unconditional, help: "Playback rate (0.25 = quarter speed), 1/32...32.") var rate = "1"
    @Option(
        help:
            "Audio time-pitch algorithm: auto (zero-latency, which reacts fastest, for rates in 1/2...2; spectral outside), zero-latency, time-domain, spectral, varispeed, mute.",
        completion: .list(["auto"] + TimePitchAlgorithm.allCases.map(\.rawValue))) var pitch = "auto"
    @Option(parsing: .unconditional, help: "Start position in seconds; playback starts at the keyframe at or before it (packets are copied).") var start = "0"
    @Option(help: "Milliseconds packets are written ahead of the wall clock (1...1000): more absorbs a slow consumer, less lets commands act sooner.")
    var lead = 10
    @Flag(help: "Leave the audio out.") var noAudio = false
    @Flag(help: "Replace the output file if it exists (never the input).") var overwrite = false

    func run() throws {
        var r = PlayRequest(input: input, output: output)
        r.overwrite = overwrite
        r.format = format
        r.rate = try OptionValues.rational(rate, option: .rate)
        guard r.rate >= Rational(1, 32), r.rate <= Rational(32) else { throw SettingError(.rate, rate, "must be in 1/32...32", quoted: false) }
        r.pitch = pitch
        r.start = try OptionValues.seconds(start, option: .start)
        r.audio = !noAudio
        r.lead = Rational(Int64(lead), 1000)
        try r.validate()
        let queue = PlayCommandQueue()
        Thread.detachNewThread {
            while let line = readLine() {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.isEmpty { continue }
                do { queue.push(try PlayCommand(parsing: text)) } catch {
                    var e = PlayEvent(event: "error")
                    e.message = String(describing: error)
                    if let line = try? JSONSchema.line(e, type: "play") { Console.error(line) }
                }
            }
        }
        try Player(r) { e in
            if let line = try? JSONSchema.line(e, type: "play") { Console.error(line) }
        }.run(commands: queue)
    }
}
