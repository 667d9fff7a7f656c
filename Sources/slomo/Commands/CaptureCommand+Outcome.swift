import SlomoKit

/// How a finished capture ends the command: a report that is a failure is one line and its exit.
extension CaptureCommand {
    /// The capture's report as the command's failure, when it is one.
    static func failure(_ r: CaptureReport) -> CommandLineError? { streamFailure(r) ?? noShot(r) ?? abandoned(r) }

    /// A capture the camera ended (unplugged, a fatal driver error) or a buffer call failed in: one
    /// line, exit 74, with what was kept.
    static func streamFailure(_ r: CaptureReport) -> CommandLineError? {
        let what: String
        switch r.stopReason {
        case .disconnected: what = "device disconnected during capture"
        case .driverError: what = "capture stopped by a driver error"
        default: return nil
        }
        return CommandLineError("\(r.device): \(what) (\(r.message ?? "no reason given")); \(r.framesWritten) frames kept in \(r.output)", .ioFailed)
    }

    /// Standard input ended before any trigger: nothing was saved, and a script must not read
    /// that as success (exit 66: the trigger input is gone).
    static func noShot(_ r: CaptureReport) -> CommandLineError? {
        guard r.stopReason == .inputEnded, r.shots?.isEmpty == true else { return nil }
        return CommandLineError("\(r.device): standard input ended before any trigger: nothing was saved", .missing)
    }

    /// Interrupted again while held shots were being saved: those not saved make it an interrupted
    /// capture (exit 130), whatever was saved before them.
    static func abandoned(_ r: CaptureReport) -> CommandLineError? {
        guard let given = r.takes?.counts.abandoned, !given.isEmpty else { return nil }
        return CommandLineError(
            "\(r.device): interrupted: \(given.count) shot\(given.count == 1 ? "" : "s") held in RAM not saved (\(given.map(String.init).joined(separator: ", ")))",
            .interrupted)
    }
}
