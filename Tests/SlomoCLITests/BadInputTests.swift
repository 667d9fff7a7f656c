import Foundation
import Testing

/// The bad-input contract, checked on the built binary: one line on stderr naming the input
/// and the cause, the documented exit status, no crash, nothing left under the output name.
@Suite(.serialized) struct BadInputTests {
    static let dir = TempDir()
    /// A small valid clip shared by the tests below.
    static let clip = CLI.generated(dir, "ok.mp4", ["--fps", "60", "--duration", "1", "--size", "320x180"])

    @Test func missingFile() throws {
        let p = Self.dir.file("nope.mp4")
        expectOneLine(try CLI.run(["probe", p]), status: 66, contains: [p, "no such file"])
    }

    @Test func directoryInsteadOfFile() throws {
        expectOneLine(try CLI.run(["probe", Self.dir.path]), status: 66, contains: [Self.dir.path, "directory"])
    }

    @Test func zeroLengthFile() throws {
        let p = Self.dir.file("empty.mp4")
        _ = FileManager.default.createFile(atPath: p, contents: Data())
        expectOneLine(try CLI.run(["probe", p]), status: 65, contains: [p, "empty"])
    }

    @Test func nonMediaFile() throws {
        let p = Self.dir.file("notes.mp4")
        _ = FileManager.default.createFile(atPath: p, contents: Data(String(repeating: "not video\n", count: 100).utf8))
        expectOneLine(try CLI.run(["probe", p]), status: 65, contains: [p, "not a media file"])
    }

    /// A text file named .txt: FFmpeg's tty demuxer reads any text as ANSI art, so probe and export
    /// used to take a saved listing for video. It is not media.
    @Test func textFileIsNotMedia() throws {
        let p = Self.dir.file("listing.txt")
        _ = FileManager.default.createFile(atPath: p, contents: Data(String(repeating: "ioctl: VIDIOC_ENUM_FMT\n", count: 20).utf8))
        expectOneLine(try CLI.run(["probe", p]), status: 65, contains: [p, "not a media file"])
        expectOneLine(try CLI.run(["export", p, "-o", Self.dir.file("x.mp4")]), status: 65, contains: [p, "not a media file"])
        #expect(!FileManager.default.fileExists(atPath: Self.dir.file("x.mp4")))
    }

    @Test func truncatedMP4() throws {
        // faststart puts the index first: cutting the file leaves an index that promises more frames
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.clip))
        let p = Self.dir.file("truncated.mp4")
        _ = FileManager.default.createFile(atPath: p, contents: data.prefix(data.count / 2))
        expectOneLine(try CLI.run(["probe", p]), status: 65, contains: [p, "truncated"])
        // cut inside the header: cannot be opened at all
        let q = Self.dir.file("header-only.mp4")
        _ = FileManager.default.createFile(atPath: q, contents: data.prefix(600))
        expectOneLine(try CLI.run(["probe", q]), status: 65, contains: [q])
    }

    @Test func unknownCodec() throws {
        // a Matroska file whose codec id names no codec FFmpeg knows
        let mkv = Self.dir.file("src.mkv")
        let g = try CLI.run(["generate", "--fps", "30", "--duration", "0.5", "--size", "320x180", "--no-audio", "-o", mkv])
        #expect(g.status == 0, "\(g.stderr)")
        var data = try Data(contentsOf: URL(fileURLWithPath: mkv))
        let id = Data("V_MPEG4/ISO/AVC".utf8), fake = Data("V_SLOMO/XX/XYZW".utf8)
        let range = try #require(data.range(of: id))
        data.replaceSubrange(range, with: fake)
        let p = Self.dir.file("unknown-codec.mkv")
        _ = FileManager.default.createFile(atPath: p, contents: data)
        expectOneLine(try CLI.run(["probe", p, "--frames"]), status: 65, contains: [p, "decoder"])
    }

    @Test(arguments: [
        ("5-2@0.5", "is not after start"), ("1-2@0", "rate must be > 0"), ("1-2@-1", "rate must be > 0"),
        ("1-2@nan", "not a number"), ("1-2@1/0", "zero denominator"), ("0.5-3@0.5", "past the end"),
    ])
    func malformedSegments(segment: String, reason: String) throws {
        let r = try CLI.run(["plan", Self.clip, "--segment", segment])
        expectOneLine(r, status: 64, contains: [segment, reason])
    }

    @Test func overlappingSegments() throws {
        let r = try CLI.run(["plan", Self.clip, "--segment", "0.1-0.5@0.5", "--segment", "0.4-0.8@0.25"])
        expectOneLine(r, status: 64, contains: ["overlap", "0.1-0.5@0.5", "0.4-0.8@0.25"])
    }

    @Test(arguments: [
        (["--fps", "0"], "frame rate"), (["--fps", "5000"], "frame rate"), (["--fps", "nan"], "--fps"),
        (["--size", "0x0"], "--size"), (["--size", "100000x100000"], "size"), (["--size", "321x180"], "even"),
        (["--duration", "0"], "duration"), (["--duration=-1"], "duration"), (["--duration", "-1"], "duration -1"), (["--duration", "99999"], "duration"),
        (["--codec", "vp8"], "--codec"), (["--crf", "99"], "crf"),
    ])
    func absurdGenerateValues(args: [String], reason: String) throws {
        let out = Self.dir.file("absurd-\(UUID().uuidString).mp4")
        let r = try CLI.run(["generate", "-o", out] + args)
        expectOneLine(r, status: 64, contains: [reason])
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func outputProblems() throws {
        let exists = Self.dir.file("exists.mp4")
        _ = FileManager.default.createFile(atPath: exists, contents: Data("x".utf8))
        expectOneLine(try CLI.run(["generate", "-o", exists]), status: 73, contains: [exists, "already exists"])
        let noDir = Self.dir.file("missing-dir/out.mp4")
        expectOneLine(try CLI.run(["generate", "-o", noDir]), status: 73, contains: [noDir, "does not exist"])
        expectOneLine(try CLI.run(["generate", "-o", Self.dir.file("x.avi")]), status: 64, contains: ["extension"])
    }

    @Test func interruptedGenerateLeavesNothing() throws {
        let d = TempDir()
        let out = d.file("long.mp4")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["generate", "--fps", "240", "--duration", "60", "--size", "640x360", "-o", out]
        p.standardError = FileHandle.nullDevice
        try p.run()
        // wait until the temporary file exists, then interrupt
        var waited = 0
        while d.entries.isEmpty && waited < 200 {
            usleep(50_000)
            waited += 1
        }
        usleep(300_000)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        #expect(d.entries.isEmpty, "left behind: \(d.entries)")
    }
}

@Suite struct HappyPathTests {
    @Test func generateThenProbeFramesJSON() throws {
        let d = TempDir()
        let out = d.file("c.mp4")
        let g = try CLI.run(["generate", "--fps", "240", "--duration", "1/2", "--size", "320x180", "-o", out])
        #expect(g.status == 0 && g.stderr.isEmpty, "\(g.stderr)")
        let p = try CLI.run(["probe", out, "--frames", "--json"])
        #expect(p.status == 0, "\(p.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(p.stdout.utf8)) as! [String: Any]
        let frames = json["frames"] as! [[String: Any]]
        #expect(frames.map { $0["calibrationIndex"] as? Int } == (0..<120).map { Optional($0) })
        #expect(frames[3]["pts"] as? String == "1/80")
        let streams = json["streams"] as! [[String: Any]]
        let rate = streams[0]["measuredFrameRate"] as! [String: Int]
        #expect(rate == ["numerator": 240, "denominator": 1])
        #expect(d.entries == ["c.mp4"])
    }

    @Test func planPrintsTheMapAndSchedule() throws {
        let d = TempDir()
        let out = d.file("c.mkv")
        _ = try CLI.run(["generate", "--fps", "240", "--duration", "1", "--size", "320x180", "--no-audio", "-o", out])
        let r = try CLI.run(["plan", out, "--segment", "0.25-0.5@1/4", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let target = json["targetDuration"] as! [String: Int]
        #expect(target == ["numerator": 7, "denominator": 4])  // 0.75 s at 1 + 0.25 s at 1/4
        #expect(json["outputFrames"] as? Int == 53)  // ceil(1.75 * 30)
    }
}

/// A mistyped command is named as such, with the nearest one, before any of its options are
/// read; `help` with no such command is an error, not the general help and exit 0.
@Suite struct UnknownCommandTests {
    @Test(arguments: [
        (["exprot", "a.mp4", "-o", "b.mp4"], "unknown command 'exprot' (did you mean 'export'?)"),
        (["captur", "--max-fps"], "unknown command 'captur' (did you mean 'capture'?)"),
        (["help", "nosuch"], "unknown command 'nosuch'; commands: capture"),
        (["xyz"], "unknown command 'xyz'; commands: capture"),
    ])
    func mistypedCommands(args: [String], says: String) throws {
        expectOneLine(try CLI.run(args), status: 64, contains: [says])
    }

    @Test func realCommandsStillWork() throws {
        #expect(try CLI.run(["help", "export"]).status == 0)
        #expect(try CLI.run(["--version"]).status == 0)
        #expect(try CLI.run(["help"]).status == 0)
    }
}

/// Every number a user gives is checked: one line, exit 64, never a crash or a silent default.
@Suite struct NumbersAreCheckedTests {
    @Test(arguments: [
        (["export", "CLIP", "-o", "OUT.mkv", "--threads", "-1"], "--threads -1"),
        (["play", "CLIP", "-o", "-", "--start", "-1"], "--start -1"),
        (["generate", "-o", "OUT.mp4", "--gop", "0"], "--gop 0"),
        (["stretch", "CLIP", "-o", "OUT.wav", "--rate", "1/2", "--stream", "99999999999999999999"], "--stream"),
        (["stretch", "CLIP", "-o", "OUT.wav", "--rate", "1/2", "--stream", "-1"], "audio stream -1"),
        (["batch", "CLIP", "--out-dir", "OUTDIR", "--jobs", "0"], "--jobs 0"),
        (["batch", "CLIP", "--out-dir", "OUTDIR", "--threads", "-1"], "--threads -1"),
        (["play", "CLIP", "-o", "-", "--lead", "0"], "--lead 0"),
        (["capture", "--source", "synthetic", "--trigger", "stdin", "--shots", "-1", "-o", "OUT%d.mkv"], "--shots -1"),
        (["formats", "--listing", "CLIP", "--measure-limit", "0"], "--measure-limit 0"),
        (["capture", "--source", "synthetic", "--frames", "-5", "-o", "OUT.mkv"], "--frames -5"),
        (["export", "CLIP", "-o", "OUT.mkv", "--audio-stream", "-2"], "-2"),
    ])
    func refused(args: [String], says: String) throws {
        let d = TempDir()
        let clip = CLI.generated(d, "c.mp4", ["--fps", "30", "--duration", "0.5", "--size", "160x96"])
        let real = args.map { $0 == "CLIP" ? clip : $0.hasPrefix("OUT") ? d.file($0) : $0 }
        expectOneLine(try CLI.run(real), status: 64, contains: [says])
    }
}
