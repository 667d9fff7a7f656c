import Foundation
import SlomoCore
import SlomoSystem

/// A Photron MRAW take (`MRAWLayout`): the frames appended to `name.mraw` as they come, then at the
/// end `name.cihx` with their count, numbering from the trigger and rate. Both are written under
/// temporary names and renamed when complete (the `.cihx` first: a `.mraw` under its name has its header).
final class MRAWSink: LabSink {
    let context: LabContext
    private let output: OutputFile
    private let header: OutputFile
    private var fd: FileDescriptor?
    private var offset = 0
    var written: Int { 0 }  // complete only when renamed into place

    init(path: String, context: LabContext, overwrite: Bool) throws {
        self.context = context
        header = try OutputFile(path: LabOutput.cihxPath(path), overwrite: overwrite, inputs: [context.input])
        output = try OutputFile(path: path, overwrite: overwrite, inputs: [context.input])
        do throws(Errno) { fd = try FileDescriptor.createForWriting(output.temporaryPath) } catch {
            throw OutputError(path, .writeFailed(errno: error.rawValue))
        }
    }

    func write(rows: UnsafeRawPointer, bytesPerRow: Int, row: LabFrameRow) throws {
        guard let fd else { return }
        let rowBytes = context.width * context.samples.format.bytesPerPixel
        for y in 0..<context.height {
            do throws(Errno) { try fd.write(UnsafeRawBufferPointer(start: rows + y * bytesPerRow, count: rowBytes), at: Int64(offset)) } catch {
                throw OutputError(output.finalPath, .writeFailed(errno: error.rawValue))
            }
            offset += rowBytes
        }
    }

    func finish(rows: [LabFrameRow]) throws {
        guard let fd else { return }
        fd.close()
        self.fd = nil
        let c = context, s = c.samples
        let layout = MRAWLayout(
            width: c.width, height: c.height, bitsPerSample: s.format.bitsPerSample, effectiveBits: s.significantBits,
            mosaic: c.tags[SlomoTag.cfaPattern.rawValue], totalFrames: rows.count, startFrame: rows.first?.fromTrigger ?? 0,
            frameRate: c.frameRate, date: c.utcOffset.flatMap { u in rows.first.map { $0.time + u } },
            deviceName: "slomo " + (c.tags[SlomoTag.device.rawValue] ?? "camera"), comment: Self.comment(c))
        do { try Data(layout.cihx.utf8).write(to: URL(fileURLWithPath: header.temporaryPath)) } catch {
            throw OutputError(header.finalPath, .writeFailed(errno: OutputFile.systemErrno(of: error)))
        }
        try header.commit()
        try output.commit()
    }

    /// `basicInfo/comment`: where the frames came from; their times are in the frame table.
    static func comment(_ c: LabContext) -> String {
        "slomo \(c.made) of \((c.input as NSString).lastPathComponent); \(c.samples.source), \(c.samples.significantBits) bits; "
            + "each frame's time on the recording's \(c.clock) in the frame table beside it; shutterSpeed: one frame period (not measured)"
    }

    func abandon() {
        fd?.close()
        fd = nil
        output.discard()
        header.discard()
    }
}
