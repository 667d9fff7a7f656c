import Foundation
import SlomoCore
import SlomoFFmpeg

/// `slomo convert IN -o OUT`: every kept frame of a recording, as the camera gave it where the
/// source keeps it (raw, FFV1), into the lab format OUT names, with each frame's time beside it
/// (`frames.csv`, the files' own tags) — Docs/LabFormats.md.
public struct ConvertRequest: Sendable {
    public var input: String
    public var output: String
    public var trim = SourceTrim()
    /// The frame table's path (default: `frames.csv` in a sequence's directory, `OUT.frames.csv` beside a file).
    public var framesTable: String?
    public var overwrite = false
    public var threads = 0
    public init(input: String, output: String) {
        self.input = input
        self.output = output
    }
}

public enum Converter {
    /// Converts, calling `progress(done, total)` after each frame. The output's format must hold
    /// the source's samples (checked before anything is written); a sequence that fails midway
    /// keeps the frames it wrote and says how many (`ConvertError`).
    public static func convert(_ r: ConvertRequest, progress: (Int64, Int64) -> Void = { _, _ in }) throws -> ConvertReport {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: r.output, isDirectory: &isDirectory)
        let output = try LabOutput(parsing: r.output, isDirectory: exists && isDirectory.boolValue)
        let source = try ConvertSource(path: r.input, trim: r.trim)
        try source.samples.check(fits: output, path: r.output, mosaic: source.tags[SlomoTag.cfaPattern.rawValue])
        let context = LabContext(
            input: r.input, width: source.width, height: source.height, samples: source.samples, clock: source.clock,
            frameRate: source.frameRate, triggerFrame: source.namedTrigger, tags: source.tags, utcOffset: source.utcOffset)
        let table: String
        let sink: any LabSink
        switch output {
        case .tiffSequence(let name), .dngSequence(let name), .pngSequence(let name):
            table = r.framesTable ?? name.framesTable
            let kind = ImageSequenceSink.Kind(rawValue: output.formatName) ?? .tiff
            sink = try ImageSequenceSink(
                name, context: context, frames: source.kept.count, overwrite: r.overwrite, makeDirectory: r.output.hasSuffix("/"), kind: kind)
            try OutputFile.check(table, overwrite: r.overwrite, inputs: [r.input])  // in the directory the sink made
        case .hdf5(let path):
            table = r.framesTable ?? path + ".frames.csv"
            try OutputFile.check(table, overwrite: r.overwrite, inputs: [r.input])
            sink = try HDF5Sink(path: path, context: context, overwrite: r.overwrite)
        case .cine(let path):
            table = r.framesTable ?? path + ".frames.csv"
            try OutputFile.check(table, overwrite: r.overwrite, inputs: [r.input])
            sink = try CineSink(path: path, context: context, frames: source.kept.count, utcOffset: source.utcOffset, overwrite: r.overwrite)
        case .mraw(let path):
            table = r.framesTable ?? path + ".frames.csv"
            try OutputFile.check(table, overwrite: r.overwrite, inputs: [r.input])
            sink = try MRAWSink(path: path, context: context, overwrite: r.overwrite)
        }
        var rows: [LabFrameRow] = []
        rows.reserveCapacity(source.kept.count)
        // the files are written on a thread of their own while the next frames decode
        let behind = WriteBehind(sink: sink, rowBytes: source.width * source.samples.format.bytesPerPixel, height: source.height)
        do {
            let damage = try FrameReader(source: source, threads: r.threads).run { rowsPointer, bytesPerRow, sourceIndex in
                let row = source.table.row(index: rows.count, sourceIndex: sourceIndex)
                try behind.write(rows: rowsPointer, bytesPerRow: bytesPerRow, row: row)
                rows.append(row)
                progress(Int64(rows.count), Int64(source.kept.count))
            }
            try behind.finish()
            guard !rows.isEmpty else { throw MediaError.noFrames(path: r.input) }
            try sink.finish(rows: rows)
            try OutputFile.write(Data(LabFrameTable.csv(rows).utf8), to: table)
            return ConvertReport(r, output: output, source: source, rows: rows, framesTable: table, damage: damage)
        } catch {
            behind.stop()  // the sink is this thread's again, `written` final
            sink.abandon()
            guard let name = output.sequence, sink.written > 0 else { throw error }
            // the frames written stay: their table too, when the disk still takes it
            let kept = Array(rows.prefix(sink.written))
            let tableWritten = (try? OutputFile.write(Data(LabFrameTable.csv(kept).utf8), to: table)) != nil
            throw ConvertError(
                sequence: name.description, written: sink.written, total: source.kept.count, last: name.path(sink.written - 1),
                table: tableWritten ? table : nil, cause: error)
        }
    }
}

/// A sequence stopped midway: how many frames are complete and readable, and why it stopped.
public struct ConvertError: SlomoFailure {
    public var sequence: String
    public var written: Int
    public var total: Int
    public var last: String
    public var table: String?
    public var cause: any Error

    public var kind: FailureKind { (cause as? any SlomoFailure)?.kind ?? .bug }
    public var systemErrno: Int32? { (cause as? any SlomoFailure)?.systemErrno }
    public var wording: Wording {
        let why: Wording = (cause as? any SlomoFailure)?.wording ?? Wording(verbatim: "\(cause)")
        let listed = table.map { ", listed in \($0)" } ?? ""
        return "\(sequence): stopped after \(written) of \(total) frames (up to \(last), complete and readable\(listed)): \(why)"
    }
}
