import Foundation
import Testing

/// `--curve` as a user meets it: `plan` shows and draws the map, bad curves are refused with one
/// line naming where, exit 64, nothing written.
@Suite struct CurveCLITests {
    static let text = "0@1,1@1,1.5@1/4,2.5@1/4,3@1"

    static func clip(_ dir: TempDir) throws -> String {
        let clip = dir.file("c.mp4")
        let g = try CLI.run(["generate", "--fps", "240", "--duration", "3", "--size", "160x96", "-o", clip])  // with its click track: the audio checks apply
        #expect(g.status == 0, "\(g.stderr)")
        return clip
    }

    @Test func planShowsTheMapAndDrawsIt() throws {
        let dir = TempDir()
        let clip = try Self.clip(dir)
        let svg = dir.file("curve.svg")
        let r = try CLI.run(["plan", clip, "--curve", Self.text, "--json", "--plot", svg])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        let duration = json["targetDuration"] as? [String: Int]
        #expect(duration?["numerator"] == 15 && duration?["denominator"] == 2)
        let curve = json["curve"] as? [String: Any]
        let keys = curve?["keys"] as? [[String: Any]] ?? []
        #expect(keys.count == 5)
        // key 3 (1.5 s) lands at 2.25 s: 1 s at rate 1, then 0.5 s whose slowdown goes 1 → 4
        #expect((keys[2]["targetTime"] as? [String: Int]) == ["numerator": 9, "denominator": 4])
        // every output frame's source frame, as the exact map says (checked against the closed form in CurveExportTests)
        let schedule = json["schedule"] as? [[String: Any]] ?? []
        #expect(schedule.count == 225)
        #expect(Array(schedule.map { $0["sourceFrame"] as? Int ?? -1 }.prefix(31)) == Array(stride(from: 0, through: 240, by: 8)))
        let drawing = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(drawing.hasPrefix("<svg") && drawing.contains("source time (s)") && drawing.contains("output time (s)"))
        #expect(drawing.components(separatedBy: "<circle").count - 1 == 10)  // five keys on each panel
        #expect(drawing.contains(">2.5<") && drawing.contains(">3.0<") && drawing.contains(">8<"))  // round ticks: every 0.5 s of source, 2 s of output
    }

    @Test(arguments: [
        (["--curve", "0@1,2@1/2,1@1"], "--curve '0@1,2@1/2,1@1': key point 3 (1 s) is before key point 2 (2 s): sort them"),
        (["--curve", "0@1,1@1,1@1/2"], "--curve '0@1,1@1,1@1/2': key points 2 and 3 are both at 1 s"),
        (["--curve", "0@1,1@0"], "--curve '0@1,1@0': key point '1@0': rate must be > 0, got 0"),
        (["--curve", "0@1,4@1/2"], "--curve '0@1,4@1/2': key point 2 at 4 s is past the end of the media (3 s)"),
        (["--curve", "0@1,2@1/2", "--segment", "1.5-2.5@1/4"], "--curve '0@1,2@1/2': segment '1.5-2.5@1/4' overlaps the curve (0-2 s)"),
        (
            ["--curve", Self.text, "--pitch", "time-domain"],
            "time-domain audio: --curve '\(Self.text)': key point 3 (1.5 s): rate 1/4: outside time-domain's range 1/2…2; spectral, varispeed or mute cover it"
        ),
    ])
    func badCurvesAreRefused(args: [String], message: String) throws {
        let dir = TempDir()
        let clip = try Self.clip(dir)
        for command in ["export", "retime"] {
            let out = dir.file("\(command).mp4")
            let r = try CLI.run([command, clip, "-o", out] + args)
            #expect(r.status == 64, "\(command): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.hasSuffix(message + "\n"), "\(command): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        #expect(dir.entries.sorted() == ["c.mp4"], "\(dir.entries)")
    }
}
