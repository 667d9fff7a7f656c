import ArgumentParser
import SlomoCore
import SlomoKit

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a calibration clip whose frames carry their own index.",
        discussion: """
            Every frame has a machine-readable code in its top band (read back by `slomo probe --frames`) \
            and its index as digits. The audio is a 1 kHz tone with a click every 250 ms.
            Examples:
              slomo generate --fps 240 --duration 2 --size 640x360 \\
                  -o calibration.mp4
              slomo generate --fps 30000/1001 --duration 1 --codec mjpeg \\
                  -o ntsc.mov
            """)

    @Option(name: .shortAndLong, help: "Output file (.mp4, .mov, .mkv, .nut).", completion: .file()) var output: String
    @Option(parsing: .unconditional, help: "Frame rate: integer, decimal or fraction (30000/1001), 1...1000.") var fps = "240"
    @Option(parsing: .unconditional, help: "Duration in seconds (decimal or fraction).") var duration = "2"
    @Option(help: "Frame size WIDTHxHEIGHT (even numbers).") var size = "640x360"
    @Option(help: "Video codec: h264, mjpeg or ffv1.", completion: .values(of: GenerateRequest.VideoCodec.self)) var codec = "h264"
    @Option(help: "x264 preset (h264 only).") var preset = "veryfast"
    @Option(parsing: .unconditional, help: "x264 constant rate factor 0...51 (h264 only).") var crf = 18
    @Option(parsing: .unconditional, help: "Keyframe interval in frames (default: one second).") var gop: Int?
    @Option(parsing: .unconditional, help: "h264: only every Nth frame is a reference frame (2...17), like slomo's capture GOP.") var referenceInterval: Int?
    @Option(help: "Audio sample rate in Hz.") var sampleRate = 48_000
    @Flag(help: "Leave out the audio track.") var noAudio = false
    @Flag(help: "Replace the output if it exists.") var overwrite = false
    @Flag(help: "Print a JSON summary on stdout.") var json = false

    func run() throws {
        let (w, h) = try OptionValues.size(size, option: .size)
        if let note = OptionValues.ntscNote(fps, option: .fps) { Console.error("slomo: note: " + note.rendered(naming: CLIFailure.flag)) }
        var r = GenerateRequest(
            output: output, frameRate: try OptionValues.frameRate(fps, option: .fps),
            duration: try OptionValues.rational(duration, option: .duration), width: w, height: h)
        guard let c = GenerateRequest.VideoCodec(rawValue: codec) else {
            throw SettingError(.codec, codec, "\(OptionValues.expected(GenerateRequest.VideoCodec.self))")
        }
        r.codec = c
        r.preset = preset
        r.crf = crf
        r.gop = gop
        r.referenceInterval = referenceInterval
        r.sampleRate = sampleRate
        r.audio = !noAudio
        r.overwrite = overwrite
        let progress = Progress(label: "generate")
        let report = try Generator.generate(r) { done, total in progress.update(done, total) }
        progress.finish()
        if json {
            try JSONOutput.print(report)
        } else {
            Console.out(
                "\(report.output): \(report.frames) frames at \(report.frameRate) fps, \(report.width)x\(report.height) \(report.videoCodec)\(report.audioCodec.map { " + \($0)" } ?? "")"
            )
        }
    }
}
