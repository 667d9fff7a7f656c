import ArgumentParser
import SlomoCore
import SlomoSystem
import SlomoKit

@main
struct Slomo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slomo",
        abstract: "High-frame-rate capture and slow motion for Linux (V4L2, FFmpeg).",
        discussion:
            "Exit statuses: 0 ok, 1 some batch jobs failed, 64 bad usage, 65 bad input data, 66 input missing, 69 device unavailable, 70 internal error, 73 cannot create output, 74 I/O error, 77 permission denied, 130 interrupted.",
        version: "0.1.0",
        subcommands: [
            CaptureCommand.self, GenerateCommand.self, ProbeCommand.self, PlanCommand.self,
            RetimeCommand.self, ExportCommand.self, ConvertCommand.self, PlaySubcommand.self, StretchCommand.self, BatchCommand.self,
            DevicesCommand.self, FormatsCommand.self, ControlsCommand.self, TriggerCommand.self, ServeCommand.self, JobCommand.self,
        ])

    /// ArgumentParser's entry point, wrapped so that every SlomoFailure becomes one line
    /// on stderr and its documented exit status (never a trap, never a stack trace).
    static func main() {
        ProcessSignals.own()  // the one handler for SIGINT, SIGTERM, SIGUSR1 (nothing in the library installs one)
        SlomoSetup.configure()
        if let refusal = unknownCommand(Array(CommandLine.arguments.dropFirst())) {
            Console.error("slomo: \(refusal)")
            exit(withError: ExitCode(ExitStatus.usage.rawValue))
        }
        do {
            var command = try parseAsRoot(try Configured.arguments(Array(CommandLine.arguments.dropFirst())))
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

    /// The commands a user may type (the batch child's `job` is there but not suggested).
    static var commandNames: [String] { configuration.subcommands.compactMap { $0.configuration.commandName } }

    /// "unknown command 'exprot' (did you mean 'export'?)" when the first word, or the word after
    /// `help`, names no command: ArgumentParser would otherwise complain about the options that
    /// follow ("Unknown option '-o'") or print the general help and exit 0.
    static func unknownCommand(_ args: [String]) -> String? {
        guard let first = args.first, !first.hasPrefix("-") else { return nil }
        let word = first == "help" ? args.dropFirst().first : first
        guard let word, !word.hasPrefix("-"), !commandNames.contains(word), word != "help" else { return nil }
        let suggestion = Suggestion.nearest(to: word, in: commandNames.filter { $0 != "job" }).map { " (did you mean '\($0)'?)" } ?? ""
        return "unknown command '\(word)'\(suggestion); commands: \(commandNames.filter { $0 != "job" }.joined(separator: ", "))"
    }
}
