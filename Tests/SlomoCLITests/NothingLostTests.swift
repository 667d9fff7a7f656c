import Foundation
import Testing

/// Nothing a user brought is silently lost (issue #30): every audio track with its language and
/// title, the container's and streams' metadata, Apple's `hvc1` tag, the input itself; bad numbers
/// and encoder options get one line and exit 64 before anything opens. Media made by the ffmpeg
/// CLI, read back with ffprobe.
@Suite(.serialized) struct NothingLostTests {
    static let dir = TempDir()
    /// 1 s calibration clip at 60 fps, AAC stereo.
    static let clip = CLI.generated(dir, "src.mp4", ["--fps", "60", "--duration", "1", "--size", "320x180"])

    /// The clip with two more audio tracks (French, German) with titles, a subtitle track,
    /// container tags as an iPhone and an Android phone write them, in `ext`'s container.
    static func rich(_ ext: String) throws -> String {
        let out = dir.file("rich.\(ext)")
        if FileManager.default.fileExists(atPath: out) { return out }
        var args = [
            "ffmpeg", "-v", "error", "-y", "-i", clip, "-f", "lavfi", "-i", "sine=f=660:d=1:sample_rate=48000",
            "-f", "lavfi", "-i", "sine=f=330:d=1:sample_rate=44100",
        ]
        let srt = dir.file("subs.srt")
        try "1\n00:00:00,100 --> 00:00:00,900\nhello\n".write(toFile: srt, atomically: true, encoding: .utf8)
        args += [
            "-i", srt, "-map", "0:v", "-map", "0:a", "-map", "1:a", "-map", "2:a", "-map", "3:s", "-c:v", "copy", "-c:a", "aac",
            "-c:s", ext == "mkv" ? "srt" : "mov_text",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:0", "title=Main mix",
            "-metadata:s:a:1", "language=fra", "-metadata:s:a:1", "title=Commentaire",
            "-metadata:s:a:2", "language=deu", "-metadata:s:a:2", "title=Drei",
            "-metadata", "title=Run 7", "-metadata", "creation_time=2026-05-01T10:00:00Z",
            "-metadata", "com.apple.quicktime.make=Apple", "-metadata", "com.apple.quicktime.model=iPhone 15 Pro",
            "-metadata", "com.android.capture.fps=240", "-metadata", "location=+48.8566+002.3522/",
        ]
        if ext != "mkv" { args += ["-movflags", "+use_metadata_tags"] }
        let r = try CLI.tool(args + [out])
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    /// ffprobe's streams and format as JSON.
    static func probe(_ path: String) throws -> (streams: [[String: Any]], tags: [String: String]) {
        let r = try CLI.tool(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", path])
        let o = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        let format = o["format"] as? [String: Any]
        let tags = (format?["tags"] as? [String: String] ?? [:]).reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value }
        return (o["streams"] as? [[String: Any]] ?? [], tags)
    }

    static func tag(_ s: [String: Any], _ k: String) -> String? {
        (s["tags"] as? [String: String])?.first { $0.key.lowercased() == k }?.value
    }

    /// Every audio track is kept, in order, each as long as the retimed video, with its language
    /// (and its title where the container has one: Matroska's title, MP4's handler name); the
    /// subtitle track that is not carried is named in a warning.
    @Test(arguments: ["export", "retime"], ["mkv", "mp4"])
    func everyAudioTrackIsKept(command: String, ext: String) throws {
        let input = try Self.rich(ext)
        let out = Self.dir.file("tracks-\(command).\(ext)")
        let r = try CLI.run([command, input, "-o", out, "--rate", "1/2", "--overwrite"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("leaves out stream 4 (subtitle"), "\(r.stderr)")
        let (streams, _) = try Self.probe(out)
        let audio = streams.filter { $0["codec_type"] as? String == "audio" }
        #expect(audio.count == 3)
        #expect(audio.map { Self.tag($0, "language") } == ["eng", "fra", "deu"])
        // the names the source has: Matroska's titles; MP4 (as the ffmpeg CLI writes it) keeps none
        // but its handler names, which go through as they are
        let names = audio.map { Self.tag($0, "title") ?? Self.tag($0, "handler_name") }
        let source = try Self.probe(input).streams.filter { $0["codec_type"] as? String == "audio" }
            .map { Self.tag($0, "title") ?? Self.tag($0, "handler_name") }
        #expect(names == source && (ext == "mp4" || names == ["Main mix", "Commentaire", "Drei"]), "\(names) from \(source)")
        for a in audio {
            let d = Double(a["duration"] as? String ?? "") ?? Double((Self.tag(a, "duration") ?? "").split(separator: ":").last ?? "") ?? 0
            #expect(abs(d - 2) < 0.05 || d == 0, "\(a)")
        }
    }

    /// `--audio-stream` keeps the tracks asked for, in the order given; a number that names no
    /// stream, or a video stream, is one line and exit 64 (it crashed `stretch` with SIGSEGV).
    @Test func audioStreamChooses() throws {
        let input = try Self.rich("mkv")
        let out = Self.dir.file("chosen.mkv")
        let r = try CLI.run(["retime", input, "-o", out, "--rate", "1/2", "--audio-stream", "3", "--audio-stream", "1", "--overwrite"])
        #expect(r.status == 0, "\(r.stderr)")
        let audio = try Self.probe(out).streams.filter { $0["codec_type"] as? String == "audio" }
        #expect(audio.map { Self.tag($0, "language") } == ["deu", "eng"])
        for (args, status) in [
            (["retime", input, "-o", out, "--overwrite", "--audio-stream", "9"], 64),
            (["export", input, "-o", out, "--overwrite", "--audio-stream", "0"], 64),
            (["stretch", input, "-o", Self.dir.file("x.wav"), "--rate", "1/2", "--stream", "4"], 64),
            (["stretch", input, "-o", Self.dir.file("x.wav"), "--rate", "1/2", "--stream", "1000000"], 64),
            (["stretch", input, "-o", Self.dir.file("x.wav"), "--rate", "1/2", "--stream", "-1"], 64),
            (["stretch", input, "-o", Self.dir.file("x.wav"), "--rate", "1/2", "--stream", "0"], 64),
        ] {
            let e = try CLI.run(args)
            #expect(e.status == Int32(status), "\(args): \(e.stderr)")
            #expect(CLI.errorLines(e).count == 1 && e.stderr.contains("audio streams are 1, 2, 3"), "\(args): \(e.stderr)")
        }
    }

    /// The container's tags reach the output (creation time, title, make and model, Android's
    /// capture rate, location), with slomo's own beside them; MP4's brands and a stale job key do not.
    @Test(arguments: ["export", "retime"], ["mkv", "mp4", "mov"])
    func metadataIsCarried(command: String, ext: String) throws {
        let input = try Self.rich("mp4")
        let out = Self.dir.file("meta-\(command).\(ext)")
        let r = try CLI.run([command, input, "-o", out, "--rate", "1/2", "--overwrite"])
        #expect(r.status == 0, "\(r.stderr)")
        let tags = try Self.probe(out).tags
        for (k, v) in [
            ("title", "Run 7"), ("com.apple.quicktime.make", "Apple"), ("com.apple.quicktime.model", "iPhone 15 Pro"),
            ("com.android.capture.fps", "240"), ("location", "+48.8566+002.3522/"), ("slomo_source", "rich.mp4"),
        ] {
            #expect(tags[k] == v, "\(ext): \(k) = \(tags[k] ?? "missing")")
        }
        #expect(tags["creation_time"]?.hasPrefix("2026-05-01T10:00:00") == true, "\(tags)")
        #expect(tags["slomo_retime"] != nil)
    }

    /// HEVC tagged `hvc1` stays `hvc1` through retime; HEVC from Matroska and from libx265 is
    /// tagged `hvc1` in MP4/MOV (FFmpeg's default `hev1` does not play on Apple's devices); a
    /// source's own `hev1` is kept.
    @Test func hevcKeepsAppleTag() throws {
        func tag(_ path: String) throws -> String {
            try CLI.tool(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0", path])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let hvc1 = Self.dir.file("hvc1.mp4"), hev1 = Self.dir.file("hev1.mp4"), mkv = Self.dir.file("hevc.mkv")
        for (out, extra) in [(hvc1, ["-tag:v", "hvc1"]), (hev1, ["-tag:v", "hev1"])] {
            let r = try CLI.tool(
                ["ffmpeg", "-v", "error", "-y", "-i", Self.clip, "-c:v", "libx265", "-x265-params", "log-level=error"] + extra + ["-c:a", "copy", out])
            #expect(r.status == 0, "\(r.stderr)")
        }
        _ = try CLI.tool(["ffmpeg", "-v", "error", "-y", "-i", hvc1, "-c", "copy", mkv])
        for (input, ext, want) in [(hvc1, "mp4", "hvc1"), (hvc1, "mov", "hvc1"), (mkv, "mp4", "hvc1"), (hev1, "mp4", "hev1")] {
            let out = Self.dir.file("rt-\(URL(fileURLWithPath: input).lastPathComponent).\(ext)")
            let r = try CLI.run(["retime", input, "-o", out, "--rate", "1/2", "--overwrite"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try tag(out) == want, "\(input) → \(ext)")
        }
        let out = Self.dir.file("x265.mp4")
        let r = try CLI.run(["export", Self.clip, "-o", out, "--codec", "libx265", "--overwrite"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try tag(out) == "hvc1")
    }

    /// An output that is the input is refused, `--overwrite` or not, through any name for it; play
    /// refuses an existing output without `--overwrite`. The input is unchanged.
    @Test func theInputIsNeverReplaced() throws {
        let input = Self.dir.file("mine.mp4")
        try? FileManager.default.removeItem(atPath: input)
        try FileManager.default.copyItem(atPath: Self.clip, toPath: input)
        let before = try Data(contentsOf: URL(fileURLWithPath: input))
        let link = Self.dir.file("link.mp4")
        try? FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        for args in [
            ["export", input, "-o", input, "--overwrite"], ["retime", input, "-o", link, "--rate", "1/2", "--overwrite"],
            ["play", input, "-o", input, "--overwrite"], ["stretch", input, "-o", input, "--rate", "1/2", "--overwrite"],
        ] {
            let r = try CLI.run(args)
            #expect(r.status == 73 && r.stderr.contains("it is the input"), "\(args): \(r.status) \(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == before)
        let existing = Self.dir.file("exists.mkv")
        _ = FileManager.default.createFile(atPath: existing, contents: Data("keep".utf8))
        let r = try CLI.run(["play", input, "-o", existing])
        #expect(r.status == 73 && r.stderr.contains("already exists"), "\(r.stderr)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep")
    }

    /// Encoder options are checked before anything opens: one line, exit 64, naming what works.
    @Test(arguments: [
        (["--codec", "h264"], "did you mean libx264?"), (["--codec", "hevc"], "did you mean libx265?"),
        (["--codec", "libx246"], "did you mean libx264?"), (["--codec", "aac"], "audio encoder"),
        (["--preset", "superduper"], "ultrafast"), (["--crf", "99"], "0...51"), (["--crf", "-5"], "0...51"),
        (["--rate", "-1"], "must be > 0"), (["--codec", "ffv1", "--crf", "3"], "takes no CRF"),
        (["--codec", "libvpx-vp9", "--preset", "fast"], "takes no preset"), (["--codec", "libvpx-vp9", "--crf", "70"], "0...63"),
    ])
    func encoderOptionsAreOneLine(args: [String], says: String) throws {
        let out = Self.dir.file("enc.mkv")
        try? FileManager.default.removeItem(atPath: out)
        let r = try CLI.run(["export", Self.clip, "-o", out] + args)
        #expect(r.status == 64, "\(args): \(r.status) \(r.stderr)")
        #expect(CLI.errorLines(r).count == 1 && r.stderr.contains(says), "\(args): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A continuous capture records when it was made: `creation_time` in the file is the first
    /// frame's wall-clock time, the same as the report's `firstFrameWallTime`.
    @Test func captureWritesItsWallClock() throws {
        let out = Self.dir.file("cap.mp4")
        let before = Date()
        let r = try CLI.run(["capture", "--source", "synthetic:fps=60,size=160x96", "--frames", "10", "-o", out, "--overwrite", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        let wall = try #require(report["firstFrameWallTime"] as? String)
        let created = try #require(try Self.probe(out).tags["creation_time"])
        #expect(created == wall)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let t = try #require(f.date(from: wall))
        #expect(t.timeIntervalSince(before) > -1 && t.timeIntervalSince(before) < 30, "\(wall)")
    }
}
