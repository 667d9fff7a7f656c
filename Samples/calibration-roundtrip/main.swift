// A library sample: write a calibration clip with SlomoKit, read every frame's index back,
// and show which source frame a half-speed 30 fps export would put at each output frame.
//   swift run calibration-roundtrip /tmp/sample.mp4
import Foundation
import SlomoCore
import SlomoKit
import SlomoSystem

let path = CommandLine.arguments.dropFirst().first ?? FileManager.default.temporaryDirectory.appendingPathComponent("slomo-sample.mp4").path
do {
    ProcessSignals.own()  // the application owns SIGINT/SIGTERM/SIGUSR1: Ctrl-C removes a partial output
    SlomoSetup.configure()
    var request = GenerateRequest(output: path, frameRate: Rational(240), duration: Rational(1, 2), width: 320, height: 180)
    request.overwrite = true
    let written = try Generator.generate(request)
    let probe = try Prober.probe(path: path, frames: true)
    let indices = probe.frames?.compactMap(\.calibrationIndex) ?? []
    let intact = indices == Array(0..<Int(written.frames))
    print("\(path): wrote \(written.frames) frames, read back \(indices.count) indices, in order: \(intact)")
    let plan = try Planner.plan(path: path, spec: RetimeSpec(rate: Rational(1, 2)), outputFrameRate: Rational(30), listFrames: true)
    let shown = plan.schedule?.prefix(8).map { String($0.sourceFrame) }.joined(separator: " ") ?? ""
    print("half speed at 30 fps: \(plan.outputFrames) output frames; the first show source frames \(shown)")
    exit(intact ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("calibration-roundtrip: \(error)\n".utf8))
    exit(1)
}
