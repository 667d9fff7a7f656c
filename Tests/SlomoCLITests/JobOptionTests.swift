import Foundation
import SlomoKit
import Testing

/// `JobOption` is the one declaration of a media job's options: the commands' flags, `slomo batch`'s
/// flags and a manifest's fields must all agree with it.
@Suite struct JobOptionTests {
    /// `--help` as one line per option: ArgumentParser wraps long help over several lines.
    static func help(_ command: String) throws -> String {
        let r = try CLI.run([command, "--help"])
        #expect(r.status == 0)
        return r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }

    @Test func everyCommandShowsTheTablesFlagsAndHelp() throws {
        let batch = try Self.help("batch")
        for command in BatchJob.Command.allCases {
            let text = try Self.help(command.rawValue)
            for option in JobOption.allCases {
                let flag = "--\(option.flag)"
                let shown = text.range(of: "\(flag) ") != nil || text.range(of: "\(flag) <") != nil
                if option.commands.contains(command) {
                    #expect(shown, "\(command) --help lacks \(flag)")
                    #expect(text.contains(String(option.help.prefix(60))), "\(command) --help: \(flag)'s help differs from JobOption's")
                } else {
                    #expect(!shown, "\(command) --help offers \(flag), which it does not take")
                }
            }
        }
        // stretch reads audio: no stored speed map, no capture rate (it used to offer both and ignore them)
        let stretch = try Self.help("stretch")
        #expect(!stretch.contains("--real-time") && !stretch.contains("--relative-to"))
        #expect(try CLI.run(["stretch", "a.wav", "-o", "b.wav", "--real-time"]).status == 64)
        for option in JobOption.allCases {
            #expect(batch.contains("--\(option.flag)"), "batch --help lacks --\(option.flag)")
            #expect(batch.contains(String(option.help.prefix(60))), "batch --help: --\(option.flag)'s help differs")
        }
    }

    /// A manifest takes every option's field, and refuses a field its job's command does not take,
    /// naming it; the same value is refused on the command line with the flag's name.
    @Test func manifestFieldsAndFlagsComeFromTheTable() throws {
        #expect(JobOption.allCases.allSatisfy { BatchJob.fields.contains($0.field) })
        let dir = TempDir()
        try #"[{"input": "a.mp4", "output": "o.mp4", "frameBlend": "smear"}]"#.write(toFile: dir.file("m.json"), atomically: true, encoding: .utf8)
        let batch = try CLI.run(["batch", dir.file("m.json"), "--dry-run"])
        #expect(batch.status == 65)
        #expect(batch.stderr.contains("frameBlend 'smear': expected none, blend, motion or flow"), "\(batch.stderr)")
        let export = try CLI.run(["export", dir.file("a.mp4"), "-o", dir.file("o.mp4"), "--frame-blend", "smear"])
        #expect(export.status == 64)
        #expect(export.stderr.contains("--frame-blend 'smear': expected none, blend, motion or flow"), "\(export.stderr)")
    }
}
