import ArgumentParser
import SlomoCore
import SlomoKit

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract:
            "Write a recording's frames as a lab reads them: a TIFF, PNG or DNG sequence, an HDF5 file, a Phantom Cine file or a Photron MRAW take, each frame's time beside it.",
        discussion: """
            The format follows -o: DIR/ or name_%06d.tiff (a TIFF per frame, 8/16-bit gray or RGB, its times in \
            ImageDescription), name.h5 (HDF5, frames [n, height, width] as areaDetector writes them), name.cine \
            (Phantom Cine: 8/16-bit gray or an RGGB/GBRG mosaic, a time and an exposure per frame, the trigger \
            frame image 0), name.mraw (Photron MRAW: 8/16-bit gray or a Bayer mosaic back to back, little-endian, \
            with name.cihx: size, depth, rate, frame count, start frame from the trigger; no per-frame time), name_%06d.dng (a DNG per frame of a Bayer mosaic, with CinemaDNG's rate and time code), \
            name_%06d.png (a PNG per frame, 8/16-bit gray or RGB, zlib level 1; 10-12-bit samples scaled to 16 with \
            sBIT; its times in a Comment text chunk; a Bayer mosaic is refused: write DNG or TIFF). \
            Raw and FFV1 \
            recordings keep every sample exactly; from a lossy input the decoded pictures are written and a note \
            says so. --start/--end keep the frames whose own time lies in [start, end). Beside the output, \
            frames.csv (a sequence's directory) or OUT.frames.csv lists each frame's index, index from the \
            trigger frame, time, time from the trigger, duration and sequence number (Docs/LabFormats.md).
            Examples:
              slomo convert shot.mkv -o frames/
              slomo convert shot.mkv -o take.h5 --start f10 --end f40
              slomo convert shot.mkv -o take.cine
            """)

    @Argument(help: "A slomo recording or any file FFmpeg reads.", completion: .file()) var input: String
    @Option(name: .shortAndLong, help: "Output: DIR/, name_%06d.tiff, name_%06d.png, name.h5, name.cine, name.mraw or name_%06d.dng.", completion: .file())
    var output: String
    @OptionGroup var trim: TrimOptions
    @Option(help: "The frame table's path (default: frames.csv in a sequence's directory, OUT.frames.csv beside a file).", completion: .file())
    var framesCsv: String?
    @Option(help: "Progress on stderr: auto (bar on a terminal), json (NDJSON events), none.") var progress = "auto"
    @Flag(help: "Replace the output (and its frame table) if it exists.") var overwrite = false
    @Flag(help: "Print a JSON summary with every frame's row on stdout (Docs/JSON.md).") var json = false

    func run() throws {
        var request = ConvertRequest(input: input, output: output)
        request.trim = try SourceTrim.parse(start: trim.start, end: trim.end)
        request.framesTable = framesCsv
        request.overwrite = overwrite
        let reporter = try ProgressReporter(mode: progress, label: "convert")
        let report = try Converter.convert(request) { done, total in reporter.update(done, total) }
        reporter.finish()
        if let note = report.note { reporter.say("slomo: note: \(input): \(note)") }
        if let damage = DamageSummary.line(report.damage) {
            reporter.say("slomo: warning: \(input): damaged input, converted what decodes: \(damage)")
        }
        if json {
            try JSONOutput.print(report)
            return
        }
        let files = report.firstFile.map { " (\($0) … \(report.lastFile ?? $0))" } ?? ""
        Console.out(
            "\(report.output): \(report.frameCount) frames \(report.width)x\(report.height) \(report.sampleFormat)\(files), \(report.exact ? "samples exact" : "samples decoded"); times in \(report.framesTable)"
        )
    }
}
