import Foundation
import SlomoCore

/// An output written under a temporary name next to its final name and renamed into place
/// only when complete, so a crash, an error or Ctrl-C never leaves a file that looks finished.
///
/// While the output is open, SIGINT and SIGTERM remove the temporary file and exit with 130.
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
        temporaryPath = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
        InterruptCleanup.shared.register(temporaryPath)
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
        if access(dir, W_OK) != 0 {
            throw OutputError(path, .directoryNotWritable(dir))
        }
    }

    /// True when both names reach one existing file (same device and inode: links and `./` too).
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        var x = stat(), y = stat()
        guard stat(a, &x) == 0, stat(b, &y) == 0 else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

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
            ?? (ns.code == NSFileWriteOutOfSpaceError ? ENOSPC : ns.code == NSFileWriteVolumeReadOnlyError ? EROFS
                : ns.code == NSFileWriteNoPermissionError ? EACCES : nil)
    }

    /// An errno as the system's words and, for the ones a user meets writing, its name.
    public static func systemWords(_ code: Int32?) -> String {
        guard let code else { return "write failed" }
        let name: String
        switch code {
        case ENOSPC: name = " (ENOSPC)"
        case EROFS: name = " (EROFS)"
        case EACCES: name = " (EACCES)"
        case EDQUOT: name = " (EDQUOT)"
        case EIO: name = " (EIO)"
        default: name = ""
        }
        return String(cString: strerror(code)) + name
    }

    deinit { discard() }

    /// Moves the finished temporary file to the final name (atomic `rename`).
    public func commit() throws(OutputError) {
        guard !done else { return }
        if rename(temporaryPath, finalPath) != 0 {
            let e = errno
            discard()
            throw OutputError(finalPath, .renameFailed(from: temporaryPath, errno: e))
        }
        done = true
        InterruptCleanup.shared.unregister(temporaryPath)
    }

    /// Removes the temporary file (called on failure and from `deinit`).
    public func discard() {
        guard !done else { return }
        done = true
        unlink(temporaryPath)
        InterruptCleanup.shared.unregister(temporaryPath)
    }
}

/// Removes registered temporary files when SIGINT/SIGTERM arrive, then exits with 130.
/// The handler only calls `unlink` and `_exit` (async-signal-safe) on C strings prepared in advance.
final class InterruptCleanup: @unchecked Sendable {
    // Safe: `paths` is only changed under `lock`, and the handler only reads the C array.
    static let shared = InterruptCleanup()
    private let lock = NSLock()
    private var paths: [String] = []
    private static let capacity = 64
    // Written only under `lock`; read by the signal handler, which must not take locks.
    nonisolated(unsafe) private static let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
    /// The one line the handler writes (`write(2)` is safe in a handler): which outputs are not made.
    /// It points into one of two fixed buffers, written in turn: the line replaced stays whole for
    /// a handler that may be reading it on another thread, and nothing is allocated per output.
    nonisolated(unsafe) private static var message: UnsafeMutablePointer<CChar>?
    private static let lineCapacity = 4096
    nonisolated(unsafe) private static let lines = (UnsafeMutablePointer<CChar>.allocate(capacity: lineCapacity),
                                                    UnsafeMutablePointer<CChar>.allocate(capacity: lineCapacity))
    private var nextLine = 0
    private var installed = false

    private init() { InterruptCleanup.table.initialize(repeating: nil, count: InterruptCleanup.capacity) }

    func register(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        paths.append(path)
        publish()
        if !installed {
            installed = true
            let handler: @convention(c) (Int32) -> Void = { _ in
                var i = 0
                while i < InterruptCleanup.capacity {
                    if let p = InterruptCleanup.table[i] { unlink(p) }
                    i += 1
                }
                if let m = InterruptCleanup.message { _ = write(2, m, strlen(m)) }
                _exit(JobResult.interruptedStatus)
            }
            signal(SIGINT, handler)
            signal(SIGTERM, handler)
        }
    }

    func unregister(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        if let i = paths.firstIndex(of: path) { paths.remove(at: i) }
        publish()
    }

    private func publish() {
        let t = InterruptCleanup.table
        for i in 0..<InterruptCleanup.capacity {
            let old = t[i]
            t[i] = i < paths.count ? strdup(paths[i]) : nil
            free(old)
        }
        let names = paths.map(InterruptCleanup.finalName)
        guard !names.isEmpty else { InterruptCleanup.message = nil; return }
        var line = Array("\nslomo: interrupted: \(names.joined(separator: ", ")) not written (the partial \(names.count == 1 ? "file" : "files") removed)\n".utf8CString)
        if line.count > InterruptCleanup.lineCapacity {
            line = Array(line.prefix(InterruptCleanup.lineCapacity - 5)) + Array("…\n".utf8CString)
        }
        let buffer = nextLine == 0 ? InterruptCleanup.lines.0 : InterruptCleanup.lines.1
        nextLine = 1 - nextLine
        line.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: $0.count) }
        InterruptCleanup.message = buffer
    }

    /// The output a temporary file stands for (`.NAME.partial-PID` → `NAME`, in its directory).
    static func finalName(_ temporary: String) -> String {
        let url = URL(fileURLWithPath: temporary)
        var name = url.lastPathComponent
        if name.hasPrefix("."), let r = name.range(of: ".partial-", options: .backwards) { name = String(name[name.index(after: name.startIndex)..<r.lowerBound]) }
        let dir = url.deletingLastPathComponent().path
        return dir == FileManager.default.currentDirectoryPath ? name : (dir as NSString).appendingPathComponent(name)
    }
}
