import Foundation
import Testing

/// `capture --config` and `serve --config`: the file's settings and the same flags give the same
/// effective settings (`--print-config`) and the same take; flags win; a bad file is one line.
@Suite struct ConfigFileCLITests {
    /// `--print-config`'s lines without where each came from.
    static func settings(_ r: CLI.Result) -> [String] {
        r.stdout.split(separator: "\n").map { String($0.split(separator: "#", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces) }
    }

    @Test func aFileAndTheSameFlagsGiveTheSameSettingsAndTheSameTake() throws {
        let d = TempDir()
        let file = d.file("cap.yaml")
        try Data(
            """
            source: synthetic:fps=250,size=96x64,format=gray
            codec: ffv1
            frames: 8
            output: \(d.file("a.mkv"))
            no-sync: true
            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        let flags = ["--source", "synthetic:fps=250,size=96x64,format=gray", "--codec", "ffv1", "--frames", "8", "--no-sync"]
        let fromFile = try CLI.run(["capture", "--config", file, "--print-config"])
        let fromFlags = try CLI.run(["capture"] + flags + ["-o", d.file("a.mkv"), "--print-config"])
        #expect(fromFile.status == 0 && fromFlags.status == 0, "\(fromFile.stderr) \(fromFlags.stderr)")
        #expect(Self.settings(fromFile) == Self.settings(fromFlags))
        #expect(fromFile.stdout.contains("frames: 8") && fromFile.stdout.contains("cap.yaml:3"), "\(fromFile.stdout)")
        #expect(fromFlags.stdout.contains("# flag --frames"), "\(fromFlags.stdout)")
        #expect(d.entries == ["cap.yaml"], "--print-config captures nothing: \(d.entries)")
        // the same take: 8 frames, the same samples
        let a = try CLI.run(["capture", "--config", file])
        let b = try CLI.run(["capture"] + flags + ["-o", d.file("b.mkv")])
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        let sums = try ["a.mkv", "b.mkv"].map { f in
            try CLI.tool(["bash", "-c", "ffmpeg -v error -i '\(d.file(f))' -f rawvideo - | md5sum"]).stdout
        }
        let frames = try ConvertTests.ffprobeTimes(d.file("a.mkv")).count
        #expect(sums[0] == sums[1] && frames == 8, "\(sums) \(frames)")
        // a flag wins over the file, and says so
        let over = try CLI.run(["capture", "--config", file, "--frames", "4", "--print-config"])
        #expect(over.stdout.contains("frames: 4") && over.stdout.contains("# flag --frames"), "\(over.stdout)")
        let four = try CLI.run(["capture", "--config", file, "--frames", "4", "-o", d.file("c.mkv")])
        #expect(four.status == 0, "\(four.stderr)")
        #expect(try ConvertTests.ffprobeTimes(d.file("c.mkv")).count == 4)
    }

    @Test func theSampleRigReads() throws {
        let r = try CLI.run(["serve", "--config", CLI.repository + "/Samples/config/rig.yaml", "--print-config"])
        #expect(r.status == 0, "\(r.stderr)")
        for line in ["pre-trigger: 0.5", "shots: 3", "out-dir: shots", "shot-format: mkv", "listen: \"127.0.0.1:8080\"", "no-token: false"] {
            #expect(Self.settings(r).contains(line), "\(line) in \(r.stdout)")
        }
        let flag = try CLI.run(["serve", "--config", CLI.repository + "/Samples/config/rig.yaml", "--shots", "5", "--print-config"])
        #expect(Self.settings(flag).contains("shots: 5"), "\(flag.stdout)")
    }

    @Test func badFilesAreOneLine() throws {
        let d = TempDir()
        try Data("source: synthetic\npre-triger: 1\n".utf8).write(to: URL(fileURLWithPath: d.file("typo.yaml")))
        expectOneLine(
            try CLI.run(["serve", "--config", d.file("typo.yaml")]), status: 64,
            contains: [d.file("typo.yaml") + ":2", "unknown key 'pre-triger'", "did you mean 'pre-trigger'?"])
        try Data("shots: [1, 2]\n".utf8).write(to: URL(fileURLWithPath: d.file("list.yaml")))
        expectOneLine(try CLI.run(["capture", "--config", d.file("list.yaml")]), status: 64, contains: ["list.yaml:1", "'shots'"])
        expectOneLine(try CLI.run(["serve", "--config", d.file("none.yaml")]), status: 66, contains: [d.file("none.yaml"), "no such file"])
        // a value the command refuses is refused as the flag would be, before the camera opens
        try Data("source: synthetic\nshots: -1\nlisten: 127.0.0.1:0\n".utf8).write(to: URL(fileURLWithPath: d.file("range.yaml")))
        let flag = try CLI.run(["serve", "--source", "synthetic", "--shots", "-1", "--listen", "127.0.0.1:0"])
        expectOneLine(try CLI.run(["serve", "--config", d.file("range.yaml")]), status: 64, contains: [flag.stderr.trimmingCharacters(in: .newlines)])
        // a type the parser refuses names the option
        try Data("frames: many\n".utf8).write(to: URL(fileURLWithPath: d.file("type.yaml")))
        expectOneLine(try CLI.run(["capture", "--config", d.file("type.yaml")]), status: 64, contains: [d.file("type.yaml") + ":1: frames:", "many"])
    }
}
