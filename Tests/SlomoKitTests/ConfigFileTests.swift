import Foundation
import Testing

@testable import SlomoKit

/// `--config FILE`: a YAML mapping of a command's options by their long names, put before the
/// command line's own (which win), and `--print-config`'s listing of what is in effect.
@Suite struct ConfigFileTests {
    static let options = CommandOptions(
        command: "slomo serve",
        entries: [
            .init(name: "devices", kind: .positional, repeating: true, defaultValue: nil),
            .init(name: "source", kind: .option, repeating: false, defaultValue: nil),
            .init(name: "pre-trigger", kind: .option, repeating: false, defaultValue: nil),
            .init(name: "out-dir", kind: .option, repeating: false, defaultValue: "."),
            .init(name: "offset", kind: .option, repeating: false, defaultValue: nil),
            .init(name: "no-token", kind: .flag, repeating: false, defaultValue: nil),
            .init(name: "allowed-host", kind: .option, repeating: true, defaultValue: nil),
            .init(name: "output", kind: .option, repeating: false, defaultValue: nil, short: "o"),
            .init(name: "help", kind: .flag, repeating: false, defaultValue: nil),
        ])

    static func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "slomo-config-\(UUID().uuidString).yaml"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func settingsGoBeforeTheCommandLineWhichWins() throws {
        let path = try Self.file(
            """
            preTrigger: 0.5        # a manifest's camelCase name
            out_dir: shots
            no-token: true
            allowed-host: [rig.local, 10.0.0.2]
            offset: -5
            output: take.mkv
            devices: [/dev/video2]
            source:
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let c = try ConfigFile.load(path, options: Self.options)
        #expect(c.settings.map(\.name) == ["pre-trigger", "out-dir", "no-token", "allowed-host", "offset", "output", "devices"])
        #expect(c.settings.map(\.line) == [1, 2, 3, 4, 5, 6, 7])
        // the command line gives --pre-trigger, -o and a camera: the file's are dropped
        let args = c.arguments(merging: ["--pre-trigger", "2", "-o", "x.mkv", "/dev/video0"], options: Self.options)
        #expect(
            args == [
                "--out-dir=shots", "--no-token", "--allowed-host=rig.local", "--allowed-host=10.0.0.2", "--offset=-5", "--pre-trigger", "2", "-o",
                "x.mkv", "/dev/video0",
            ], "\(args)")
        #expect(c.arguments(merging: [], options: Self.options).suffix(2) == ["--output=take.mkv", "/dev/video2"])
        // a switch set to false gives nothing
        let off = try Self.file("no-token: false\n")
        defer { try? FileManager.default.removeItem(atPath: off) }
        #expect(try ConfigFile.load(off, options: Self.options).arguments(merging: [], options: Self.options) == [])
    }

    @Test(arguments: [
        ("pre-triger: 1\n", ":1: unknown key 'pre-triger' (did you mean 'pre-trigger'?)"),
        ("help: true\n", ":1: unknown key 'help'"),
        ("\nsource: [a, b]\n", ":2: 'source' takes one value, not a list"),
        ("out-dir: {a: 1}\n", ":1: 'out-dir' takes a value, not a mapping"),
        ("no-token: yes\n", ":1: 'no-token' is a switch: true or false, not 'yes'"),
        ("allowed-host: [[a]]\n", ":1: 'allowed-host' takes a value, not a list"),
        ("- source\n", ":1: expected a mapping of options"),
        ("source: &a x\n", "not a YAML configuration: anchors and aliases (&, *) are not supported"),
    ])
    func refusalsNameTheFileTheLineAndWhatWorks(text: String, says: String) throws {
        let path = try Self.file(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try ConfigFile.load(path, options: Self.options)
            Issue.record("read: \(text)")
        } catch let e as ConfigFileError {
            #expect(e.wording.description.hasPrefix(path) && e.wording.description.contains(says) && e.kind == .badRequest, "\(e.wording.description)")
        }
    }

    @Test func aMissingFileIsNamed() {
        #expect(throws: InputError("/nonexistent/rig.yaml", .config, .missing)) { try ConfigFile.load("/nonexistent/rig.yaml", options: Self.options) }
    }

    @Test func effectiveSettingsSayWhereEachCameFrom() throws {
        let path = try Self.file("pre-trigger: 0.5\nallowed-host: [a]\nsource: 'synthetic:fps=240'\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let c = try ConfigFile.load(path, options: Self.options)
        let text = ConfigFile.effective(options: Self.options, commandLine: ["--out-dir", "shots", "--no-token"], file: c)
        let lines = text.split(separator: "\n").map { $0.split(separator: "#", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(lines.first { $0[0] == "pre-trigger: 0.5" }?.last == "\(path):1", "\(text)")
        #expect(lines.first { $0[0] == "source: \"synthetic:fps=240\"" }?.last == "\(path):3", "\(text)")
        #expect(lines.first { $0[0] == "allowed-host: [a]" }?.last == "\(path):2", "\(text)")
        #expect(lines.first { $0[0] == "out-dir: shots" }?.last == "flag --out-dir", "\(text)")
        #expect(lines.first { $0[0] == "no-token: true" }?.last == "flag --no-token", "\(text)")
        #expect(text.contains("# offset:") && text.contains("# not set"), "\(text)")
        #expect(!text.contains("help"))
        // what it prints reads back as the same settings
        let again = try Self.file(text)
        defer { try? FileManager.default.removeItem(atPath: again) }
        let reread = try ConfigFile.load(again, options: Self.options)
        #expect(reread.settings.first { $0.name == "source" }?.values == ["synthetic:fps=240"])
        #expect(reread.settings.first { $0.name == "no-token" }?.values == [""])
    }
}
