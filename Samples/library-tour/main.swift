// A library sample: the whole slomo job through SlomoKit, as a program of your own would do it.
//   1. enumerate a camera's formats (a V4L2 device, or a saved `v4l2-ctl --list-formats-ext` text),
//   2. pick the highest-rate mode,
//   3. generate a calibration clip at that rate (a stand-in for capturing: every frame carries its
//      index; `slomo capture` records from the device itself),
//   4. export it at half speed to 30 fps with spectral audio,
//   5. check that each output frame shows the source frame the schedule says.
//
//   swift run library-tour [/dev/videoN | LISTING] [OUTPUT_DIR]
// Without arguments: /dev/video0 if there is one, else camera-listing.txt beside this file.
import Foundation
import SlomoCore
import SlomoKit
import SlomoSystem

let args = Array(CommandLine.arguments.dropFirst())
let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("camera-listing.txt").path
let source = args.first ?? (FileManager.default.fileExists(atPath: "/dev/video0") ? "/dev/video0" : bundled)
let dir = args.count > 1 ? args[1] : FileManager.default.temporaryDirectory.appendingPathComponent("slomo-library-tour").path

do {
    ProcessSignals.own()  // the application owns SIGINT/SIGTERM/SIGUSR1: Ctrl-C removes a partial output
    SlomoSetup.configure()
    // 1–2: the catalog and the selection (ties go to compressed formats, then the larger size)
    let report =
        source.hasPrefix("/dev/")
        ? try DeviceService.formats(device: source, request: ModeRequest(), apply: false)
        : try DeviceService.formats(listing: source, request: ModeRequest())
    let modes = report.catalog.formats.reduce(0) { $0 + $1.sizes.count }
    guard let best = report.maxFps else {
        FileHandle.standardError.write(Data("library-tour: \(source): no mode with a known frame rate\n".utf8))
        exit(1)
    }
    let rate = Rational.one / best.frameDuration
    print("\(source): \(report.catalog.formats.count) formats, \(modes) sizes; highest rate: \(best.pixelFormat) \(best.width)x\(best.height) at \(rate) fps")

    // 3: one second at that rate (size capped at 640x360 to keep the sample quick)
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let clip = dir + "/clip.mp4", slow = dir + "/clip-half-speed-30fps.mp4"
    var g = GenerateRequest(
        output: clip, frameRate: rate, duration: Rational(1),
        width: min(best.width, 640), height: min(best.height, 360))
    g.overwrite = true
    let written = try Generator.generate(g)

    // 4: half speed, 30 fps, pitch kept
    var e = ExportRequest(input: clip, output: slow, spec: RetimeSpec(rate: Rational(1, 2)))
    e.frameRate = Rational(30)
    e.pitch = "spectral"
    e.overwrite = true
    let exported = try Exporter.export(e)
    print(
        "\(clip): \(written.frames) frames → \(slow): \(exported.outputFrames) frames at 30 fps (\(exported.outputDuration) s), decoded \(exported.decodedPackets) of \(exported.sourceFrames)"
    )

    // 5: the frames the output shows against the schedule
    let plan = try Planner.plan(path: clip, spec: RetimeSpec(rate: Rational(1, 2)), outputFrameRate: Rational(30), listFrames: true)
    let expected = plan.schedule?.map(\.sourceFrame) ?? []
    let shown = try Prober.probe(path: slow, frames: true).frames?.map(\.calibrationIndex) ?? []
    let agree = !expected.isEmpty && shown == expected.map(Optional.init)
    print("output frames show the scheduled source frames: \(agree) (first: \(shown.prefix(6).map { $0.map(String.init) ?? "?" }.joined(separator: " ")))")
    exit(agree ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("library-tour: \(error)\n".utf8))
    exit(1)
}
