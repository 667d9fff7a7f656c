import Foundation
import Testing

/// What `export` and `retime` write, checked with FFmpeg's own tools: the audio codec (`--audio-codec`),
/// the display rotation, the other video encoders, and `--progress json` / `--json`.
@Suite(.serialized) struct ExportOutputTests {
    static let dir = TempDir()
    /// 1 s calibration clip at 120 fps, 320x180, AAC stereo at 48 kHz.
    static let clip = CLI.generated(dir, "src.mp4", ["--fps", "120", "--duration", "1", "--size", "320x180"])

    /// `clip` with its audio re-encoded by ffmpeg (`-c:a ARGS…`) into `name`.
    func withAudio(_ name: String, _ args: [String]) throws -> String {
        let out = Self.dir.file(name)
        let r = try CLI.tool(["ffmpeg", "-v", "error", "-y", "-i", Self.clip, "-c:v", "copy", "-c:a"] + args + [out])
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    /// ffprobe's view of the first audio stream: codec, sample format, bits per raw sample.
    func audioStream(_ path: String) throws -> [String] {
        let r = try CLI.tool([
            "ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
            "stream=codec_name,sample_fmt,bits_per_raw_sample", "-of", "csv=p=0", path,
        ])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
    }

    /// Audio frames (samples per channel) that ffmpeg decodes from `path`.
    func decodedAudioFrames(_ path: String) throws -> Int {
        let r = try CLI.tool(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.output.count / 4
    }

    // MARK: audio codec

    /// `auto` writes the source's codec again where the container holds it: 24-bit FLAC stays
    /// 24-bit FLAC, 24-bit PCM stays 24-bit PCM, with the exact retimed length (2 s at 48 kHz).
    @Test(arguments: [("flac.mkv", ["flac", "-sample_fmt", "s32"], "flac"), ("pcm.mov", ["pcm_s24le"], "pcm_s24le")])
    func autoKeepsTheSourceCodecAndDepth(source: (name: String, args: [String], codec: String)) throws {
        let input = try withAudio(source.name, source.args)
        for command in ["retime", "export"] {
            let out = Self.dir.file("\(command)-\(source.name)")
            let r = try CLI.run([command, input, "-o", out, "--overwrite", "--rate", "1/2", "--pitch", "varispeed", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
            #expect(report["audioCodec"] as? String == source.codec)
            let stream = try audioStream(out)
            #expect(stream.first == (source.codec == "flac" ? "flac" : "pcm_s24le"), "\(stream)")
            #expect(stream.last == "24", "\(command): \(stream)")
            #expect(try decodedAudioFrames(out) == 96_000, "\(command)")
        }
    }

    /// Opus cannot go into MOV: `auto` falls back to AAC; asked for by name it is a usage error
    /// naming the container, and nothing is written.
    @Test func aCodecTheContainerCannotHoldFallsBackOrIsRefused() throws {
        let input = try withAudio("opus.mkv", ["libopus"])
        let out = Self.dir.file("opus-out.mov")
        let r = try CLI.run(["retime", input, "-o", out, "--rate", "1/2", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try audioStream(out).first == "aac")
        for (codec, ext, why) in [
            ("opus", "mov", "mov cannot hold opus"), ("flac", "mp4", "mp4 cannot hold flac"),
            ("pcm", "mp4", "mp4 cannot hold pcm_s16le"),
        ] {
            let refused = Self.dir.file("refused-\(codec).\(ext)")
            let e = try CLI.run(["export", Self.clip, "-o", refused, "--rate", "1/2", "--audio-codec", codec])
            #expect(e.status == 64)
            #expect(e.stderr.contains(why) && e.stderr.split(separator: "\n").count == 1, "\(e.stderr)")
            #expect(!FileManager.default.fileExists(atPath: refused))
            #expect(try FileManager.default.contentsOfDirectory(atPath: Self.dir.path).allSatisfy { !$0.contains("refused-") })
        }
        let bad = try CLI.run(["retime", Self.clip, "-o", Self.dir.file("x.mp4"), "--rate", "1/2", "--audio-codec", "wav"])
        #expect(bad.status == 64 && bad.stderr.contains("expected auto, aac"), "\(bad.stderr)")
        // a sample rate the encoder refuses: Opus takes 48 kHz and its divisors only
        let cd = try withAudio("44k.mp4", ["aac", "-ar", "44100"])
        let o = try CLI.run(["export", cd, "-o", Self.dir.file("o44.mkv"), "--rate", "1/2", "--audio-codec", "opus"])
        #expect(o.status == 64 && o.stderr.contains("the source is 44100 Hz"), "\(o.stderr)")
    }

    // MARK: rotation

    /// A phone clip's display matrix survives export (re-encoded) and retime (copied) into MP4.
    /// Matroska cannot store it in FFmpeg 5.1: export turns the pixels upright there (the same
    /// picture the ffmpeg CLI's autorotation shows), retime cannot and says so, as does export
    /// with `--rotation metadata`; `--rotation pixels` turns them for MP4 too.
    @Test func rotationIsKeptAppliedOrTheLossIsReported() throws {
        let rotated = Self.dir.file("rot.mp4")
        #expect(try CLI.tool(["ffmpeg", "-v", "error", "-y", "-i", Self.clip, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated]).status == 0)
        func rotation(_ path: String) throws -> String {
            try CLI.tool([
                "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "side_data=rotation",
                "-of", "csv=p=0", path,
            ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func size(_ path: String) throws -> String {
            // (a stream with side data gets an empty side-data column: "320,180,")
            try CLI.tool([
                "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                "-of", "csv=p=0", path,
            ]).stdout.split(whereSeparator: { $0 == "," || $0.isNewline }).joined(separator: ",")
        }
        /// The first frame as 8-bit gray, as the ffmpeg CLI shows it (autorotated).
        func firstFrame(_ path: String) throws -> [UInt8] {
            let r = try CLI.tool(["ffmpeg", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
            return [UInt8](r.output)
        }
        func report(_ r: CLI.Result) throws -> [String: Any] { try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any]) }
        #expect(try rotation(rotated) == "90")
        let upright = try firstFrame(rotated)
        #expect(upright.count == 180 * 320)

        for command in ["export", "retime"] {
            let mp4 = Self.dir.file("rot-\(command).mp4")
            let a = try CLI.run([command, rotated, "-o", mp4, "--rate", "1/2", "--no-audio"])
            #expect(a.status == 0 && !a.stderr.contains("rotation"), "\(a.stderr)")
            #expect(try rotation(mp4) == "90", "\(command)")
            #expect(try size(mp4) == "320,180", "\(command): the pixels stay as stored")
        }
        // export into Matroska: upright pixels, no matrix, no warning; the picture ffmpeg shows
        // (ProRes: 4:2:2, which transpose does not take; the turned frames come back in it)
        for (name, args) in [("auto.mkv", [String]()), ("pixels.mp4", ["--rotation", "pixels"]), ("prores.mkv", ["--codec", "prores_ks"])] {
            let out = Self.dir.file(name)
            let e = try CLI.run(["export", rotated, "-o", out, "--rate", "1/2", "--no-audio", "--json"] + args)
            #expect(e.status == 0 && !e.stderr.contains("rotation"), "\(e.stderr)")
            #expect(try report(e)["rotationApplied"] as? Int == 270)
            #expect(try size(out) == "180,320", "\(name)")
            #expect(try rotation(out) == "", "\(name)")
            let frame = try firstFrame(out)
            #expect(frame.count == upright.count)
            let meanDiff = zip(frame, upright).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / Swift.max(1, frame.count)
            #expect(meanDiff <= 3, "\(name): mean difference \(meanDiff) from ffmpeg's autorotated frame")
        }
        // a half turn: the same size, the picture upside down, as ffmpeg shows it
        let upsideDown = Self.dir.file("rot180.mp4"), turnedHalf = Self.dir.file("rot180.mkv")
        #expect(try CLI.tool(["ffmpeg", "-v", "error", "-y", "-i", Self.clip, "-c", "copy", "-metadata:s:v:0", "rotate=180", upsideDown]).status == 0)
        let h = try CLI.run(["export", upsideDown, "-o", turnedHalf, "--rate", "1/2", "--no-audio", "--json"])
        #expect(h.status == 0, "\(h.stderr)")
        #expect(try report(h)["rotationApplied"] as? Int == 180)
        #expect(try size(turnedHalf) == "320,180")
        let (a, b) = (try firstFrame(turnedHalf), try firstFrame(upsideDown))
        #expect(a.count == b.count && zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / Swift.max(1, a.count) <= 3)
        // what cannot be applied is reported
        for (command, args) in [("retime", [String]()), ("export", ["--rotation", "metadata"])] {
            let mkv = Self.dir.file("rot-\(command)-\(args.count).mkv")
            let b = try CLI.run([command, rotated, "-o", mkv, "--rate", "1/2", "--no-audio", "--json"] + args)
            #expect(b.status == 0)
            #expect(b.stderr.contains("90° display rotation cannot be stored in mkv"), "\(b.stderr)")
            #expect(try report(b)["rotationDropped"] as? Double == 90)
            #expect(try size(mkv) == "320,180")
        }
        // an unrotated source: no warning
        let plain = try CLI.run(["retime", Self.clip, "-o", Self.dir.file("plain.mkv"), "--rate", "1/2", "--no-audio"])
        #expect(plain.status == 0 && plain.stderr.isEmpty, "\(plain.stderr)")
    }

    // MARK: other encoders

    /// VP9 and AV1 exports show the scheduled source frames: half speed of 120 fps at 30 fps is
    /// every 2nd source frame.
    @Test(arguments: [("libvpx-vp9", "mkv"), ("libsvtav1", "mp4")])
    func vp9AndAV1ShowTheScheduledFrames(output: (codec: String, ext: String)) throws {
        let out = Self.dir.file("\(output.codec).\(output.ext)")
        let r = try CLI.run(["export", Self.clip, "-o", out, "--rate", "1/2", "--codec", output.codec, "--no-audio", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let codec = try CLI.tool([
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name",
            "-of", "csv=p=0", out,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(codec == (output.codec == "libvpx-vp9" ? "vp9" : "av1"))
        #expect(try CLI.calibrationIndices(out) == (0..<60).map { Optional($0 * 2) })
    }

    /// `.webm` without options: VP9 video (WebM holds no H.264) and audio it holds: Opus for a
    /// 48 kHz source, Vorbis for 44.1 kHz (Opus takes no 44.1 kHz), each of the exact length
    /// (Vorbis: plus the padding Matroska cannot trim);
    /// H.264 copied by retime is refused, naming the container, before anything is written.
    @Test func webmGetsVP9AndAnAudioCodecItHolds() throws {
        let at44 = try withAudio("src44.mp4", ["aac", "-ar", "44100"])
        for (source, audio, rate) in [(Self.clip, "opus", 48_000), (at44, "vorbis", 44_100)] {
            let out = Self.dir.file("\(audio).webm")
            let r = try CLI.run(["export", source, "-o", out, "--rate", "1/2", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
            #expect(summary["videoCodec"] as? String == "libvpx-vp9")
            let streams = try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", out])
                .stdout.split(whereSeparator: \.isNewline).map(String.init)
            #expect(streams == ["vp9", audio], "\(streams)")
            // Opus in Matroska is trimmed to the sample at both ends; Vorbis there has no end trim,
            // so a decoder also plays the last block's padding (slomo wrote exactly 2 s)
            let decoded = try decodedAudioFrames(out)
            if audio == "opus" { #expect(decoded == 2 * rate) } else { #expect(decoded >= 2 * rate && decoded < 2 * rate + 2048, "\(decoded)") }
            #expect(summary["audioFrames"] as? Int == 2 * rate)
            #expect(try CLI.calibrationIndices(out) == (0..<60).map { Optional($0 * 2) })
        }
        let refused = Self.dir.file("refused.webm")
        let r = try CLI.run(["retime", Self.clip, "-o", refused, "--rate", "1/2"])
        #expect(r.status == 64 && r.stderr.contains("webm"), "\(r.status) \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: refused))
    }

    // MARK: progress and summary

    /// `--progress json`: NDJSON on stderr, every line an event, `done` rising to `total`, which is
    /// the summary's `outputFrames`; `--json` on stdout agrees with what ffprobe counts.
    @Test func progressJSONAndSummaryAgreeWithTheFile() throws {
        let out = Self.dir.file("progress.mp4")
        let r = try CLI.run(["export", Self.clip, "-o", out, "--rate", "1/8", "--progress", "json", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let all = try r.stderr.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        // every line is JSON: progress, and notes (this export repeats frames) as events of their own
        let events = all.filter { $0["event"] as? String == "progress" }
        let notes = all.filter { $0["event"] as? String != "progress" }
        #expect(!events.isEmpty)
        #expect(
            notes.allSatisfy { ["note", "warning"].contains($0["event"] as? String) && ($0["message"] as? String)?.hasPrefix("slomo: ") == true }, "\(notes)")
        #expect(notes.contains { ($0["message"] as? String)?.contains("repeat a source frame") == true }, "\(notes)")
        let done = events.compactMap { $0["done"] as? Int }
        #expect(done == done.sorted() && done.count == events.count)
        let summary = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        let frames = try #require(summary["outputFrames"] as? Int)
        #expect(frames == 240)  // 1 s at 1/8 = 8 s at 30 fps
        #expect(done.last == frames && events.last?["total"] as? Int == frames)
        let counted = try CLI.tool([
            "ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
            "stream=nb_read_packets", "-of", "csv=p=0", out,
        ]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(counted == "240")
        #expect(summary["audioCodec"] as? String == "aac" && summary["audioFrames"] as? Int == 8 * 48_000)
        // on a pipe, `auto` draws no bar and prints nothing on stderr
        let quiet = try CLI.run(["export", Self.clip, "-o", Self.dir.file("quiet.mp4"), "--rate", "1/2"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }
}
