import Foundation
import SlomoCore
import SlomoSystem

/// One Phantom `.cine` file (`CineLayout`): the images written as they come, each at its place
/// after room reserved for the headers, blocks and offsets of every frame the source keeps; at the
/// end that room is filled for the frames written (fewer when damaged ones were left out: the
/// offsets then end before the room does, which readers follow). Written under a temporary name and
/// renamed when complete, as `.h5` is.
final class CineSink: LabSink {
    let context: LabContext
    private let output: OutputFile
    private var fd: FileDescriptor?
    private let layout: CineLayout
    private let imagesStart: Int
    /// One image record (annotation, then rows bottom-up), reused.
    private var record: [UInt8]
    private var count = 0
    /// Seconds to add to the recording's clock for UTC (the recording's `creation_time`); zero without one.
    private let utcOffset: Rational
    var written: Int { 0 }  // complete only when renamed into place

    /// Creates the file for at most `frames` frames; the first frame's image number is set at the end.
    init(path: String, context: LabContext, frames: Int, utcOffset: Rational?, overwrite: Bool) throws {
        self.context = context
        self.utcOffset = utcOffset ?? .zero
        let s = context.samples
        let mosaic = context.tags[SlomoTag.cfaPattern.rawValue]?.uppercased()
        layout = CineLayout(
            width: context.width, height: context.height, bitsPerSample: s.format.bitsPerSample, realBits: s.significantBits,
            mosaic: mosaic, firstImageNumber: 0, frameRate: context.frameRate,
            description: Self.description(context, utc: utcOffset != nil))
        imagesStart = CineLayout.imagesOffset(reserving: frames)
        // AnnotationSize (8: no annotation but itself and ImageSize), ImageSize, the rows
        var r = [UInt8](repeating: 0, count: layout.recordBytes)
        withUnsafeBytes(of: UInt32(8).littleEndian) { r.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: UInt32(layout.imageBytes).littleEndian) { r.replaceSubrange(4..<8, with: $0) }
        record = r
        output = try OutputFile(path: path, overwrite: overwrite, inputs: [context.input])
        do throws(Errno) { fd = try FileDescriptor.createForWriting(output.temporaryPath) } catch {
            throw OutputError(path, .writeFailed(errno: error.rawValue))
        }
    }

    /// `SETUP.Description`: where the frames came from and what their times are.
    static func description(_ c: LabContext, utc: Bool) -> String {
        let clock = utc ? "UTC (the recording's \(c.clock) plus its creation_time)" : "the recording's \(c.clock), as seconds since 1970"
        return "slomo \(c.made) of \((c.input as NSString).lastPathComponent); \(c.samples.source), \(c.samples.significantBits) bits; "
            + "times: \(clock); exposures: each frame's duration, at most one frame period (not measured)"
    }

    func write(rows: UnsafeRawPointer, bytesPerRow: Int, row: LabFrameRow) throws {
        guard let fd else { return }
        let rowBytes = layout.imageBytes / layout.height, h = layout.height
        record.withUnsafeMutableBytes { r in
            for y in 0..<h { (r.baseAddress! + 8 + (h - 1 - y) * rowBytes).copyMemory(from: rows + y * bytesPerRow, byteCount: rowBytes) }
        }
        try put(record, at: imagesStart + count * layout.recordBytes, fd)
        count += 1
    }

    func finish(rows: [LabFrameRow]) throws {
        guard let fd else { return }
        var l = layout
        l.firstImageNumber = rows.first?.fromTrigger ?? 0
        let period = context.frameRate.flatMap { try? $0.reciprocal() }
        let exposures = rows.map { r in period.map { Swift.min($0, r.duration) } ?? r.duration }
        let trigger = (rows.first.map { $0.time - $0.timeFromTrigger } ?? .zero) + utcOffset
        let prefix = try l.prefix(times: rows.map { $0.time + utcOffset }, exposures: exposures, trigger: trigger, imagesStart: imagesStart)
        try put(prefix, at: 0, fd)
        fd.close()
        self.fd = nil
        try output.commit()
    }

    /// `pwrite` of all of `bytes`; a failure names the file and the system's error.
    private func put(_ bytes: [UInt8], at offset: Int, _ fd: FileDescriptor) throws(OutputError) {
        let failed: Errno? = bytes.withUnsafeBytes { b in
            do throws(Errno) {
                try fd.write(b, at: Int64(offset))
                return nil
            } catch { return error }
        }
        if let failed { throw OutputError(output.finalPath, .writeFailed(errno: failed.rawValue)) }
    }

    func abandon() {
        fd?.close()
        fd = nil
        output.discard()
    }
}
