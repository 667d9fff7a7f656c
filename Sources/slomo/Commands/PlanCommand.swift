import ArgumentParser
import SlomoCore
import SlomoKit

struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Resolve --rate/--segment/--ramp against a file and show the speed map and output frame schedule.",
        discussion: """
        Segments: START-END@RATE with times in seconds (2.5), hh:mm:ss.sss or frame numbers (f600), rates as \
        decimals or fractions (1/8). A rate below 1 is slow motion. --ramp START-END@RATE[:RAMP] eases in and out \
        over RAMP seconds (default 0.5) in 8 steps per side. Output frame n shows the last source frame whose pts \
        is at or before the mapped time.
        """)

    @Argument(help: "Media file.") var file: String
    @Option(help: "Rate for the whole clip outside segments (0.5 = half speed).") var rate: String?
    @Option(name: .customLong("segment"), help: "START-END@RATE, repeatable.") var segments: [String] = []
    @Option(name: .customLong("ramp"), help: "START-END@RATE[:RAMP], repeatable.") var ramps: [String] = []
    @Option(help: "Output frame rate for the constant-rate schedule.") var fps = "30"
    @Flag(help: "List every output frame with the source frame it shows.") var frames = false
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let spec = try Values.retimeSpec(rate: rate, segments: segments, ramps: ramps)
        let report = try Planner.plan(path: file, spec: spec, outputFrameRate: try OptionValues.rational(fps, option: "--fps"),
                                      listFrames: frames)
        if json { try JSONOutput.print(report); return }
        Console.out("\(file): \(Seconds(report.sourceDuration)) s source -> \(Seconds(report.targetDuration)) s output, \(report.outputFrames) frames at \(report.outputFrameRate) fps")
        for m in report.mappings {
            Console.out("  \(Seconds(m.sourceStart))-\(Seconds(m.sourceEnd)) s @\(m.rate) -> \(Seconds(m.targetStart))-\(Seconds(m.targetEnd)) s")
        }
        for f in report.schedule ?? [] {
            Console.out("  out \(f.outputFrame)\tt=\(f.targetTime)\tsrc t=\(f.sourceTime)\tsrc frame \(f.sourceFrame)")
        }
    }
}
