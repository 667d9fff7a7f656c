import SlomoCore
import SlomoKit

/// Exit statuses of the `slomo` command, from BSD's sysexits.h so that scripts can
/// tell a bad argument from a missing file from a busy device. Documented in the README and Docs/CLI.md.
enum ExitStatus: Int32, Sendable, CaseIterable {
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

    /// The status of a failure of this kind: the one table from the library's classes to exits.
    init(_ kind: FailureKind) {
        switch kind {
        case .badRequest: self = .usage
        case .badData: self = .dataError
        case .missing: self = .noInput
        case .unavailable, .conflict: self = .unavailable
        case .bug: self = .software
        case .cannotCreate: self = .cannotCreate
        case .ioFailed: self = .ioError
        case .notPermitted: self = .permissionDenied
        case .interrupted: self = .interrupted
        }
    }
}

/// The one place where an error a command ends with becomes its line on stderr (after `slomo: `)
/// and its exit status: every `SlomoFailure` gives its kind and its wording, whose settings are
/// named here as this command line's flags; anything else is an internal error.
struct CLIFailure: Error {
    let message: String
    let status: Int32

    /// nil for errors that are not slomo's (ArgumentParser's own: help, version, parse errors).
    init?(classifying error: any Error) {
        if let f = error as? CLIFailure {
            self = f
            return
        }
        guard let e = error as? any SlomoFailure else { return nil }
        message = e.wording.rendered(naming: CLIFailure.flag)
        status = ExitStatus(e.kind).rawValue
    }

    /// Any error, an unknown one as an internal error (70).
    init(_ error: any Error) {
        if let known = CLIFailure(classifying: error) {
            self = known
            return
        }
        message = "internal error: \(error)"
        status = ExitStatus.software.rawValue
    }

    /// A setting as the command line spells it: a job option's own flag (`segments` is
    /// `--segment`), else the field in kebab case (`ringMemory` is `--ring-memory`).
    static func flag(_ s: Setting) -> String {
        if let option = JobOption(rawValue: s.name) { return "--" + option.flag }
        var out = "--"
        for c in s.name {
            if c.isUppercase { out += "-" + c.lowercased() } else { out.append(c) }
        }
        return out
    }
}

/// A refusal the command line words itself, naming its own flags.
/// Flags are interpolated as `Setting`s (`"\(Setting.statsPlot) with several cameras…"`), so
/// that every flag is spelled by `CLIFailure.flag`, in one place.
struct CommandLineError: SlomoFailure {
    let wording: Wording
    let kind: FailureKind
    init(_ wording: Wording, _ kind: FailureKind) {
        self.wording = wording
        self.kind = kind
    }
}

/// The CLI's own settings (the library's are in `Setting`).
extension Setting {

    static let measureSeconds = Setting("measureSeconds"), listing = Setting("listing"), measure = Setting("measure")
    static let measureLimit = Setting("measureLimit")
    static let json = Setting("json"), statsPlot = Setting("statsPlot"), apply = Setting("apply")
    static let continueShots = Setting("continueShots")
}
