import Foundation
import SlomoCore
import SlomoKit
import Testing
@testable import slomo

/// The library's errors name options as typed `Setting`s; the command line names them as its flags
/// (CLIFailure). Checked both ways: every setting the library names is a flag of some command, and
/// errors raised deep in the library reach the user with the flag they typed.
@Suite struct SettingFlagTests {
    /// The command line's own rule (`CLIFailure.flag`): a job option's flag, else the field in kebab case.
    static func flag(_ s: Setting) -> String { CLIFailure.flag(s) }

    @Test func everySettingTheLibraryNamesIsAFlag() throws {
        let manual = try String(contentsOfFile: CLI.repository + "/Docs/man/slomo.1", encoding: .utf8)
        for s in Setting.all {
            #expect(manual.contains(".It Fl \(Self.flag(s).dropFirst())"), "\(s.name): no \(Self.flag(s)) in the manual")
        }
        #expect(Self.flag(.ramps) == "--ramp" && Self.flag(.ringMemory) == "--ring-memory")
    }

    /// `Setting.all`, which the test above walks, holds every setting the library declares.
    @Test func settingAllListsEveryDeclaredSetting() throws {
        let source = try String(contentsOfFile: CLI.repository + "/Sources/SlomoCore/Failure.swift", encoding: .utf8)
        let declared = source.matches(of: /= Setting\("(\w+)"\)/).map { String($0.1) }
        #expect(declared.count > 30 && Set(declared) == Set(Setting.all.map(\.name)), "\(Set(declared).symmetricDifference(Setting.all.map(\.name)))")
    }

    @Test func libraryErrorsNameTheFlagsTheUserTyped() throws {
        let dir = TempDir()
        let clip = CLI.generated(dir, "c.mp4", ["--fps", "60", "--duration", "1", "--size", "160x96"])
        let cases: [(args: [String], status: Int32, line: String)] = [
            (
                ["export", clip, "-o", clip, "--rate", "1/2"], 73,
                "slomo: \(clip): cannot write output: it is the input \(clip) (choose another name; even --overwrite never replaces an input)"
            ),
            (["export", clip, "-o", dir.file("o.mp4"), "--crf", "60"], 64, "slomo: --crf '60': must be in 0...51 for libx264 (lower is better quality)"),
            (["export", clip, "-o", dir.file("o.mp4"), "--fps", "2000"], 64, "slomo: --fps 2000: output frame rate must be in (0, 1000]"),
            (
                ["export", clip, "-o", dir.file("o.mp4"), "--rate", "1/2", "--pitch", "rubber"], 64,
                "slomo: --pitch 'rubber': choose algorithm: expected one of zero-latency, time-domain, spectral, varispeed, mute"
            ),
            (
                ["retime", clip, "-o", dir.file("o.mkv"), "--real-time"], 64,
                "slomo: \(clip): --real-time: the file carries no capture rate (\(CaptureRate.keys.joined(separator: ", "))); give --rate relative to the file"
            ),
            (["capture", "--source", "synthetic:fps=5000", "-o", dir.file("x.mkv")], 64, "slomo: --source synthetic:fps=5000: fps must be in 1...2000"),
            (
                ["capture", "--source", "synthetic", "--trigger", "motion=0", "-o", dir.file("x.mkv")], 64,
                "slomo: --trigger motion=0: the motion threshold is a mean brightness change in (0, 255]"
            ),
            (
                ["capture", "--source", "synthetic", "--trigger", "stdin", "--pre-trigger", "2", "--ring-frames", "10", "-o", dir.file("x.mkv")], 64,
                "slomo: --ring-memory: 10 frames cannot hold --pre-trigger 2 s (480 frames) and 8 more"
            ),
            (["batch", clip, "--out-dir", dir.path, "--shard", "3/2"], 64, "slomo: --shard '3/2': the index must be in 1...2"),
            // a rate is named as the flag that gave it; a segment's as the segment
            (["retime", clip, "-o", dir.file("o.mkv"), "--rate", "0"], 64, "slomo: --rate '0': rate must be > 0, got 0"),
            (["export", clip, "-o", dir.file("o.mp4"), "--rate", "1/2000"], 64, "slomo: --rate '1/2000': rate 1/2000 is outside 1/1000...1000"),
            (["plan", clip, "--segment", "0.1-0.2@1/2000"], 64, "slomo: segment '0.1-0.2@1/2000': rate 1/2000 is outside 1/1000...1000"),
            (
                ["stretch", clip, "-o", dir.file("o.wav"), "--rate", "x"], 64,
                "slomo: --rate 'x': rate 'x' is not a number (use a decimal or a fraction like 1/8)"
            ),
            // a job's speed map refused in batch's up-front check: the flag, as before typed errors
            (
                ["batch", clip, "--out-dir", dir.path, "--curve", "0@1"], 64,
                "slomo: --curve '0@1': a curve needs at least two key points TIME@RATE, e.g. 0@1,1@1/4"
            ),
        ]
        for c in cases {
            let r = try CLI.run(c.args)
            #expect(r.status == c.status && CLI.errorLines(r) == [c.line], "\(c.args): \(r.status) \(r.stderr)")
        }
        #expect(
            !FileManager.default.fileExists(atPath: dir.file("o.mp4")) && !FileManager.default.fileExists(atPath: dir.file("x.mkv"))
                && !FileManager.default.fileExists(atPath: dir.file("o.mkv")) && !FileManager.default.fileExists(atPath: dir.file("o.wav")))
    }
}
