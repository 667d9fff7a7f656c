import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Resolve --rate/--segment/--ramp/--curve against a file and show the speed map and output frame schedule.",
        discussion: """
            Segments: START-END@RATE with times in seconds (2.5), hh:mm:ss.sss or frame numbers (f600), rates as \
            decimals or fractions (1/8). A rate below 1 is slow motion. --ramp START-END@RATE[:RAMP] eases in and out \
            over RAMP seconds (default 0.5), smoothly. --curve T0@R0,T1@R1,… is a speed curve whose slowdown (1/rate) \
            moves linearly between key points (Docs/Curves.md). Output frame n shows the last source frame whose pts \
            is at or before the mapped time.
            Examples:
              slomo plan clip.mp4 --segment 0.25-0.5@1/4 --frames
              slomo plan clip.mp4 --curve 0@1,0.25@1,0.5@1/4,0.75@1 \\
                  --plot curve.svg
            """)

    @Argument(help: "Media file.", completion: .file()) var file: String
    @Option(parsing: .unconditional, help: "Rate for the whole clip outside segments (0.5 = half speed).") var rate: String?
    @Option(name: .customLong("segment"), help: "START-END@RATE, repeatable.") var segments: [String] = []
    @Option(name: .customLong("ramp"), help: "START-END@RATE[:RAMP], repeatable.") var ramps: [String] = []
    @Option(help: "T0@R0,T1@R1,… a smooth speed curve (slowdown linear between key points; Docs/Curves.md).") var curve: String?
    @Option(parsing: .unconditional, help: "Output frame rate for the constant-rate schedule.") var fps = "30"
    @Option(
        help: ArgumentHelp(JobOption.frameBlend.help + " Counts the output frames that fall between source frames."),
        completion: .values(of: JobOption.frameBlend)) var frameBlend: String?
    @Option(help: "Draw speed and output time against source time into this SVG file.", completion: .file(extensions: ["svg"])) var plot: String?
    @OptionGroup var trim: TrimOptions
    @Flag(help: "List every output frame with the source frame it shows.") var frames = false
    @Flag(help: "List every step of a ramp (by default each ramp is one line; --json always lists them).") var steps = false
    @Flag(help: "Print JSON.") var json = false

    func blend() throws(SettingError) -> ExportRequest.FrameBlend? {
        guard let frameBlend else { return nil }
        guard let b = ExportRequest.FrameBlend(rawValue: frameBlend) else {
            throw SettingError(JobOption.frameBlend.setting, frameBlend, "\(OptionValues.expected(ExportRequest.FrameBlend.self))")
        }
        return b
    }

    func run() throws {
        let spec = try Values.retimeSpec(rate: rate, segments: segments, ramps: ramps, curve: curve)
        if let plot { try OutputFile.check(plot, overwrite: true) }
        let report = try Planner.plan(
            path: file, spec: spec, outputFrameRate: try OptionValues.rational(fps, option: .fps),
            listFrames: frames, frameBlend: try blend(),
            trim: try SourceTrim.parse(start: trim.start, end: trim.end))
        if let plot { try OutputFile.write(Data(PlanPlot.svg(report).utf8), to: plot) }
        if json {
            try JSONOutput.print(report)
            return
        }
        Console.out(
            "\(file): \(Seconds(report.sourceDuration)) s source -> \(Seconds(report.targetDuration)) s output, \(report.outputFrames) frames at \(report.outputFrameRate) fps"
        )
        if let c = report.curve {
            Console.out("  curve \(c.text): \(report.mappings.count) pieces, exact at every source frame")
            for k in c.keys { Console.out("    key \(Seconds(k.sourceTime)) s @\(k.rate) -> \(Seconds(k.targetTime)) s") }
        }
        if let t = report.trim {
            Console.out(
                "  kept: source \(Seconds(t.sourceStart))-\(Seconds(t.sourceEnd)) s, which the whole map puts at \(Seconds(t.targetStart))-\(Seconds(t.targetEnd)) s (the output starts at 0)"
            )
        }
        let curveRange = report.curve.map { ($0.keys.first!.sourceTime, $0.keys.last!.sourceTime) }
        let pieces = report.mappings.filter { m in curveRange.map({ m.sourceEnd <= $0.0 || m.sourceStart >= $0.1 }) ?? true }
        for line in Self.lines(pieces, stepsUnder: steps ? nil : report.sourceFrameRate.map { Rational(2) / $0 } ?? Rational(1, 20)) {
            Console.out("  " + line)
        }
        if let u = report.frameUse {
            Console.out(
                "  frames: \(u.atSourceFrames) at a source frame's time, \(u.between) between \(u.pairs) source pairs: \(u.betweenFrames) by --frame-blend \(u.frameBlend)"
            )
        }
        for f in frames ? report.schedule ?? [] : [] {
            Console.out("  out \(f.outputFrame)\tt=\(f.targetTime)\tsrc t=\(f.sourceTime)\tsrc frame \(f.sourceFrame)")
        }
    }

    /// The map's pieces, one line each, except that a run of three or more pieces each shorter than
    /// `stepsUnder` (a ramp's steps, one per source frame) is one line: its span, the rates it
    /// eases between and how many steps. Nil: every piece.
    static func lines(_ pieces: [PlanReport.Mapping], stepsUnder: Rational?) -> [String] {
        var out: [String] = [], i = 0
        func short(_ m: PlanReport.Mapping) -> Bool { stepsUnder.map { m.sourceEnd - m.sourceStart < $0 } ?? false }
        while i < pieces.count {
            var j = i
            while j < pieces.count, short(pieces[j]) { j += 1 }
            if j - i >= 3 {
                let a = pieces[i], b = pieces[j - 1]
                out.append(
                    "\(Seconds(a.sourceStart))-\(Seconds(b.sourceEnd)) s eases @\(Seconds(a.rate, decimals: 3))…\(Seconds(b.rate, decimals: 3)) in \(j - i) steps"
                        + " -> \(Seconds(a.targetStart))-\(Seconds(b.targetEnd)) s (--steps lists them)")
                i = j
                continue
            }
            let m = pieces[i]
            out.append("\(Seconds(m.sourceStart))-\(Seconds(m.sourceEnd)) s @\(m.rate) -> \(Seconds(m.targetStart))-\(Seconds(m.targetEnd)) s")
            i += 1
        }
        return out
    }
}
