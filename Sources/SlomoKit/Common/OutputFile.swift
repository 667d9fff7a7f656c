import Foundation
import SlomoCore
import SlomoSystem

/// An output written under a temporary name next to its final name and renamed into place
/// only when complete, so a crash, an error or Ctrl-C never leaves a file that looks finished.
///
/// While the output is open, SIGINT and SIGTERM remove the temporary file and exit with 130
/// (through the application's handler, `ProcessSignals`).
public final class OutputFile {
    public let finalPath: String
    public let temporaryPath: String
    private var done = false

    /// Checks that `path` can be created: parent directory exists and is writable, `path` is not
    /// a directory, it does not exist unless `overwrite`, and it is none of `inputs`.
    public init(path: String, overwrite: Bool, inputs: [String] = []) throws(OutputError) {
        finalPath = path
        try OutputFile.check(path, overwrite: overwrite, inputs: inputs)
        let url = URL(fileURLWithPath: path)
        temporaryPath =
            url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).partial-\(CurrentProcess.id)").path
        ProcessSignals.registerPartial(temporaryPath, shownAs: path)
    }

    /// The checks of `init`, alone: for small side files (a plot, a report) checked before a long
    /// job starts and written with ``write(_:to:)`` when it ends.
    public static func check(_ path: String, overwrite: Bool, inputs: [String] = []) throws(OutputError) {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { throw OutputError(path, .isDirectory) }
            if let input = inputs.first(where: { sameFile(path, $0) }) { throw OutputError(path, .isInput(input)) }
            if !overwrite { throw OutputError(path, .exists) }
        }
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        if !fm.fileExists(atPath: dir, isDirectory: &isDir) || !isDir.boolValue {
            throw OutputError(path, .directoryMissing(dir))
        }
        if !Files.isWritable(dir) {
            throw OutputError(path, .directoryNotWritable(dir))
        }
    }

    /// True when both names reach one existing file (same device and inode: links and `./` too).
    public static func sameFile(_ a: String, _ b: String) -> Bool { Files.sameFile(a, b) }

    /// Writes a small file whole (temporary name, then rename): one line naming the file on failure.
    public static func write(_ data: Data, to path: String) throws(OutputError) {
        do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw OutputError(path, .writeFailed(errno: systemErrno(of: error)))
        }
    }

    /// A Foundation write error as the system's words (`No space left on device (ENOSPC)`), never
    /// Foundation's own text.
    public static func reason(_ error: Error) -> String { systemWords(systemErrno(of: error)) }

    /// The errno behind a Foundation write error, when it says one.
    public static func systemErrno(of error: Error) -> Int32? {
        let ns = error as NSError
        return (ns.userInfo[NSUnderlyingErrorKey] as? NSError).map { Int32($0.code) }
            ?? (ns.domain == NSPOSIXErrorDomain ? Int32(ns.code) : nil)
            ?? (ns.code == NSFileWriteOutOfSpaceError
                ? ENOSPC
                : ns.code == NSFileWriteVolumeReadOnlyError
                    ? EROFS
                    : ns.code == NSFileWriteNoPermissionError ? EACCES : nil)
    }

    /// An errno as the system's words and its name (`No space left on device (ENOSPC)`).
    public static func systemWords(_ code: Int32?) -> String { code.map { Errno($0).description } ?? "write failed" }

    deinit { discard() }

    /// Moves the finished temporary file to the final name (atomic `rename`).
    public func commit() throws(OutputError) {
        guard !done else { return }
        do throws(Errno) { try Files.rename(temporaryPath, to: finalPath) } catch {
            discard()
            throw OutputError(finalPath, .renameFailed(from: temporaryPath, errno: error.rawValue))
        }
        done = true
        ProcessSignals.unregisterPartial(temporaryPath)
    }

    /// Removes the temporary file (called on failure and from `deinit`).
    public func discard() {
        guard !done else { return }
        done = true
        try? Files.remove(temporaryPath)
        ProcessSignals.unregisterPartial(temporaryPath)
    }
}
