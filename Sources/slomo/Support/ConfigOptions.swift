import ArgumentParser
import Foundation
import SlomoKit

/// `--config FILE` and `--print-config` (capture, serve): the file's settings are put on the command
/// line before the parser reads it (`Configured.arguments`), so every option a command has can be
/// set there by its own name, and flags given win. Docs/Config.md.
struct ConfigOptions: ParsableArguments {
    @Option(
        help: "Read options from this YAML file, each by its long name (pre-trigger: 0.5, out-dir: shots); flags given as well win.",
        completion: .file())
    var config: String?
    @Flag(help: "Print the settings in effect, each with where it came from (a flag, the file and line, the default), and exit.")
    var printConfig = false
}

/// The command line as the parser gets it: `capture`'s and `serve`'s `--config FILE` expanded
/// into the file's settings (those the command line does not give itself), and `--print-config`
/// answered (the settings in effect, then exit 0).
enum Configured {
    static let commands: Set<String> = ["capture", "serve"]

    static func arguments(_ args: [String]) throws -> [String] {
        guard let command = args.first, commands.contains(command) else { return args }
        let rest = Array(args.dropFirst())
        let path = rest.indices.lazy.compactMap { i -> String? in
            if rest[i].hasPrefix("--config=") { return String(rest[i].dropFirst("--config=".count)) }
            return rest[i] == "--config" && i + 1 < rest.count ? rest[i + 1] : nil
        }.first
        let printing = rest.contains("--print-config")
        guard path != nil || printing else { return args }
        let options = try commandOptions(command)
        let file = try path.map { p in try ConfigFile.load(p, options: options) }
        let merged = [command] + (file?.arguments(merging: rest, options: options) ?? rest)
        if let file { try checkValues(merged, from: file, commandLine: rest, options: options) }
        guard printing else { return merged }
        _ = try Slomo.parseAsRoot(merged)  // what the command would refuse is refused here too
        FileHandle.standardOutput.write(Data(ConfigFile.effective(options: options, commandLine: rest, file: file).utf8))
        Foundation.exit(0)
    }

    /// A value from the file that the parser refuses (`frames: many`) is named with its file and
    /// line; anything else is left for the parser to say as usual.
    static func checkValues(_ merged: [String], from file: ConfigFile, commandLine: [String], options: CommandOptions) throws {
        do { _ = try Slomo.parseAsRoot(merged) } catch {
            guard Slomo.exitCode(for: error) != .success else { return }
            let text = Slomo.message(for: error).split(whereSeparator: \.isNewline).joined(separator: "; ")
            let given = CommandLineSettings(commandLine, options: options)
            guard let s = file.settings.first(where: { !given.values.keys.contains($0.name) && text.contains("--\($0.name)") }) else { return }
            throw CommandLineError("\(file.path):\(s.line): \(s.key): \(text)", .badRequest)
        }
    }

    /// The command's options as the parser describes them (its `--experimental-dump-help`).
    static func commandOptions(_ command: String) throws -> CommandOptions {
        var dump = ""
        do { _ = try Slomo.parseAsRoot(["--experimental-dump-help"]) } catch { dump = Slomo.fullMessage(for: error) }
        let tool = try JSONDecoder().decode(ToolDump.self, from: Data(dump.utf8))
        guard let c = tool.command.subcommands?.first(where: { $0.commandName == command }) else {
            throw CommandLineError("\(command): no such command", .bug)
        }
        return CommandOptions(
            command: "slomo \(command)",
            entries: (c.arguments ?? []).compactMap { a in
                let long = a.names?.first { $0.kind == "long" }?.name
                let short = a.names?.first { $0.kind == "short" }?.name.first
                switch a.kind {
                case "positional": return a.valueName.map { .init(name: $0, kind: .positional, repeating: a.isRepeating ?? false, defaultValue: nil) }
                case "flag": return long.map { .init(name: $0, kind: .flag, repeating: false, defaultValue: nil, short: short) }
                default:
                    return long.map { .init(name: $0, kind: .option, repeating: a.isRepeating ?? false, defaultValue: a.defaultValue, short: short) }
                }
            })
    }

    /// The parts of ArgumentParser's dump (ToolInfoV0) read here.
    struct ToolDump: Decodable {
        struct Name: Decodable {
            var kind: String
            var name: String
        }
        struct Argument: Decodable {
            var kind: String
            var names: [Name]?
            var isRepeating: Bool?
            var defaultValue: String?
            var valueName: String?
        }
        struct Command: Decodable {
            var commandName: String
            var subcommands: [Command]?
            var arguments: [Argument]?
        }
        var command: Command
    }
}
