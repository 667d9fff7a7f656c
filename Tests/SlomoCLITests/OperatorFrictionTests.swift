import Foundation
import Testing

/// What an operator meets on the way (#30): NTSC decimals, a probe that names tracks, play into
/// a container its sound cannot go in, progress with a rate and an ETA, retime's progress, and
/// sound outside the slowed parts left as it was.
@Suite(.serialized) struct OperatorFrictionTests {
    static let dir = TempDir()
    static let clip = CLI.generated(dir, "src.mp4", ["--fps", "60", "--duration", "2", "--size", "320x180"])

    /// `--fps 29.97` is 30000/1001 (what players and encoders mean by it), with a note saying so.
    @Test func ntscDecimalsAreTheNTSCRates() throws {
        let out = Self.dir.file("ntsc.mp4")
        let r = try CLI.run(["export", Self.clip, "-o", out, "--fps", "29.97", "--overwrite"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("slomo: note: --fps 29.97 taken as 30000/1001 fps"), "\(r.stderr)")
        let rate = try CLI.tool(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=avg_frame_rate", "-of", "csv=p=0", out])
        #expect(rate.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "30000/1001")
        let g = try CLI.run(["generate", "--fps", "59.94", "--duration", "0.2", "--size", "160x96", "-o", Self.dir.file("g.mkv"), "--overwrite"])
        #expect(g.status == 0 && g.stdout.contains("at 60000/1001 fps"), "\(g.stdout) \(g.stderr)")
    }

    /// probe names each track's language and title.
    @Test func probeNamesTracks() throws {
        let input = Self.dir.file("named.mkv")
        let make = try CLI.tool([
            "ffmpeg", "-v", "error", "-y", "-i", Self.clip, "-map", "0", "-c", "copy", "-metadata:s:a:0", "language=fra",
            "-metadata:s:a:0", "title=Commentaire", input,
        ])
        #expect(make.status == 0, "\(make.stderr)")
        let r = try CLI.run(["probe", input])
        #expect(r.stdout.contains("language fra, 'Commentaire'"), "\(r.stdout)")
    }

    /// play into MP4 (which holds no float PCM) says which containers work, before anything is written.
    @Test func playSaysWhichContainerWorks() throws {
        let out = Self.dir.file("play.mp4")
        let r = try CLI.run(["play", Self.clip, "-o", out])
        expectOneLine(r, status: 64, contains: ["play writes its sound as 32-bit float PCM, which mp4 cannot hold: write .mkv, .nut, .mov"])
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// `--progress json` lines carry the rate so far and the time left; retime has them too.
    @Test(arguments: ["export", "retime"])
    func progressHasRateAndETA(command: String) throws {
        let out = Self.dir.file("p-\(command).mkv")
        let r = try CLI.run([command, Self.clip, "-o", out, "--rate", "1/2", "--progress", "json", "--overwrite"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(events.count >= 2, "\(r.stderr)")
        let last = try #require(events.last)
        #expect(last["done"] as? Int == last["total"] as? Int && (last["total"] as? Int ?? 0) > 0)
        #expect(last["throughputFps"] is Double || last["throughputFps"] is Int, "\(last)")
        #expect(events.allSatisfy { $0["type"] as? String == "progress" && $0["version"] as? Int == 2 })
        #expect(last["etaSeconds"] as? Double == 0 || last["etaSeconds"] as? Int == 0, "\(last)")
    }

    /// Sound outside the slowed part goes through untouched (no time-pitch engine): with float
    /// PCM out, the rate-1 stretch before the segment is the source's decoded samples exactly.
    @Test func soundAtRateOneIsNotStretched() throws {
        let out = Self.dir.file("seg.mkv")
        let r = try CLI.run(["retime", Self.clip, "-o", out, "--segment", "1-1.5@1/4", "--audio-codec", "pcm-float", "--overwrite"])
        #expect(r.status == 0, "\(r.stderr)")
        func samples(_ path: String, seconds: Double) throws -> [Float] {
            let d = try CLI.tool(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-t", String(seconds), "-f", "f32le", "-"]).output
            return d.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        // (ffmpeg's -t cuts Matroska's 1 ms packets a little short: the common part is compared)
        let a = try samples(Self.clip, seconds: 0.9), b = try samples(out, seconds: 0.9)
        #expect(min(a.count, b.count) > 2 * 48_000 * 85 / 100)
        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 1
        #expect(worst == 0, "largest difference \(worst) before the segment")
    }

    /// Delivery: a 10-bit HEVC source out as 8-bit 4:2:0 at a size with the aspect kept, a target
    /// bit rate and a keyframe every 15 frames, each read back with ffprobe; bad values refused
    /// before anything opens.
    @Test func deliveryOptions() throws {
        let ten = Self.dir.file("ten.mp4")
        let make = try CLI.tool([
            "ffmpeg", "-v", "error", "-y", "-i", Self.clip, "-c:v", "libx265", "-pix_fmt", "yuv420p10le",
            "-x265-params", "log-level=error", "-c:a", "copy", ten,
        ])
        #expect(make.status == 0, "\(make.stderr)")
        let out = Self.dir.file("delivered.mp4")
        let r = try CLI.run(["export", ten, "-o", out, "--size", "640x0", "--pix-fmt", "yuv420p", "--bitrate", "2M", "--gop", "15", "--overwrite"])
        #expect(r.status == 0, "\(r.stderr)")
        let s = try CLI.tool(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height,pix_fmt,bit_rate", "-of", "csv=p=0", out])
        let f = s.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        #expect(f.count == 4 && f[0] == "640" && f[1] == "360" && f[2] == "yuv420p", "\(s.stdout)")
        if f.count == 4, let rate = Double(f[3]) { #expect(rate > 1.2e6 && rate < 3e6, "bit rate \(rate)") }
        let keys = try CLI.tool(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame", "-of", "csv=p=0", out])
        let flags = keys.stdout.split(separator: "\n").map { $0.hasPrefix("1") }
        #expect(flags.count == 60 && flags.enumerated().allSatisfy { $0.element == ($0.offset % 15 == 0) }, "\(flags)")
        for (args, says) in [
            (["--size", "0x0"], "expected WIDTHxHEIGHT"), (["--pix-fmt", "foo"], "not a pixel format FFmpeg knows"),
            (["--pix-fmt", "rgb48le"], "libx264 writes yuv420p"),
            (["--bitrate", "2M", "--crf", "20"], "not both"), (["--gop", "0"], "1...10000"), (["--bitrate", "5"], "from 10k to 1G"),
        ] {
            expectOneLine(try CLI.run(["export", ten, "-o", Self.dir.file("bad.mp4")] + args), status: 64, contains: [says])
        }
    }
}
