import Foundation
import SlomoCore
import SlomoHDF5
import SlomoSystem
import SlomoTIFF

/// Where `slomo convert` puts frames: each frame's rows in order with its row of the frame table,
/// then `finish` (the file complete under its name) or, on a failure, `abandon` (nothing left that
/// looks finished). A single file is written under a temporary name and renamed when complete; a
/// sequence renames each frame's file into place when it is complete, so the frames written stay
/// readable when a later one fails.
protocol LabSink: AnyObject {
    /// Frames complete under their final names.
    var written: Int { get }
    func write(rows: UnsafeRawPointer, bytesPerRow: Int, row: LabFrameRow) throws
    func finish(rows: [LabFrameRow]) throws
    func abandon()
}

/// What every sink repeats in its tags and attributes: the source, its clock, rate and camera.
struct LabContext {
    var input: String
    var width: Int
    var height: Int
    var samples: LabSamples
    var clock: String
    var frameRate: Rational?
    /// The source's trigger frame, when the recording names one.
    var triggerFrame: Int?
    var tags: [String: String]
    /// Seconds from the recording's clock to UTC (its `creation_time`), when it has one.
    var utcOffset: Rational? = nil
    /// Which command made the file (`convert`, or `capture` writing from the ring).
    var made = "convert"
}

/// A picture per frame, the frame's times in it as JSON (`Description`): a TIFF (`TIFFWriter`, in
/// its ImageDescription), a DNG (a TIFF with `DNGFrame`'s tags: the mosaic's pattern, levels,
/// CinemaDNG rate and time code) or a PNG (`PNGWriter`, in a `Comment` text chunk).
final class ImageSequenceSink: LabSink {
    /// The file each frame is: the `LabOutput`'s `formatName`.
    enum Kind: String { case tiff, dng, png }
    let name: ImageSequenceName
    let context: LabContext
    let kind: Kind
    private(set) var written = 0
    private let encoder = JSONEncoder()

    /// Checks the names the frames will take before any is written: the directory exists (a `DIR/`
    /// that does not is made, in an existing parent) and is writable, and no frame's name exists
    /// unless `overwrite`.
    init(_ name: ImageSequenceName, context: LabContext, frames: Int, overwrite: Bool, makeDirectory: Bool, kind: Kind = .tiff) throws {
        self.name = name
        self.context = context
        self.kind = kind
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if makeDirectory, !FileManager.default.fileExists(atPath: name.directory) {
            do { try FileManager.default.createDirectory(atPath: name.directory, withIntermediateDirectories: false) } catch {
                throw OutputError(name.directory + "/", .writeFailed(errno: OutputFile.systemErrno(of: error)))
            }
        }
        for i in 0..<frames { try OutputFile.check(name.path(i), overwrite: overwrite, inputs: [context.input]) }
    }

    /// The tags' text: the frame's row with its times as exact fractions (rational strings) and
    /// in seconds, the clock, the source.
    struct Description: Encodable {
        var slomo: String
        var index: Int, sourceIndex: Int, fromTrigger: Int
        var time: String, timeSeconds: String, timeFromTrigger: String, timeFromTriggerSeconds: String, duration: String
        var sequence: Int64?
        var clock: String, source: String
        var frameRate: String?
    }

    func write(rows: UnsafeRawPointer, bytesPerRow: Int, row: LabFrameRow) throws {
        let d = Description(
            slomo: context.made, index: row.index, sourceIndex: row.sourceIndex, fromTrigger: row.fromTrigger, time: row.time.description,
            timeSeconds: Seconds(row.time, decimals: 9).fixed, timeFromTrigger: row.timeFromTrigger.description,
            timeFromTriggerSeconds: Seconds(row.timeFromTrigger, decimals: 9).fixed, duration: row.duration.description,
            sequence: row.sequence, clock: context.clock, source: (context.input as NSString).lastPathComponent,
            frameRate: context.frameRate?.description)
        let s = context.samples.format, text = String(decoding: try encoder.encode(d), as: UTF8.self)
        let source = (context.input as NSString).lastPathComponent
        let file = try OutputFile(path: name.path(row.index), overwrite: true)
        if kind == .png {
            let png = try PNGWriter(path: file.temporaryPath, shownAs: file.finalPath)
            try png.write(pngImage(row, description: text, source: source), rows: rows, bytesPerRow: bytesPerRow)
            try png.finish()
        } else {
            var page = TIFFPage(
                width: context.width, height: context.height, samplesPerPixel: s.channels, bitsPerSample: s.bitsPerSample, description: text,
                software: "slomo " + context.made, documentName: source, pageName: "frame \(row.index)")
            if kind == .dng { page.dng = dngFrame(row) }
            let tiff = try TIFFWriter(path: file.temporaryPath, shownAs: file.finalPath)
            try tiff.write(page, rows: rows, bytesPerRow: bytesPerRow)
            try tiff.finish()
        }
        try file.commit()
        written += 1
    }

    /// A PNG's layout and text chunks: the times (`Comment`, the TIFF's ImageDescription), `Title`
    /// (the frame and source), `Software`, and `Source` (the camera, when the recording names it).
    private func pngImage(_ row: LabFrameRow, description: String, source: String) -> PNGImage {
        let s = context.samples
        var text = [(keyword: "Comment", text: description), ("Title", "frame \(row.index) of \(source)"), ("Software", "slomo " + context.made)]
        if let device = context.tags[SlomoTag.device.rawValue] { text.append(("Source", device)) }
        return PNGImage(
            width: context.width, height: context.height, samplesPerPixel: s.format.channels, bitsPerSample: s.format.bitsPerSample,
            significantBits: s.significantBits, text: text)
    }

    func finish(rows: [LabFrameRow]) throws {}
    func abandon() {}

    /// The frame's DNG tags: its time code from its UTC time of day (the recording's clock without
    /// a `creation_time`), the camera from the recording's `slomo_device`.
    private func dngFrame(_ row: LabFrameRow) -> DNGFrame? {
        guard let pattern = context.tags[SlomoTag.cfaPattern.rawValue].flatMap({ DNGFrame.cfaPattern($0) }) else { return nil }
        let rate = DNGFrame.timeCodeRate(context.frameRate)
        return DNGFrame(
            pattern: pattern, bits: context.samples.significantBits, cameraModel: "slomo " + (context.tags[SlomoTag.device.rawValue] ?? "camera"),
            frameRate: context.frameRate, timeCode: DNGFrame.timeCode(row.time + (context.utcOffset ?? .zero), rate: rate))
    }
}

/// One HDF5 file laid out as areaDetector's NDFileHDF5 writes one (Docs/LabFormats.md): the frames
/// in `/entry/data/data`, each frame's numbers in `/entry/instrument/NDAttributes`.
final class HDF5Sink: LabSink {
    let context: LabContext
    private let output: OutputFile
    private var file: HDF5File?
    private var frames: HDF5Frames?
    var written: Int { 0 }  // complete only when renamed into place

    static let data = "/entry/data/data", attributes = "/entry/instrument/NDAttributes"

    init(path: String, context: LabContext, overwrite: Bool) throws {
        self.context = context
        output = try OutputFile(path: path, overwrite: overwrite, inputs: [context.input])
        let f = try HDF5File(creating: output.temporaryPath, shownAs: path)
        file = f
        try f.makeGroup("/entry", nxClass: "NXentry")
        try f.makeGroup("/entry/data", nxClass: "NXdata")
        try f.setAttribute("signal", "data", at: "/entry/data")
        try f.makeGroup("/entry/instrument", nxClass: "NXinstrument")
        try f.makeGroup("/entry/instrument/detector", nxClass: "NXdetector")
        try f.makeGroup(Self.attributes, nxClass: "NXcollection")
        frames = try HDF5Frames(
            in: f, name: Self.data, width: context.width, height: context.height, bitsPerSample: context.samples.format.bitsPerSample)
        try f.link(Self.data, as: "/entry/instrument/detector/data")
    }

    func write(rows: UnsafeRawPointer, bytesPerRow: Int, row: LabFrameRow) throws {
        try frames!.append(rows: rows, bytesPerRow: bytesPerRow)
    }

    func finish(rows: [LabFrameRow]) throws {
        guard let f = file, let frames else { return }
        try frames.finish()
        let a = Self.attributes
        func ns(_ r: Rational) throws -> Int64 { try r.ticks(in: Rational(1, 1_000_000_000), rounding: .nearest) }
        try f.write(rows.map { Int32(truncatingIfNeeded: $0.sequence ?? Int64($0.sourceIndex)) }, to: a + "/NDArrayUniqueId")
        try f.write(rows.map { $0.time.doubleValue }, to: a + "/NDArrayTimeStamp")
        try f.write(rows.map { Int64($0.index) }, to: a + "/FrameIndex")
        try f.write(rows.map { Int64($0.sourceIndex) }, to: a + "/SourceIndex")
        try f.write(rows.map { Int64($0.fromTrigger) }, to: a + "/FromTrigger")
        try f.write(try rows.map { try ns($0.time) }, to: a + "/TimeNs")
        try f.write(try rows.map { try ns($0.timeFromTrigger) }, to: a + "/TimeFromTriggerNs")
        try f.write(try rows.map { try ns($0.duration) }, to: a + "/DurationNs")
        try f.write(rows.map { $0.sequence ?? -1 }, to: a + "/Sequence")
        try describe(f)
        try f.finish()
        file = nil
        try output.commit()
    }

    /// The source, clock, rate, samples and camera as attributes of `/entry` and the data.
    private func describe(_ f: HDF5File) throws {
        let c = context
        try f.setAttribute("source", (c.input as NSString).lastPathComponent, at: "/entry")
        try f.setAttribute("clock", c.clock, at: "/entry")
        if let r = c.frameRate {
            try f.setAttribute("frame_rate", r.description, at: "/entry")
            try f.setAttribute("frame_rate_fps", r.doubleValue, at: "/entry")
        }
        if let t = c.triggerFrame { try f.setAttribute("trigger_frame", Int64(t), at: "/entry") }
        for (k, v) in c.tags.sorted(by: { $0.key < $1.key }) { try f.setAttribute(k, v, at: "/entry") }
        try f.setAttribute("sample_format", c.samples.format.rawValue, at: Self.data)
        try f.setAttribute("source_pixel_format", c.samples.source, at: Self.data)
        try f.setAttribute("significant_bits", Int64(c.samples.significantBits), at: Self.data)
    }

    func abandon() {
        frames = nil
        file = nil
        output.discard()
    }
}
