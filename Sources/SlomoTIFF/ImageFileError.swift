import SlomoCore
import SlomoSystem

/// A libtiff or libpng call that failed: the file, the call, the library's message and the
/// system's errno when a write failed (`frame_000012.tiff: TIFFWriteEncodedStrip failed: No space
/// left on device (ENOSPC)`).
public struct ImageFileError: SlomoFailure, Equatable {
    public var path: String
    /// `libtiff` or `libpng`, for its message.
    public var library: String
    public var operation: String
    /// The library's own message ("" when it gave none).
    public var message: String
    public var errnoCode: Int32?

    public var systemErrno: Int32? { errnoCode }
    public var kind: FailureKind { errnoCode.map { Errno($0).isCreateFailure ? .cannotCreate : .ioFailed } ?? .bug }
    public var wording: Wording {
        // the system's words when a system call failed (the library's own then only repeats it)
        let detail = errnoCode.map { Errno($0).description } ?? (message.isEmpty ? "" : "\(library): \(message)")
        return Wording(verbatim: "\(path): \(operation) failed\(detail.isEmpty ? "" : ": " + detail)")
    }
}
