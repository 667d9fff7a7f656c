import Foundation
import Testing

/// A manifest's mistakes, all at once and each where it is (#30): the field's own line, a typo
/// in `defaults` blamed on `defaults` (not on the first job), field names suggested, exit 65 for
/// every "the manifest is wrong"; the command line's own options refused as flags (64); a dry
/// run that opens the inputs and resolves the speeds; `--real-time` for phone clips.
@Suite(.serialized) struct BatchManifestTests {
    static let dir = TempDir()
    static let clip = CLI.generated(dir, "clip.mp4", ["--fps", "60", "--duration", "1", "--size", "160x96"])

    func write(_ name: String, _ text: String) throws -> String {
        let p = Self.dir.file(name)
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    @Test func everyMistakeAtItsLine() throws {
        let m = try write(
            "m.yaml",
            """
            jobs:
              - input: \(Self.clip)
                output: \(Self.dir.file("o1.mp4"))
                segmnet: 0.2-0.4@1/4
              - input: \(Self.clip)
                output: \(Self.dir.file("o2.mp4"))
                crf: high
              - input: \(Self.clip)
                output: \(Self.dir.file("o3.mp4"))
                pitch: rubber
            """)
        let r = try CLI.run(["batch", m])
        #expect(r.status == 65, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "slomo: \(m):4: jobs[0].segmnet: unknown field 'segmnet' (did you mean 'segment'?)",
                "slomo: \(m):7: jobs[1].crf: crf: expected a whole number",
                "slomo: \(m):8: jobs[2]: pitch 'rubber': expected spectral, time-domain, zero-latency, varispeed or mute",
            ], "\(lines)")
        let refusal = try JSONSerialization.jsonObject(with: r.output) as? [String: Any]
        #expect((refusal?["errors"] as? [String])?.count == 3 && refusal?["exitStatus"] as? Int == 65)
        #expect(!FileManager.default.fileExists(atPath: Self.dir.file("o1.mp4")))
    }

    /// A typo in `defaults` is the defaults' (once), not every job's.
    @Test func defaultsAreBlamedOnDefaults() throws {
        let m = try write(
            "d.json",
            """
            {
              "defaults": {
                "rate": "1/2",
                "pitch": "spectrl"
              },
              "jobs": [{"input": "\(Self.clip)", "output": "\(Self.dir.file("d1.mp4"))"},
                       {"input": "\(Self.clip)", "output": "\(Self.dir.file("d2.mp4"))"}]
            }
            """)
        let r = try CLI.run(["batch", m])
        #expect(r.status == 65)
        #expect(
            CLI.errorLines(r) == ["slomo: \(m):2: defaults: pitch 'spectrl': expected spectral, time-domain, zero-latency, varispeed or mute"],
            "\(r.stderr)")
        let typo = try write(
            "t.json",
            """
            {"defaults": {"sgement": "0.1-0.2@1/2"}, "jobs": [{"input": "\(Self.clip)", "output": "\(Self.dir.file("t1.mp4"))"}]}
            """)
        let t = try CLI.run(["batch", typo])
        #expect(t.status == 65 && t.stderr.contains("\(typo):1: defaults.sgement: unknown field 'sgement' (did you mean 'segment'?)"), "\(t.stderr)")
    }

    /// The command line's own options are the command line's: flags, exit 64.
    @Test func commandLineOptionsAreFlags() throws {
        let r = try CLI.run(["batch", Self.clip, "--out-dir", Self.dir.file("out"), "--frame-blend", "x"])
        expectOneLine(r, status: 64, contains: ["slomo: --frame-blend 'x': expected none, blend, motion or flow"])
    }

    /// --dry-run opens every input and resolves its speeds: a missing input and a segment past
    /// the end are refused (exit 1), a good job planned with its durations.
    @Test func dryRunProbes() throws {
        let m = try write(
            "dry.json",
            """
            [{"input": "\(Self.clip)", "output": "\(Self.dir.file("a.mp4"))", "segment": "0.2-0.4@1/4"},
             {"input": "\(Self.dir.file("gone.mp4"))", "output": "\(Self.dir.file("b.mp4"))"},
             {"input": "\(Self.clip)", "output": "\(Self.dir.file("c.mp4"))", "segment": "5-6@1/4"}]
            """)
        let r = try CLI.run(["batch", m, "--dry-run"])
        #expect(r.status == 1, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.map { $0["status"] as? String ?? "" } == ["planned", "refused", "refused"], "\(r.stdout)")
        #expect(lines[0]["outputSeconds"] as? Double == 1.6 && lines[0]["outputFrames"] as? Int == 48, "\(lines[0])")
        #expect((lines[1]["error"] as? String)?.contains("no such file") == true && lines[1]["exitStatus"] as? Int == 66)
        #expect((lines[2]["error"] as? String)?.contains("past the end") == true)
        #expect(!FileManager.default.fileExists(atPath: Self.dir.file("a.mp4")))
    }

    /// `batch --real-time` reads rates against real time on a folder of phone clips (240 fps
    /// captured, 30 fps stored): --rate 1/2 of real time is 4× the file's speed.
    @Test func realTimeForPhoneClips() throws {
        let phone = Self.dir.file("phone.mp4")
        let make = try CLI.tool([
            "ffmpeg", "-v", "error", "-y", "-i", Self.clip, "-c", "copy", "-metadata", "com.android.capture.fps=240",
            "-movflags", "+use_metadata_tags", phone,
        ])
        #expect(make.status == 0, "\(make.stderr)")
        let r = try CLI.run(["batch", phone, "--out-dir", Self.dir.file("rt"), "--command", "retime", "--rate", "1/2", "--real-time", "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        let plan = try JSONSerialization.jsonObject(with: Data(r.stdout.split(separator: "\n")[0].utf8)) as? [String: Any]
        // 60 fps stored, 240 captured: the file plays at 1/4 of real time; 1/2 of real time is 2× the file's speed
        #expect(plan?["outputSeconds"] as? Double == 0.5, "\(String(describing: plan))")
    }
}

/// What the review of #30's change found, pinned: defaults checked as an export takes them (a
/// retime default with an export-only value is the jobs' business), the encoder's checks only
/// once the container is known, a huge bit rate refused (it trapped), `audioStream` one field.
@Suite(.serialized) struct BatchManifestReviewTests {
    static let dir = TempDir()
    static let clip = CLI.generated(dir, "clip.mkv", ["--fps", "60", "--duration", "0.5", "--size", "160x96"])

    @Test func defaultsForAnotherCommandAreTheJobsBusiness() throws {
        let m = Self.dir.file("mixed.json")
        try """
        {"defaults": {"command": "retime", "fps": "60"},
         "jobs": [{"input": "\(Self.clip)", "output": "\(Self.dir.file("e.mp4"))", "command": "export"},
                  {"input": "\(Self.clip)", "output": "\(Self.dir.file("r.mkv"))"}]}
        """.write(toFile: m, atomically: true, encoding: .utf8)
        let r = try CLI.run(["batch", m, "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func encoderChecksWaitForTheContainer() throws {
        // .mkv inputs to --out-dir: ffv1 is fine there (it was refused as if the output were MP4)
        let r = try CLI.run(["batch", Self.clip, "--out-dir", Self.dir.file("o"), "--codec", "ffv1", "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        let huge = try CLI.run(["export", Self.clip, "-o", Self.dir.file("h.mkv"), "--bitrate", "99999999999999G"])
        expectOneLine(huge, status: 64, contains: ["--bitrate"])
    }
}
