import ArgumentParser
import SlomoCore
import SlomoKit

@main
struct Slomo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slomo",
        abstract: "High-frame-rate capture and slow motion for Linux (V4L2, FFmpeg).",
        discussion: "Exit statuses: 0 ok, 1 some batch jobs failed, 64 bad usage, 65 bad input data, 66 input missing, 69 device unavailable, 70 internal error, 73 cannot create output, 74 I/O error, 77 permission denied, 130 interrupted.",
        version: "0.1.0",
        subcommands: [
            CaptureCommand.self, GenerateCommand.self, ProbeCommand.self, PlanCommand.self,
            RetimeCommand.self, ExportCommand.self, PlaySubcommand.self, StretchCommand.self, BatchCommand.self,
            DevicesCommand.self, FormatsCommand.self, ControlsCommand.self, JobCommand.self,
        ])

    /// ArgumentParser's entry point, wrapped so that every SlomoFailure becomes one line
    /// on stderr and its documented exit status (never a trap, never a stack trace).
    static func main() {
        SlomoSetup.configure()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if let failure = CLIFailure(classifying: error) {
                Console.error("slomo: \(failure.message)")
                exit(withError: ExitCode(failure.status))
            }
            // Help and --version print as usual; any other parse error becomes one line.
            let code = exitCode(for: error)
            if code == .success || message(for: error).isEmpty { exit(withError: error) }
            let text = message(for: error).split(whereSeparator: \.isNewline).joined(separator: "; ")
            Console.error("slomo: \(text) (see 'slomo help')")
            exit(withError: code)
        }
    }
}
