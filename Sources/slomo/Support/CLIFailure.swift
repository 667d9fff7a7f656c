import SlomoCore

/// The one place where an error a command ends with becomes its line on stderr (after `slomo: `)
/// and its exit status: every `SlomoFailure` says both; anything else is an internal error.
struct CLIFailure: SlomoFailure {
    let message: String
    let status: Int32

    var description: String { message }
    var exitStatus: ExitStatus { ExitStatus(rawValue: status) ?? .software }

    /// nil for errors that are not slomo's (ArgumentParser's own: help, version, parse errors).
    init?(classifying error: any Error) {
        guard let e = error as? any SlomoFailure else { return nil }
        message = e.description
        status = e.exitStatus.rawValue
    }

    /// Any error, an unknown one as an internal error (70).
    init(_ error: any Error) {
        if let known = CLIFailure(classifying: error) { self = known; return }
        message = "internal error: \(error)"
        status = ExitStatus.software.rawValue
    }
}
