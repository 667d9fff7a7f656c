import ArgumentParser
import SlomoCore
import SlomoKit

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Describe a media file: container, streams, exact and measured frame rates, slomo metadata.",
        discussion: """
            With --frames, decodes the video and lists every frame with its exact pts and calibration index.
            Examples:
              slomo probe clip.mp4
              slomo probe clip.mp4 --frames --json
            """)

    @Argument(help: "Media file.", completion: .file()) var file: String
    @Flag(help: "Print JSON (stable keys, Docs/JSON.md).") var json = false
    @Flag(help: "Decode the video and list every frame (pts, keyframe, calibration index).") var frames = false

    func run() throws {
        let report = try Prober.probe(path: file, frames: frames)
        if json { try JSONOutput.print(report) } else { printTable(report) }
        if let damage = DamageSummary.line(report.damage) { throw CommandLineError("\(file): \(damage)", .badData) }
    }

    /// Handler names muxers write when the source had none: not a name anyone gave the track.
    static let defaultHandlers: Set<String> = ["VideoHandler", "SoundHandler", "SubtitleHandler", "DataHandler", "ISO Media file produced by Google Inc."]

    func printTable(_ report: ProbeReport) {
        let c = report.container
        Console.out(
            "\(report.path): \(c.formatLongName) (\(c.format)), duration \(c.duration.map { "\(Seconds($0)) s" } ?? "unknown"), \(c.bitRate / 1000) kb/s")
        for s in report.streams {
            var line = "  #\(s.index) \(s.kind) \(s.codec)"
            if s.kind == "video" {
                line += " \(s.width ?? 0)x\(s.height ?? 0) \(s.pixelFormat ?? "?")"
                line += ", nominal \(s.nominalFrameRate.map { "\($0)" } ?? "?") fps"
                line += ", measured \(s.measuredFrameRate.map { "\($0) (\(Seconds($0)))" } ?? "?") fps"
                line += s.variableFrameRate.map { $0 ? " VFR" : " CFR" } ?? ""
                line += ", \(s.frameCount ?? 0) frames"
                if let r = s.rotation, r != 0 { line += ", rotation \(r)°" }
            } else if s.kind == "audio" {
                line += " \(s.sampleRate ?? 0) Hz \(s.channelLayout ?? "\(s.channels ?? 0) ch") \(s.sampleFormat ?? "")"
            }
            if let d = s.duration { line += ", \(Seconds(d)) s" }
            // the track's language and name (a title, or a handler name that is not a muxer's default)
            let tags = Dictionary(s.metadata.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
            if let lang = tags["language"], lang != "und" { line += ", language \(lang)" }
            if let name = tags["title"] ?? tags["handler_name"].flatMap({ Self.defaultHandlers.contains($0) ? nil : $0 }) { line += ", '\(name)'" }
            if s.corruptPackets > 0 { line += ", \(s.corruptPackets) corrupt packets" }
            Console.out(line)
        }
        if let m = report.slowMotion {
            Console.out(
                "  slow motion: captured at \(DecimalText.fps(Rational.one / m.captureFrameRate)) fps, plays at \(DecimalText.fps(Rational.one / m.storedFrameRate)) fps: \(m.realTimeSpeed) of real time (\(m.source); --real-time takes rates against real time)"
            )
        }
        if let m = report.slomo {
            Console.out("  slomo metadata:")
            for (k, v) in m.sorted(by: { $0.key < $1.key }) { Console.out("    \(k) = \(v)") }
        }
        if let f = report.frames {
            Console.out("  frames (pts s, keyframe, calibration index):")
            for e in f {
                Console.out("    \(e.pts)\t\(e.seconds.map { String($0) } ?? "?")\t\(e.keyframe ? "K" : "-")\t\(e.calibrationIndex.map(String.init) ?? "-")")
            }
            if let n = report.decodeErrors, n > 0 { Console.out("  \(n) decode errors") }
        }
    }
}
