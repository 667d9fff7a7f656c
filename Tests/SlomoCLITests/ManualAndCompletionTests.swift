import Foundation
import Testing

/// The man page is generated from the commands' help (swift-argument-parser's generate-manual) and
/// committed: it must match what the built binary's help makes of it today. Shell completions come
/// from the same parser: bash's must complete subcommands and options.
@Suite struct ManualAndCompletionTests {
    static var repository: String { CLI.repository }

    static func withoutDate(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix(".Dd ") }.joined(separator: "\n")
    }

    @Test func theCommittedManPageIsCurrent() throws {
        let tool = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("generate-manual").path
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            print("ManualAndCompletionTests: SKIPPED the man page check: \(tool) is not built (scripts/dev.sh test builds it: swift build --product generate-manual)")
            return
        }
        let dir = TempDir()
        let r = try CLI.run(executable: tool, [CLI.binary, "--output-directory", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let fresh = try String(contentsOfFile: dir.file("slomo.1"), encoding: .utf8)
        let committed = try String(contentsOfFile: Self.repository + "/Docs/man/slomo.1", encoding: .utf8)
        #expect(Self.withoutDate(fresh) == Self.withoutDate(committed),
                "Docs/man/slomo.1 is out of date with the commands' --help: run scripts/dev.sh man")
        #expect(committed.contains(".Nm slomo") && committed.contains("export") && committed.contains("--pitch"))
    }

    /// Completes `line` (the cursor at its end) with the bash script slomo generates.
    static func bashComplete(_ words: [String]) throws -> [String] {
        let dir = TempDir()
        let script = try CLI.run(["--generate-completion-script", "bash"])
        #expect(script.status == 0)
        try script.output.write(to: URL(fileURLWithPath: dir.file("slomo.bash")))
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let line = words.joined(separator: " ")
        let bash = """
            source '\(dir.file("slomo.bash"))'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}
            _slomo slomo '\(words.last!)' '\(words[words.count - 2])'
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let r = try CLI.tool(["bash", "-c", bash])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesSubcommandsAndOptions() throws {
        #expect(try Self.bashComplete(["slomo", "ex"]) == ["export"])
        #expect(try Self.bashComplete(["slomo", "export", "clip.mp4", "--pi"]) == ["--pitch"])
        #expect(try Self.bashComplete(["slomo", "capture", "--max-f"]) == ["--max-fps"])
        #expect(!(try Self.bashComplete(["slomo", "j"])).contains("job"), "the batch child's command is not offered")
        // values from the types that declare them (JobOption.values, the enums)
        #expect(try Self.bashComplete(["slomo", "export", "clip.mp4", "--frame-blend", ""]) == ["none", "blend", "motion"])
        #expect(try Self.bashComplete(["slomo", "retime", "clip.mp4", "--pitch", "s"]) == ["spectral"])
        #expect(try Self.bashComplete(["slomo", "capture", "--codec", ""]) == ["x264", "ffv1", "raw"])
        #expect(try Self.bashComplete(["slomo", "batch", "--command", "st"]) == ["stretch"])
    }

    @Test(arguments: ["zsh", "fish"])
    func otherShellsGetAScriptNamingEveryCommand(shell: String) throws {
        let r = try CLI.run(["--generate-completion-script", shell])
        #expect(r.status == 0)
        for command in ["capture", "export", "retime", "play", "stretch", "batch", "probe", "plan", "generate", "devices", "formats", "controls"] {
            #expect(r.stdout.contains(command), "\(shell) script lacks \(command)")
        }
    }
}
