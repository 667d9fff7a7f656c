import Foundation
import SlomoCore
import SlomoFFmpeg

/// A capture written straight into a lab format (`capture -o shot.cine | shot.mraw | shot.h5 | frames/ | f_%06d.png`), from
/// the camera's own samples as the ring holds them: the same sinks as `slomo convert` (Docs/LabFormats.md),
/// with each frame's kernel (or camera) time, its time from the trigger frame and its duration.
/// A frame is stored when the next one arrives (its duration is then known exactly); the last one
/// lasts a frame period. The file appears under its name only when complete (a sequence: each
/// frame's file when it is), and `frames.csv` beside it.
final class LabFrameFile: FrameFile {
    let settings: RecordingSettings
    let format: CaptureFormat
    let sourceName: String
    let labOutput: LabOutput
    let samples: LabSamples
    /// Most frames a `.cine` may hold (its image table, reserved before the first frame); nil for the others.
    let capacity: Int?
    var metadata: [String: String] = [:]
    var audio: AudioCapture?
    private(set) var framesWritten: Int64 = 0
    private(set) var bytesWritten: Int64 = 0
    var output: String { settings.output }
    var audioCodec: String { "" }
    var audioFramesWritten: Int64 { 0 }
    var capturedAudio: CapturedAudio? { nil }
    var syncs: FileSyncs { FileSyncs() }
    private var clock = "CLOCK_MONOTONIC"
    private var sink: (any LabSink)?
    private var rows: [LabFrameRow] = []
    /// The frame held until the next one arrives: its rows of samples and its time.
    private var held: [UInt8]
    private var heldTime: Rational?
    private var heldSequence: Int64?
    private var trigger: (index: Int, time: Rational?) = (0, nil)
    private let rowBytes: Int

    /// Checks before the camera streams that the format holds the camera's samples as they come
    /// (uncompressed, one plane, gray, RGB or a mosaic) and that the names are free.
    init(settings: RecordingSettings, format: CaptureFormat, sourceName: String, frames: Int?) throws {
        self.settings = settings
        self.format = format
        self.sourceName = sourceName
        let path = settings.output
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        labOutput = try LabOutput(parsing: path, isDirectory: exists && isDirectory.boolValue)
        guard let row = format.pixels, let name = row.ffmpeg, row.codec == nil, format.planes.count == 1 else {
            throw LabOutputError(
                path, "the camera gives \(format.fourcc), not samples a lab file holds as they come: record name.mkv (--codec ffv1) and slomo convert it")
        }
        let s = LabSamples(pixelFormat: name, bitDepth: PixelFormat(name: name)?.bitDepth ?? 0)
        guard s.fidelity == .same else {
            throw LabOutputError(
                path, "the camera gives \(format.fourcc) (\(name)), which a lab file holds only converted: record name.mkv (--codec ffv1) and slomo convert it")
        }
        try s.check(fits: labOutput, path: path, mosaic: format.bayerPattern)
        samples = s
        rowBytes = format.width * s.format.bytesPerPixel
        guard format.bytesPerLine >= rowBytes else {
            throw LabOutputError(path, "the camera's rows (\(format.bytesPerLine) bytes) are shorter than \(format.width) samples")
        }
        if case .cine = labOutput, frames == nil {
            throw LabOutputError(
                path, "a .cine reserves its image table before the first frame: give --frames or --duration, or record name.h5 or DIR/ (they grow)")
        }
        if case .cine = labOutput { capacity = frames } else { capacity = nil }  // the others grow
        held = [UInt8](repeating: 0, count: format.bytesPerLine * format.height)
        if let name = labOutput.sequence {
            // a pattern's directory must exist (only `DIR/` is made): said now, before the camera streams
            if !path.hasSuffix("/") { try OutputFile.check(framesTable, overwrite: true, inputs: []) }
            if !settings.overwrite { try Self.checkFree(name) }
        } else {
            try OutputFile.check(framesTable, overwrite: settings.overwrite, inputs: [])
        }
    }

    /// Refuses a sequence whose directory already holds frames of the same name (a capture does not
    /// know how many frames it will write, so it checks them all).
    static func checkFree(_ name: ImageSequenceName) throws {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: name.directory)) ?? []
        if let taken = files.sorted().first(where: { $0.hasPrefix(name.prefix) && $0.hasSuffix(name.suffix) }) {
            throw OutputError(name.directory + "/" + taken, .exists)
        }
    }

    var framesTable: String { labOutput.sequence?.framesTable ?? settings.output + ".frames.csv" }

    func prepare() throws {}

    func stampClock(_ c: TimestampClock?) {
        if let c { clock = c.clock.rawValue }
    }

    func write(_ bytes: UnsafeRawBufferPointer, timestamp: Rational) throws -> Bool { try write(bytes, timestamp: timestamp, sequence: nil) }

    func write(_ bytes: UnsafeRawBufferPointer, timestamp: Rational, sequence: UInt64?) throws -> Bool {
        guard bytes.count >= format.bytesPerLine * (format.height - 1) + rowBytes else { return false }
        if sink == nil { try open() }
        if let t = heldTime { try store(duration: timestamp - t) }
        held.withUnsafeMutableBytes { h in h.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(h.count))) }
        heldTime = timestamp
        heldSequence = sequence.flatMap { Int64(exactly: $0) }
        return true
    }

    /// The sink, made at the first frame (a shot's file prepared before its trigger leaves nothing
    /// behind when the capture ends first), with the shot's trigger frame from its tags.
    private func open() throws {
        trigger.index = metadata[SlomoTag.triggerFrame.rawValue].flatMap { Int($0) } ?? 0
        trigger.time = metadata[SlomoTag.triggerFrameTime.rawValue].flatMap { try? Rational(parsing: $0) }
        var tags = metadata.filter { [SlomoTag.triggerSource.rawValue, SlomoTag.shot.rawValue].contains($0.key) }
        tags[SlomoTag.device.rawValue] = sourceName
        tags[SlomoTag.captureFormat.rawValue] = format.fourcc
        let rate = format.frameDuration.flatMap { try? $0.reciprocal() }
        if let rate { tags[SlomoTag.captureFps.rawValue] = rate.description }
        if let cfa = format.bayerPattern { tags[SlomoTag.cfaPattern.rawValue] = cfa }
        let context = LabContext(
            input: sourceName, width: format.width, height: format.height, samples: samples, clock: clock, frameRate: rate,
            triggerFrame: trigger.index, tags: tags, utcOffset: CaptureClock.wallTime(ofMonotonic: .zero), made: "capture")
        switch labOutput {
        case .tiffSequence(let name), .dngSequence(let name), .pngSequence(let name):
            sink = try ImageSequenceSink(
                name, context: context, frames: 0, overwrite: true, makeDirectory: settings.output.hasSuffix("/"),
                kind: ImageSequenceSink.Kind(rawValue: labOutput.formatName) ?? .tiff)
            try OutputFile.check(framesTable, overwrite: settings.overwrite, inputs: [])  // in the directory the sink made
        case .hdf5(let path):
            sink = try HDF5Sink(path: path, context: context, overwrite: settings.overwrite)
        case .cine(let path):
            sink = try CineSink(path: path, context: context, frames: capacity ?? 0, utcOffset: context.utcOffset, overwrite: settings.overwrite)
        case .mraw(let path):
            sink = try MRAWSink(path: path, context: context, overwrite: settings.overwrite)
        }
    }

    /// Writes the held frame, now that its duration is known.
    private func store(duration: Rational) throws {
        guard let sink, let time = heldTime else { return }
        let i = rows.count
        if let capacity, i >= capacity {
            throw LabOutputError(settings.output, "holds at most \(capacity) frames (its image table was reserved for them)")
        }
        if i == trigger.index { trigger.time = time }
        let t0 = trigger.time ?? time
        let row = LabFrameRow(
            index: i, sourceIndex: i, fromTrigger: i - trigger.index, time: time, timeFromTrigger: time - t0, duration: duration, sequence: heldSequence)
        try held.withUnsafeBytes { h in try sink.write(rows: h.baseAddress!, bytesPerRow: format.bytesPerLine, row: row) }
        rows.append(row)
        framesWritten += 1
        bytesWritten += Int64(rowBytes * format.height)
    }

    func finish() throws {
        guard let sink else { return }
        do {
            // (a .cine that filled its reserved table keeps the frames it holds)
            if capacity.map({ rows.count < $0 }) ?? true { try store(duration: format.frameDuration ?? rows.last?.duration ?? .zero) }
            heldTime = nil
            try sink.finish(rows: rows)
            try OutputFile.write(Data(LabFrameTable.csv(rows).utf8), to: framesTable)
        } catch {
            sink.abandon()
            if sink.written > 0 { try? OutputFile.write(Data(LabFrameTable.csv(Array(rows.prefix(sink.written))).utf8), to: framesTable) }
            throw error
        }
    }
}
