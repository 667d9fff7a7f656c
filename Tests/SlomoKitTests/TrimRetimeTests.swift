import Foundation
import SlomoTestSupport
import Testing
import SlomoCore
@testable import SlomoKit

/// `retime --start/--end` (#30, item 13): packets copied, the part kept exact to the frame. Calibration
/// clips with B-frames (P every 3 frames, a keyframe every 30) whose frames paint their own index:
/// the output's decoded frames must be exactly the frames asked for, however the cut meets the GOPs.
@Suite struct TrimRetimeTests {
    static func clip(_ dir: TemporaryDirectory, _ name: String = "src.mp4") throws -> String {
        var r = GenerateRequest(output: dir.file(name), frameRate: Rational(60), duration: Rational(3), width: 160, height: 96)
        r.gop = 30
        r.referenceInterval = 3
        _ = try Generator.generate(r)
        return r.output
    }

    func indices(_ path: String) throws -> [Int?] { try Prober.probe(path: path, frames: true).frames?.map(\.calibrationIndex) ?? [] }

    /// A start inside a GOP: the copy begins at the keyframe before, its pre-roll hidden by the MP4
    /// edit list; what plays is frames 63…149 and the sound of that part, from 0.
    @Test(arguments: [("f63", "f150", Rational(1, 2)), ("1.06", "2.5", Rational(1)), ("f60", "f145", Rational(1, 4))] as [(String, String, Rational)])
    func playsExactlyTheFramesAsked(start: String, end: String, rate: Rational) throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        var r = RetimeRequest(input: src, output: dir.file("part.mp4"), spec: RetimeSpec(rate: rate))
        r.trim = try SourceTrim.parse(start: start, end: end)
        r.audioCodec = "alac"
        let report = try Retimer.retime(r)
        // the frame on screen at --start, the first frame at or after --end
        func frame(_ text: String, up: Bool) -> Int64 {
            if text.hasPrefix("f") { return Int64(text.dropFirst())! }
            let f = try! Rational(parsing: text) * Rational(60)
            return up ? f.ceiling : f.floor
        }
        let first = frame(start, up: false), last = frame(end, up: true)
        let trim = try #require(report.trim)
        #expect(trim.sourceStart == Rational(first, 60) && trim.sourceEnd == Rational(last, 60))
        #expect(trim.keyframe == Rational(first / 30 * 30, 60) && trim.prerollFrames == Int(first % 30))
        #expect(try indices(report.output) == (first..<last).map { Optional(Int($0)) })
        let duration = Rational(last - first, 60) / rate
        #expect(report.outputDuration == duration)
        let probe = try Prober.probe(path: report.output)
        let v = try #require(probe.streams.first { $0.kind == "video" })
        #expect(v.frameCount == last - first, "\(v)")
        // the sound of the same part, from 0: each click where the map puts it
        let (x, sr) = try AVSyncTests.decodedAudio(report.output, duration: duration)
        #expect(abs(Double(x.count) / Double(sr) - duration.doubleValue) < 0.03)
        let clicks = CalibrationTone(sampleRate: sr).clickTimes(duration: Rational(3))
            .filter { $0 >= Rational(first, 60) + Rational(1, 20) && $0 < Rational(last, 60) - Rational(1, 20) }
        #expect(!clicks.isEmpty)
        for c in clicks {
            let expected = (c + Rational(1, 1000) - Rational(first, 60)) / rate
            let off = (AVSyncTests.clickCentre(x, sampleRate: sr, near: expected) - expected.doubleValue) * 1000
            #expect(abs(off) < 30, "click at \(c) s: \(off) ms off")
        }
    }

    /// An end where a later-shown frame is needed before it (a B-frame's reference): refused, with
    /// the nearest ends a copy can make; nothing written.
    @Test func anEndInsideAReferenceGroupIsRefused() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        var r = RetimeRequest(input: src, output: dir.file("part.mp4"), spec: RetimeSpec())
        r.trim = try SourceTrim.parse(start: "f60", end: "f146")
        #expect {
            try Retimer.retime(r)
        } throws: { e in
            let text = "\(e)"
            return (e as? ExportError).map { $0.kind == .badRequest } == true && text.contains("(f145)") && text.contains("(f148)")
                && text.hasPrefix(src) && text.contains("export")
        }
        #expect(!FileManager.default.fileExists(atPath: r.output))
        // the ends it offers work
        r.trim = try SourceTrim.parse(start: "f60", end: "f145")
        #expect(try indices(try Retimer.retime(r).output) == (60..<145).map { Optional($0) })
    }

    /// Matroska holds no edit list: a start inside a GOP is refused with the nearest keyframes; a
    /// start on a keyframe is exact.
    @Test func matroskaStartsOnAKeyframeOrRefuses() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        var r = RetimeRequest(input: src, output: dir.file("part.mkv"), spec: RetimeSpec(rate: Rational(1, 2)))
        r.trim = try SourceTrim.parse(start: "f75", end: nil)
        #expect {
            try Retimer.retime(r)
        } throws: { e in
            "\(e)".contains("(f60)") && "\(e)".contains("(f90)") && "\(e)".contains("edit list")
        }
        #expect(!FileManager.default.fileExists(atPath: r.output))
        r.trim = try SourceTrim.parse(start: "f90", end: nil)
        let report = try Retimer.retime(r)
        #expect(try indices(report.output) == (90..<180).map { Optional($0) })
        #expect(report.trim?.prerollFrames == 0 && report.outputDuration == Rational(90, 60) * Rational(2))
    }

    /// A batch job and its dry run take `start`/`end` for retime, and refuse alike.
    @Test func batchRetimeJobsTrim() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        var job = BatchJob(input: src, output: dir.file("b.mkv"), command: .retime)
        job.start = "f30"
        job.end = "f90"
        #expect(try JobPlan.of(job).outputDuration == Rational(1))
        _ = try JobRun(job: job).run()
        #expect(try indices(job.output) == (30..<90).map { Optional($0) })
        job.start = "f31"
        job.output = dir.file("c.mkv")
        #expect(throws: ExportError.self) { try JobPlan.of(job) }
    }
}
