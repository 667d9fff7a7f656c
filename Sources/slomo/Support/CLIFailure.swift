import SlomoCore
import SlomoKit

/// The one place where an error a command ends with becomes its line on stderr (after `slomo: `)
/// and its exit status. A job option's error names the flag on the command line and the field
/// for a batch child (whose line goes into the manifest's job record).
struct CLIFailure: SlomoFailure {
    enum Vocabulary { case flags, manifestFields }
    let message: String
    let status: Int32

    var description: String { message }
    var exitStatus: ExitStatus { ExitStatus(rawValue: status) ?? .software }

    /// nil for errors that are not slomo's (ArgumentParser's own: help, version, parse errors).
    init?(classifying error: any Error, vocabulary: Vocabulary = .flags) {
        switch error {
        case let e as CLIFailure: self = e
        case let e as JobOptionError:
            message = vocabulary == .flags ? e.asFlag : e.asField
            status = ExitStatus.usage.rawValue
        case let e as RetimeError:
            message = "\(e)"
            status = ExitStatus.usage.rawValue
        case let e as any SlomoFailure:
            message = e.description
            status = e.exitStatus.rawValue
        default:
            return nil
        }
    }

    /// Any error, an unknown one as an internal error (70).
    init(_ error: any Error, vocabulary: Vocabulary = .flags) {
        if let known = CLIFailure(classifying: error, vocabulary: vocabulary) { self = known; return }
        message = "internal error: \(error)"
        status = ExitStatus.software.rawValue
    }
}
