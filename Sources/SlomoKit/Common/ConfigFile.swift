import Foundation
import SlomoCore

/// The options a command takes, as its parser declares them (the command line's own description of
/// itself, so a new flag is a new key with nothing else to write): what a configuration file may
/// set, by the same names, and what `--print-config` lists.
public struct CommandOptions: Sendable {
    public enum Kind: Sendable { case option, flag, positional }
    public struct Entry: Sendable {
        /// The long flag without dashes (`pre-trigger`); a positional's value name (`devices`).
        public var name: String
        public var kind: Kind
        public var repeating: Bool
        /// The default the command line shows, when it has one.
        public var defaultValue: String?
        /// Its one-letter name (`o` for `-o`), when it has one.
        public var short: Character?
        public init(name: String, kind: Kind, repeating: Bool, defaultValue: String?, short: Character? = nil) {
            self.name = name
            self.kind = kind
            self.repeating = repeating
            self.defaultValue = defaultValue
            self.short = short
        }
    }
    public var command: String
    public var entries: [Entry]
    public init(command: String, entries: [Entry]) {
        self.command = command
        self.entries = entries.filter { !Self.notSettings.contains($0.name) }
    }

    /// Flags that act on the invocation itself, not settings.
    static let notSettings: Set<String> = ["help", "version", "config", "print-config"]

    func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }
}

/// `--config FILE` (`serve`, `capture`): a YAML mapping of the command's options by their long
/// flag names (`pre-trigger: 0.5`, `out-dir: shots`; a manifest's camelCase `preTrigger` too), a
/// switch as `true`/`false`, a repeatable option or the cameras as a list. Flags on the command line
/// win: a setting the command line also gives is dropped from the file's. Docs/Config.md.
public struct ConfigFile: Sendable {
    public struct Setting: Sendable, Equatable {
        /// The option's name (`pre-trigger`) and the key as written (`preTrigger`).
        public var name: String
        public var key: String
        /// The values to give it (none for a switch set to false; one `""` for a switch set to true).
        public var values: [String]
        public var line: Int
    }
    public let path: String
    public let settings: [Setting]

    /// Reads `path` against `options`. Refused (exit 64, one line with the file and line): YAML
    /// that does not parse, a top level that is not a mapping, an unknown key (naming the nearest
    /// known one), a list for a single value, a mapping for any, a switch that is not true/false.
    public static func load(_ path: String, options: CommandOptions) throws -> ConfigFile {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw InputError(path, .config, .missing) }
        if isDirectory.boolValue { throw InputError(path, .config, .isDirectory) }
        guard let data = FileManager.default.contents(atPath: path) else { throw InputError(path, .config, .notReadable) }
        let root: ManifestJSON.Node
        do { root = try ManifestYAML.parse([UInt8](data)) } catch {
            let words = error.message.replacing(" in manifests", with: "").replacing("the manifest is empty", with: "the file is empty")
            throw ConfigFileError(path: path, line: error.line, "not a YAML configuration: \(words)")
        }
        guard case .object(let fields) = root.value else {
            throw ConfigFileError(path: path, line: root.line, "expected a mapping of options (pre-trigger: 0.5, out-dir: shots)")
        }
        var settings: [Setting] = []
        for (key, node) in fields {
            let name = Self.optionName(key)
            guard let entry = options.entry(name) else {
                let near = Suggestion.nearest(to: name, in: options.entries.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
                throw ConfigFileError(path: path, line: node.line, "unknown key '\(key)'\(near): \(options.command) takes its options by their long names")
            }
            if case .null = node.value { continue }  // a key with no value is not set
            settings.append(Setting(name: name, key: key, values: try Self.values(node, entry, key: key, path: path), line: node.line))
        }
        return ConfigFile(path: path, settings: settings)
    }

    /// `preTrigger`, `pre_trigger` and `pre-trigger` are all `pre-trigger`.
    static func optionName(_ key: String) -> String {
        key.reduce(into: "") { out, c in
            if c == "_" {
                out.append("-")
            } else if c.isUppercase {
                out += (out.isEmpty ? "" : "-") + c.lowercased()
            } else {
                out.append(c)
            }
        }
    }

    static func values(_ node: ManifestJSON.Node, _ entry: CommandOptions.Entry, key: String, path: String) throws -> [String] {
        func scalar(_ n: ManifestJSON.Node) throws -> String {
            switch n.value {
            case .string(let s): return s
            case .int(let i): return String(i)
            case .double(let d): return String(d)
            case .bool(let b): return b ? "true" : "false"
            case .null, .array, .object: throw ConfigFileError(path: path, line: n.line, "'\(key)' takes a value, not \(Self.shape(n))")
            }
        }
        if entry.kind == .flag {
            guard case .bool(let on) = node.value else {
                throw ConfigFileError(path: path, line: node.line, "'\(key)' is a switch: true or false, not \(Self.shape(node))")
            }
            return on ? [""] : []
        }
        if case .array(let items) = node.value {
            guard entry.repeating else { throw ConfigFileError(path: path, line: node.line, "'\(key)' takes one value, not a list") }
            return try items.map(scalar)
        }
        return [try scalar(node)]
    }

    static func shape(_ n: ManifestJSON.Node) -> String {
        switch n.value {
        case .array: return "a list"
        case .object: return "a mapping"
        case .null: return "nothing"
        case .bool(let b): return "\(b)"
        case .string(let s): return "'\(s)'"
        case .int(let i): return "\(i)"
        case .double(let d): return "\(d)"
        }
    }

    /// The command line's arguments (those after the command's name) with the file's settings put
    /// before them, except those the command line gives itself (its flags win; its cameras replace
    /// the file's). Each option as `--name=value`, so a value that starts with `-` stays a value.
    public func arguments(merging args: [String], options: CommandOptions) -> [String] {
        let given = CommandLineSettings(args, options: options)
        var out: [String] = []
        for s in settings where !given.names.contains(s.name) {
            guard let entry = options.entry(s.name) else { continue }
            switch entry.kind {
            case .flag: if !s.values.isEmpty { out.append("--\(s.name)") }
            case .option: out += s.values.map { "--\(s.name)=\($0)" }
            case .positional: if !given.positional { out += s.values }
            }
        }
        return out + args
    }
}

/// What a command line sets: each option it gives by long name with its values (a switch: `true`),
/// and the positional arguments (cameras). `-o FILE` is matched by the option's one-letter name.
public struct CommandLineSettings: Sendable {
    public var values: [String: [String]] = [:]
    public var positionals: [String] = []
    var names: Set<String> { Set(values.keys) }
    var positional: Bool { !positionals.isEmpty }

    public init(_ args: [String], options: CommandOptions) {
        let shorts = Dictionary(options.entries.compactMap { e in e.short.map { ($0, e.name) } }, uniquingKeysWith: { a, _ in a })
        var i = 0
        func take(_ name: String, inline: Substring?) {
            let entry = options.entry(name)
            if entry?.kind == .flag {
                values[name, default: []].append("true")
            } else if let inline {
                values[name, default: []].append(String(inline))
            } else if i < args.count {  // `--name value`: the next word is its value
                values[name, default: []].append(args[i])
                i += 1
            }
        }
        while i < args.count {
            let a = args[i]
            i += 1
            if a == "--" {
                positionals += args[i...]
                break
            }
            if a.hasPrefix("--") {
                let body = a.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                take(name, inline: body.firstIndex(of: "=").map { body[body.index(after: $0)...] })
            } else if a.hasPrefix("-"), a.count > 1, let letter = a.dropFirst().first, let name = shorts[letter] {
                let rest = a.dropFirst(2)
                take(name, inline: rest.isEmpty ? nil : (rest.first == "=" ? rest.dropFirst() : rest))
            } else {
                positionals.append(a)
            }
        }
    }
}

/// A configuration file that cannot be read as the command's settings: the file, the line, why.
public struct ConfigFileError: SlomoFailure, Sendable, Equatable {
    public var path: String
    public var line: Int
    public var reason: String
    public init(path: String, line: Int, _ reason: String) {
        self.path = path
        self.line = line
        self.reason = reason
    }
    public var kind: FailureKind { .badRequest }
    public var wording: Wording { Wording(verbatim: "\(path):\(line): \(reason)") }
}

extension ConfigFile {
    /// `--print-config`: every setting of the command in effect, written as a configuration file
    /// (so it can be saved as one), each with where it came from: a flag, the file and its line, or
    /// the default; a setting with neither value nor default is a comment.
    public static func effective(options: CommandOptions, commandLine args: [String], file: ConfigFile?) -> String {
        let given = CommandLineSettings(args, options: options)
        var lines: [(text: String, origin: String)] = []
        for e in options.entries {
            let fromFile = file?.settings.first { $0.name == e.name }
            let values: [String]?, origin: String
            if e.kind == .positional, given.positional {
                (values, origin) = (given.positionals, "command line")
            } else if let v = given.values[e.name], e.kind != .positional {
                (values, origin) = (v, "flag --\(e.name)")
            } else if let s = fromFile, let f = file {
                (values, origin) = (e.kind == .flag ? [s.values.isEmpty ? "false" : "true"] : s.values, "\(f.path):\(s.line)")
            } else if e.kind == .flag {
                (values, origin) = (["false"], "default")
            } else if let d = e.defaultValue {
                (values, origin) = ([d], "default")
            } else {
                (values, origin) = (nil, "not set")
            }
            guard let values else {
                lines.append(("# \(e.name):", origin))
                continue
            }
            let shown =
                e.kind == .flag
                ? (values.last ?? "false")
                : e.repeating || values.count != 1 ? "[" + values.map(yamlScalar).joined(separator: ", ") + "]" : yamlScalar(values[0])
            lines.append(("\(e.name): \(shown)", origin))
        }
        let width = min(48, (lines.map(\.text.count).max() ?? 0) + 2)
        return lines.map { l in l.text + String(repeating: " ", count: max(1, width - l.text.count)) + "# " + l.origin }.joined(separator: "\n") + "\n"
    }

    /// A value as YAML reads it back as the same text: plain when it is safe, else double-quoted.
    static func yamlScalar(_ v: String) -> String {
        let special = Set(":#{}[],&*!|>'\"%@`")
        let plain =
            !v.isEmpty && !v.contains(where: { special.contains($0) || $0.isNewline }) && v.first != " " && v.last != " "
            && v.first != "-" && v.first != "?" && !["true", "false", "null", "~", "yes", "no", "on", "off"].contains(v.lowercased())
        if plain { return v }
        var out = "\""
        for c in v.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }
}
