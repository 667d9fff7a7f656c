import CPOSIX
import Glibc

/// An error number from the kernel or the C library, named once for every layer: the system's words
/// (`strerror`) and the symbol a user searches for (`ENOSPC`, from glibc's `strerrorname_np`).
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now.
    public static var current: Errno { Errno(errno) }

    /// `ENOSPC`, `EBUSY`…; `errno N` when the number has no name.
    public var name: String {
        guard let p = cposix_errno_name(rawValue) else { return "errno \(rawValue)" }
        return String(cString: p)
    }

    /// A file that could not be made where asked: missing or wrong directory, no permission, a
    /// read-only file system, a name taken or a directory there (else the write itself failed).
    public var isCreateFailure: Bool { [ENOENT, ENOTDIR, EACCES, EROFS, EEXIST, EISDIR].contains(rawValue) }

    /// `No space left on device` (the C function is `strerror`).
    public var words: String { String(cString: strerror(rawValue)) }

    /// `No space left on device (ENOSPC)`: what a one-line error shows.
    public var description: String { "\(words) (\(name))" }

    public static let interrupted = Errno(EINTR)
    public static let wouldBlock = Errno(EAGAIN)
    public static let noSpace = Errno(ENOSPC)
    public static let readOnlyFileSystem = Errno(EROFS)
    public static let invalidArgument = Errno(EINVAL)
    public static let notSupported = Errno(ENOTSUP)
    public static let noSuchFile = Errno(ENOENT)
    public static let noSuchProcess = Errno(ESRCH)
    public static let permissionDenied = Errno(EACCES)
}

/// Runs a call that answers -1 and sets `errno` on failure, again while a signal interrupts it (EINTR).
@inline(__always)
func retryingInterrupts<T: FixedWidthInteger>(_ call: () -> T) throws(Errno) -> T {
    while true {
        let r = call()
        if r != -1 { return r }
        let e = Errno.current
        if e != .interrupted { throw e }
    }
}
