/// Exit statuses of the `slomo` command, from BSD's sysexits.h so that scripts can
/// tell a bad argument from a missing file from a busy device. Documented in the README and Docs/CLI.md.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    case ok = 0
    /// Some jobs of a batch failed (the batch itself ran to the end).
    case partialFailure = 1
    /// Bad command line: unknown option, malformed segment, value out of range (EX_USAGE).
    case usage = 64
    /// The input exists but is not usable media or a valid listing/manifest (EX_DATAERR).
    case dataError = 65
    /// The input file or device does not exist or cannot be opened (EX_NOINPUT).
    case noInput = 66
    /// A device exists but cannot be used now or does not do what is asked: busy, not a capture device (EX_UNAVAILABLE).
    case unavailable = 69
    /// A bug in slomo or a library call that should not fail (EX_SOFTWARE).
    case software = 70
    /// The output cannot be created: exists without --overwrite, directory missing or unwritable (EX_CANTCREAT).
    case cannotCreate = 73
    /// Reading or writing failed midway: disk full, I/O error (EX_IOERR).
    case ioError = 74
    /// Permission denied on a device or file (EX_NOPERM).
    case permissionDenied = 77
    /// Stopped by SIGINT/SIGTERM before finishing; nothing left under the final name.
    case interrupted = 130
}

/// An error that the command line reports as one line and an exit status.
///
/// `description` is the whole line: who (file or device), what (operation), why (cause),
/// e.g. `/dev/video0: VIDIOC_S_FMT MJPG 1280x720 failed: Device or resource busy (EBUSY)`.
public protocol SlomoFailure: Error, CustomStringConvertible {
    var exitStatus: ExitStatus { get }
}

/// A failure with a ready-made message; for use-case code that has nothing more specific.
public struct SimpleFailure: SlomoFailure, Equatable {
    public var description: String
    public var exitStatus: ExitStatus
    public init(_ description: String, _ exitStatus: ExitStatus) {
        self.description = description
        self.exitStatus = exitStatus
    }
}

/// A speed map that cannot be made from what the user wrote is a usage error.
extension RetimeError: SlomoFailure {
    public var exitStatus: ExitStatus { .usage }
}
