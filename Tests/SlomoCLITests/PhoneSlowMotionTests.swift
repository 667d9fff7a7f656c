import Foundation
import Testing

/// A phone's slow-motion file: 240 fps captured, stored to play at 30 fps, `com.android.capture.fps`
/// written by the ffmpeg CLI as Android writes it. probe reports it; --real-time takes rates against real time.
@Suite struct PhoneSlowMotionTests {
    /// 2 s at 30 fps with frame-index codes, tagged as a 240 fps capture.
    static func phoneClip(_ d: TempDir, tag: Bool = true) throws -> String {
        let plain = d.file(tag ? "plain.mp4" : "untagged.mp4"), phone = d.file("phone.mp4")
        let g = try CLI.run(["generate", "--fps", "30", "--duration", "2", "--size", "320x180", "-o", plain])
        #expect(g.status == 0, "\(g.stderr)")
        guard tag else { return plain }
        let f = try CLI.tool([
            "ffmpeg", "-v", "error", "-y", "-i", plain, "-c", "copy", "-metadata", "com.android.capture.fps=240.000000",
            "-movflags", "use_metadata_tags", phone,
        ])
        #expect(f.status == 0, "\(f.stderr)")
        return phone
    }

    @Test func probeReportsTheCaptureRateAndTheRealTimeSpeed() throws {
        let d = TempDir()
        let clip = try Self.phoneClip(d)
        let r = try CLI.run(["probe", clip, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        let s = try #require(json["slowMotion"] as? [String: Any], "\(r.stdout)")
        #expect((s["captureFrameRate"] as? [String: Int])?["numerator"] == 240 && s["captureFps"] as? Double == 240)
        #expect((s["realTimeSpeed"] as? [String: Int]) == ["numerator": 1, "denominator": 8] && s["source"] as? String == "com.android.capture.fps")
        #expect(try CLI.run(["probe", clip]).stdout.contains("slow motion: captured at 240 fps, plays at 30 fps: 1/8 of real time"))
    }

    @Test func realTimeRatesBecomeFileRates() throws {
        let d = TempDir()
        let clip = try Self.phoneClip(d)
        // half real speed of a file that plays at 1/8: 4x the file, 2 s → 0.5 s, every 4th frame
        let out = d.file("half.mp4")
        let e = try CLI.run(["export", clip, "-o", out, "--rate", "1/2", "--real-time", "--fps", "30", "--no-audio"])
        #expect(e.status == 0, "\(e.stderr)")
        #expect(try CLI.calibrationIndices(out) == Array(stride(from: 0, to: 60, by: 4)).map { Optional($0) })
        // retime: the packets copied with 4x faster times
        let rt = d.file("rt.mp4")
        let r = try CLI.run(["retime", clip, "-o", rt, "--rate", "1/2", "--real-time", "--no-audio", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try #require(try JSONSerialization.jsonObject(with: try CLI.run(["probe", rt, "--json"]).output) as? [String: Any])
        let v = try #require((p["streams"] as? [[String: Any]])?.first { $0["kind"] as? String == "video" })
        #expect((v["measuredFrameRate"] as? [String: Int]) == ["numerator": 120, "denominator": 1], "\(v)")
        // a file that does not say its capture rate: one line, exit 64, nothing written
        let plain = try Self.phoneClip(d, tag: false)
        let bad = try CLI.run(["export", plain, "-o", d.file("bad.mp4"), "--rate", "1/2", "--real-time"])
        #expect(
            bad.status == 64
                && bad.stderr == "slomo: \(plain): --real-time: the file carries no capture rate (com.android.capture.fps); give --rate relative to the file\n",
            "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d.file("bad.mp4")))
    }

    /// The output's capture-rate tag describes the output, not the source: a player that trusts it
    /// shows the output's own speed against real time; where that speed varies, the tag is left out
    /// (the source's value kept under slomo's name) and a note says so.
    @Test func theOutputsCaptureRateTagDescribesIt() throws {
        let d = TempDir()
        let clip = try Self.phoneClip(d)
        func slowMotion(_ path: String) throws -> [String: Any]? {
            let p = try #require(try JSONSerialization.jsonObject(with: try CLI.run(["probe", path, "--json"]).output) as? [String: Any])
            return p["slowMotion"] as? [String: Any]
        }
        // export at half real time, 30 fps: it stands for 60 captured frames a second
        let half = d.file("half.mp4")
        let e = try CLI.run(["export", clip, "-o", half, "--rate", "1/2", "--real-time", "--fps", "30", "--no-audio"])
        #expect(e.status == 0 && e.stderr.contains("com.android.capture.fps 240 → 60: the output plays at 1/2 of real time"), "\(e.stderr)")
        let h = try #require(try slowMotion(half))
        #expect((h["realTimeSpeed"] as? [String: Int]) == ["numerator": 1, "denominator": 2], "\(h)")
        #expect((h["captureFrameRate"] as? [String: Int]) == ["numerator": 60, "denominator": 1], "\(h)")
        // retime keeps every frame: still 240 captured a second, now played at 120
        let rt = d.file("rt.mp4")
        let r = try CLI.run(["retime", clip, "-o", rt, "--rate", "1/2", "--real-time", "--no-audio"])
        #expect(r.status == 0, "\(r.stderr)")
        let t = try #require(try slowMotion(rt))
        #expect((t["realTimeSpeed"] as? [String: Int]) == ["numerator": 1, "denominator": 2], "\(t)")
        // a segment at another speed: no one capture rate describes it
        let seg = d.file("seg.mp4")
        let s = try CLI.run(["export", clip, "-o", seg, "--segment", "0.5-1@1/2", "--no-audio"])
        #expect(s.status == 0 && s.stderr.contains("com.android.capture.fps 240 left out"), "\(s.stderr)")
        #expect(try slowMotion(seg) == nil)
        let tags = try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "format_tags", "-of", "json", seg]).stdout
        #expect(tags.contains("\"slomo_source_capture_fps\": \"240\"") && !tags.contains("com.android.capture.fps"), "\(tags)")
    }
}
