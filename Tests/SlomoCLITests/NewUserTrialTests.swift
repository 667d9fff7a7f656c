import Foundation
import Testing

/// What a second new user found silently wrong (issue 43), each on media the ffmpeg CLI makes as a
/// phone or a camera would: the size of a rotated clip, an odd size asked for, the bytes of a
/// repeated export, the rotation `play` cannot keep.
@Suite struct NewUserTrialTests {
    static let dir = TempDir()
    /// A portrait phone clip: 320x180 pixels stored with a 90° display matrix (it shows 180x320).
    static let portrait: String = {
        let plain = dir.file("plain.mp4"), rotated = dir.file("portrait.mp4")
        _ = try? CLI.run(["generate", "--fps", "30", "--duration", "1", "--size", "320x180", "-o", plain])
        _ = try? CLI.tool(["ffmpeg", "-v", "error", "-y", "-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated])
        return rotated
    }()

    /// The picture as it shows: stored size turned by the display matrix, as ffprobe reports both.
    static func shownSize(_ path: String) throws -> String {
        let r = try CLI.tool([
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height:stream_side_data=rotation",
            "-of", "json", path,
        ])
        let j = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        let s = try #require((j["streams"] as? [[String: Any]])?.first)
        let w = try #require(s["width"] as? Int), h = try #require(s["height"] as? Int)
        let rotation = ((s["side_data_list"] as? [[String: Any]])?.first?["rotation"] as? Int) ?? 0
        return rotation % 180 == 0 ? "\(w)x\(h)" : "\(h)x\(w)"
    }

    /// `--size` is the picture as it shows, in MP4 (matrix kept) as in Matroska (pixels turned).
    @Test func sizeOfARotatedClipIsTheShownSize() throws {
        #expect(try Self.shownSize(Self.portrait) == "180x320")
        for name in ["small.mp4", "small.mov", "small.mkv"] {
            let out = Self.dir.file(name)
            let e = try CLI.run(["export", Self.portrait, "-o", out, "--size", "90x160", "--no-audio"])
            #expect(e.status == 0, "\(e.stderr)")
            #expect(try Self.shownSize(out) == "90x160", "\(name)")
        }
        // one side from the other keeps the shown aspect
        let auto = Self.dir.file("auto.mp4")
        #expect(try CLI.run(["export", Self.portrait, "-o", auto, "--size", "90x0", "--no-audio"]).status == 0)
        #expect(try Self.shownSize(auto) == "90x160")
    }

    /// An odd size the encoder cannot write is refused in one line naming the sizes that work,
    /// nothing written; an encoder that takes odd sizes keeps it.
    @Test func anOddSizeIsRefusedOrKept() throws {
        let out = Self.dir.file("odd.mp4")
        let e = try CLI.run(["export", Self.portrait, "-o", out, "--size", "91x161", "--no-audio"])
        #expect(e.status == 64, "\(e.stderr)")
        #expect(
            e.stderr == "slomo: --size '91x161': libx264 writes yuv420p at even sizes only: give 90x160 or 92x162 (--codec ffv1 keeps odd sizes)\n",
            "\(e.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let kept = Self.dir.file("odd.mkv")
        let f = try CLI.run(["export", Self.portrait, "-o", kept, "--size", "91x161", "--codec", "ffv1", "--no-audio"])
        #expect(f.status == 0, "\(f.stderr)")
        #expect(try Self.shownSize(kept) == "91x161")
    }

    /// The same export or retime twice gives the same bytes (sound and slomo's tags included).
    @Test func theSameJobGivesTheSameBytes() throws {
        let clip = Self.dir.file("sound.mp4")
        #expect(try CLI.run(["generate", "--fps", "60", "--duration", "1", "--size", "320x180", "-o", clip]).status == 0)
        for (command, args) in [("export", ["--rate", "1/2", "--segment", "0.25-0.5@1/4"]), ("retime", ["--segment", "0.25-0.5@1/4"])] {
            let outs = try (1...2).map { n -> Data in
                let out = Self.dir.file("\(command)-\(n).mp4")
                let r = try CLI.run([command, clip, "-o", out] + args)
                #expect(r.status == 0, "\(r.stderr)")
                return try Data(contentsOf: URL(fileURLWithPath: out))
            }
            #expect(outs[0] == outs[1], "\(command): two runs differ")
        }
    }

    /// `play` copies the packets: into Matroska the rotation cannot go, and a warning event says so.
    @Test func playSaysWhenTheRotationCannotBeKept() throws {
        let mkv = Self.dir.file("played.mkv"), mp4 = Self.dir.file("played.mp4")
        let k = try CLI.run(["play", Self.portrait, "-o", mkv, "--no-audio"])
        #expect(
            k.status == 0 && k.stderr.contains(#""event":"warning""#) && k.stderr.contains("90° display rotation cannot be stored in matroska"), "\(k.stderr)")
        let m = try CLI.run(["play", Self.portrait, "-o", mp4, "--no-audio"])
        #expect(m.status == 0 && !m.stderr.contains("warning"), "\(m.stderr)")
        #expect(try Self.shownSize(mp4) == "180x320")
    }

    /// A 240 fps clip with B-frames (x264's default), and sound.
    static let fast: String = {
        let f = dir.file("fast.mp4")
        _ = try? CLI.run(["generate", "--fps", "240", "--duration", "1", "--size", "320x180", "-o", f])
        return f
    }()

    /// `plan --ramp` shows each ramp as one line (its steps with `--steps`, and in `--json`).
    @Test func planShowsARampAsOneLine() throws {
        let args = ["plan", Self.fast, "--ramp", "0.25-0.75@1/8:0.1", "--fps", "60"]
        let short = try CLI.run(args)
        #expect(short.status == 0, "\(short.stderr)")
        let lines = short.stdout.split(separator: "\n")
        #expect(lines.count == 6, "\(short.stdout)")
        #expect(lines.filter { $0.contains("eases @") && $0.contains("in 24 steps") }.count == 2, "\(short.stdout)")
        let long = try CLI.run(args + ["--steps"])
        #expect(long.stdout.split(separator: "\n").count == 52, "\(long.stdout)")
    }

    /// `plan --start/--end` plans the part export keeps: the same frames.
    @Test func planTakesThePartExportKeeps() throws {
        let part = ["--rate", "1/2", "--start", "0.25", "--end", "f120"]
        let p = try CLI.run(["plan", Self.fast, "--json"] + part)
        let plan = try #require(try JSONSerialization.jsonObject(with: p.output) as? [String: Any], "\(p.stderr)")
        let e = try CLI.run(["export", Self.fast, "-o", Self.dir.file("part.mp4"), "--no-audio", "--json"] + part)
        let export = try #require(try JSONSerialization.jsonObject(with: e.output) as? [String: Any], "\(e.stderr)")
        #expect(plan["outputFrames"] as? Int == export["outputFrames"] as? Int && plan["outputFrames"] as? Int == 15, "\(p.stdout)")
        let trim = try #require(plan["trim"] as? [String: [String: Int]])
        #expect(trim["sourceStart"] == ["numerator": 1, "denominator": 4] && trim["targetEnd"] == ["numerator": 1, "denominator": 1], "\(trim)")
    }

    /// A file of sound alone: export and retime point to stretch.
    @Test func soundAlonePointsToStretch() throws {
        let wav = Self.dir.file("tone.wav")
        #expect(try CLI.tool(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=1", wav]).status == 0)
        for command in ["export", "retime"] {
            let r = try CLI.run([command, wav, "-o", Self.dir.file("tone-\(command).mp4"), "--rate", "1/2"])
            #expect(
                r.status == 65
                    && r.stderr == "slomo: \(wav): no video stream, only sound: stretch time-stretches sound alone (slomo stretch \(wav) -o OUT --rate R)\n",
                "\(r.stderr)")
        }
    }

    /// `retime --end` on a B-frame's reference: refused naming --nearest-cut, which cuts at the
    /// nearest end a copy can make and says so.
    @Test func retimeCutsAtTheNearestPlaceWhenAsked() throws {
        let out = Self.dir.file("cut.mp4")
        let refused = try CLI.run(["retime", Self.fast, "-o", out, "--end", "0.5"])
        #expect(refused.status == 64 && refused.stderr.contains("--nearest-cut"), "\(refused.stderr)")
        let r = try CLI.run(["retime", Self.fast, "-o", out, "--end", "0.5", "--nearest-cut", "--json"])
        #expect(r.status == 0 && r.stderr.contains("--end 0.5 moved to f119, the nearest place a copy can cut"), "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        #expect(report["videoPackets"] as? Int == 119, "\(r.stdout)")
    }
}
