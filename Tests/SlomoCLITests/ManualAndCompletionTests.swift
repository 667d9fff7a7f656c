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
            print(
                "ManualAndCompletionTests: SKIPPED the man page check: \(tool) is not built (scripts/dev.sh test builds it: swift build --product generate-manual)"
            )
            return
        }
        let dir = TempDir()
        let r = try CLI.run(executable: tool, [CLI.binary, "--output-directory", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let finish = try CLI.tool(["python3", Self.repository + "/scripts/man-finish.py", dir.file("slomo.1"), Self.repository + "/README.md"])
        #expect(finish.status == 0, "\(finish.stderr)")
        let fresh = try String(contentsOfFile: dir.file("slomo.1"), encoding: .utf8)
        let committed = try String(contentsOfFile: Self.repository + "/Docs/man/slomo.1", encoding: .utf8)
        #expect(
            Self.withoutDate(fresh) == Self.withoutDate(committed),
            "Docs/man/slomo.1 is out of date with the commands' --help: run scripts/dev.sh man")
        #expect(committed.contains(".Nm slomo") && committed.contains("export") && committed.contains("Fl -pitch"))
    }

    /// What `man` shows a reader (mandoc renders the page, 80 columns): an EXAMPLES section with
    /// the commands' examples one to a line, an EXIT STATUS section with every status, and no
    /// option broken by hyphenation at a line end.
    @Test func theManPageReadsWell() throws {
        guard let mandoc = CLI.which("mandoc") ?? CLI.which("groff") else {
            Issue.record("neither mandoc nor groff is installed: SKIPPED")
            return
        }
        let args = mandoc.hasSuffix("mandoc") ? ["-T", "utf8", "-O", "width=80"] : ["-mandoc", "-T", "utf8", "-rLL=80n"]
        let r = try CLI.run(executable: mandoc, args + [Self.repository + "/Docs/man/slomo.1"], environment: ["MANWIDTH": "80"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = r.stdout.replacingOccurrences(of: "\u{8}.", with: "", options: .regularExpression)
        #expect(text.contains("\nEXAMPLES\n") && text.contains("\nEXIT STATUS\n"), "sections missing")
        for code in ["64", "65", "66", "69", "73", "74", "130"] { #expect(text.contains("     \(code)"), "exit status \(code) missing") }
        #expect(text.contains("slomo capture /dev/video0 --max-fps --duration 5 -o run.mp4"))
        // a line ending in an option cut in two ("--pre-trig‐")
        let cut = text.split(separator: "\n").filter { $0.range(of: #"--[a-z]+[-‐]$"#, options: .regularExpression) != nil && !$0.hasSuffix(" \\") }
        #expect(cut.isEmpty, "\(cut)")
    }

    /// `--help` at 80 columns keeps each example on its lines: a long one is continued with a
    /// backslash, never wrapped in the middle of a command.
    @Test func helpExamplesAreNotWrapped() throws {
        for command in ["capture", "generate", "probe", "plan", "retime", "export", "play", "stretch", "batch", "devices", "formats", "controls"] {
            let r = try CLI.run([command, "--help"], environment: ["COLUMNS": "80"])
            var on = false
            for line in r.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
                if line == "Examples:" {
                    on = true
                    continue
                }
                if on && line.isEmpty { on = false }
                if on { #expect(line.hasPrefix("  "), "slomo \(command) --help wraps an example: '\(line)'") }
            }
        }
    }

    /// Completes `line` (the cursor at its end) with the bash script slomo generates.
    static func bashComplete(_ words: [String], in cwd: String? = nil) throws -> [String] {
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
        let r = try CLI.tool(["bash", "-c", bash], cwd: cwd)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    /// A folder with two media files and a text file, for file completion.
    static func filesFolder() throws -> TempDir {
        let d = TempDir()
        for f in ["clip.mp4", "clap.mkv", "notes.txt"] { _ = FileManager.default.createFile(atPath: d.file(f), contents: Data()) }
        return d
    }

    /// File arguments and `-o` complete as file names (the generated script once offered only
    /// options there, and `slomo export cl<TAB>` beeped).
    @Test func bashCompletesFileNames() throws {
        let d = try Self.filesFolder()
        #expect(try Self.bashComplete(["slomo", "export", "cl"], in: d.path).sorted() == ["clap.mkv", "clip.mp4"])
        #expect(try Self.bashComplete(["slomo", "retime", "clip.mp4", "-o", "cla"], in: d.path) == ["clap.mkv"])
        #expect(try Self.bashComplete(["slomo", "probe", "no"], in: d.path) == ["notes.txt"])
    }

    /// fish, in its own completion engine (`complete -C`, what a TAB in fish lists).
    @Test func fishCompletesFileNames() throws {
        guard let fish = CLI.which("fish") else {
            Issue.record("fish is not installed (scripts/dev.sh deps test installs it): SKIPPED")
            return
        }
        let d = try Self.filesFolder()
        try CLI.run(["--generate-completion-script", "fish"]).output.write(to: URL(fileURLWithPath: d.file("slomo.fish")))
        let r = try CLI.run(
            executable: fish, ["-c", "source slomo.fish; complete -C 'slomo export cl'; complete -C 'slomo stretch clip.mp4 -o no'"], cwd: d.path)
        let words = r.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        #expect(words.sorted() == ["clap.mkv", "clip.mp4", "notes.txt"], "\(r.stdout) \(r.stderr)")
    }

    /// zsh, typed into an interactive shell on a pseudo-terminal (zsh/zpty): TAB lists the files.
    @Test func zshCompletesFileNames() throws {
        guard let zsh = CLI.which("zsh") else {
            Issue.record("zsh is not installed (scripts/dev.sh deps test installs it): SKIPPED")
            return
        }
        let d = try Self.filesFolder()
        try FileManager.default.createDirectory(atPath: d.file("zf"), withIntermediateDirectories: true)
        try CLI.run(["--generate-completion-script", "zsh"]).output.write(to: URL(fileURLWithPath: d.file("zf/_slomo")))
        let script = """
            zmodload zsh/zpty
            zpty z "zsh -f -i"
            zpty -w z "PS1='%% '; fpath=(\(d.file("zf")) \\$fpath); autoload -Uz compinit; compinit -u -d \(d.file("zcompdump")); slomo() { : }; unsetopt beep; print READY"
            zpty -r z line '*READY*'
            zpty -w -n z $'slomo export cl\\t'
            all=""
            for i in {1..50}; do
              zpty -r -t z chunk && all+=$chunk
              [[ $all == *clap.mkv*clip.mp4* || $all == *clip.mp4*clap.mkv* ]] && break
              sleep 0.1
            done
            print -r -- "$all"
            zpty -d z
            """
        let r = try CLI.run(executable: zsh, ["-f", "-c", script], cwd: d.path)
        #expect(r.stdout.contains("clap.mkv") && r.stdout.contains("clip.mp4") && !r.stdout.contains("notes.txt"), "\(r.stdout) \(r.stderr)")
    }

    @Test func bashCompletesSubcommandsAndOptions() throws {
        #expect(try Self.bashComplete(["slomo", "ex"]) == ["export"])
        #expect(try Self.bashComplete(["slomo", "export", "clip.mp4", "--pit"]) == ["--pitch"])
        #expect(try Self.bashComplete(["slomo", "export", "clip.mp4", "--pi"]).sorted() == ["--pitch", "--pix-fmt"])
        #expect(try Self.bashComplete(["slomo", "capture", "--max-f"]) == ["--max-fps"])
        #expect(!(try Self.bashComplete(["slomo", "j"])).contains("job"), "the batch child's command is not offered")
        // values from the types that declare them (JobOption.values, the enums)
        #expect(try Self.bashComplete(["slomo", "export", "clip.mp4", "--frame-blend", ""]) == ["none", "blend", "motion", "flow"])
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
