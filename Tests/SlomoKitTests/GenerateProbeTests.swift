import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// Real FFmpeg encoders and muxers: generate calibration clips, read them back.
@Suite struct GenerateProbeTests {
    @Test(arguments: [
        ("mp4", GenerateRequest.VideoCodec.h264), ("mov", .mjpeg), ("mkv", .ffv1), ("mkv", .h264),
    ])
    func everyFrameCarriesItsIndex(ext: String, codec: GenerateRequest.VideoCodec) throws {
        let dir = TemporaryDirectory()
        var r = GenerateRequest(output: dir.file("c.\(ext)"), frameRate: Rational(120), duration: Rational(1, 2), width: 320, height: 180)
        r.codec = codec
        let g = try Generator.generate(r)
        #expect(g.frames == 60)
        let p = try Prober.probe(path: r.output, frames: true)
        let v = try #require(p.streams.first { $0.kind == "video" })
        #expect(v.frameCount == 60)
        #expect(v.measuredFrameRate == Rational(120))
        #expect(v.variableFrameRate == false)
        #expect(p.frames?.map(\.calibrationIndex) == (0..<60).map { Optional($0) })
        // Matroska shifts every stream by the AAC priming delay (MP4 uses an edit list instead):
        // frame times are exact steps of 1/120 s from the first frame.
        let ticks = (p.frames ?? []).compactMap { $0.ptsTicks }
        try #require(ticks.count == 60)
        // Matroska stores milliseconds: each time is the exact one rounded to its time base.
        let expected = try (0..<60).map { try Rational(Int64($0), 120).ticks(in: v.timeBase, rounding: .nearest) }
        #expect(ticks.map { $0 - ticks[0] } == expected)
        if ext != "mkv" { #expect(p.frames?.first?.pts == "0" && p.frames?[1].pts == "1/120") }
        #expect(p.damage.isEmpty)
        let a = try #require(p.streams.first { $0.kind == "audio" })
        #expect(a.sampleRate == 48_000 && a.channels == 2)
        // nothing but the output is left in the directory
        #expect(dir.entries == ["c.\(ext)"])
    }

    @Test func ntscRateIsExact() throws {
        let dir = TemporaryDirectory()
        var r = GenerateRequest(output: dir.file("ntsc.mp4"), frameRate: Rational(30000, 1001), duration: Rational(1), width: 320, height: 180)
        r.audio = false
        let g = try Generator.generate(r)
        #expect(g.frames == 30)  // ceil(30000/1001) = 30
        let p = try Prober.probe(path: r.output, frames: true)
        let v = try #require(p.streams.first)
        #expect(v.measuredFrameRate == Rational(30000, 1001))
        #expect(v.nominalFrameRate == Rational(30000, 1001))
        #expect(p.frames?[1].pts == "1001/30000")
        #expect(p.frames?.map(\.calibrationIndex) == (0..<30).map { Optional($0) })
    }

    @Test func audioLengthIsExactAndClicksAreWhereSaid() throws {
        let dir = TemporaryDirectory()
        let r = GenerateRequest(output: dir.file("a.mkv"), frameRate: Rational(60), duration: Rational(3, 2), width: 320, height: 180)
        let g = try Generator.generate(r)
        #expect(g.audioSamples == 72_000)
        #expect(g.clickTimes == [0, 1, 2, 3, 4, 5].map { Rational($0, 4) })
    }

    @Test func refusesToOverwriteAndLeavesNoPartialFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("x.mp4")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        let r = GenerateRequest(output: path, frameRate: Rational(30), duration: Rational(1), width: 320, height: 180)
        #expect(throws: OutputError(path, .exists)) { try Generator.generate(r) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
        // an encoder that cannot go into the container fails before anything is left behind
        var bad = GenerateRequest(output: dir.file("ffv1.mp4"), frameRate: Rational(30), duration: Rational(1), width: 320, height: 180)
        bad.codec = .ffv1
        #expect(throws: (any Error).self) { try Generator.generate(bad) }
        #expect(dir.entries == ["x.mp4"])
    }

    @Test func variableFrameRateIsMeasuredFromTimestamps() {
        // 1/1000 time base, 30000/1001 rounded to ms: constant within a tick
        let ntscMs = (0..<30).map { Int64((Rational(Int64($0) * 1001, 30000) * Rational(1000)).rounded(.nearest)) }
        let m = FrameRateMeasurement(pts: ntscMs, timeBase: Rational(1, 1000), nominal: Rational(30000, 1001))
        #expect(m.variable == false && m.rate == Rational(30000, 1001))
        // a ramp: 240 fps timestamps, then 30 fps ones
        let vfr: [Int64] = (0..<10).map { $0 * 4 } + (1...10).map { 36 + $0 * 33 }
        let v = FrameRateMeasurement(pts: vfr, timeBase: Rational(1, 1000), nominal: Rational(240))
        #expect(v.variable == true)
        #expect(v.minInterval == Rational(4, 1000) && v.maxInterval == Rational(33, 1000))
    }

    @Test func planSchedulesEveryEighthFrameAtRateOne() throws {
        let dir = TemporaryDirectory()
        var r = GenerateRequest(output: dir.file("p.mp4"), frameRate: Rational(240), duration: Rational(1), width: 320, height: 180)
        r.audio = false
        _ = try Generator.generate(r)
        let plan = try Planner.plan(path: r.output, spec: RetimeSpec(), outputFrameRate: Rational(30), listFrames: true)
        #expect(plan.outputFrames == 30)
        #expect(plan.schedule?.map(\.sourceFrame) == (0..<30).map { $0 * 8 })
        let slow = try Planner.plan(
            path: r.output, spec: RetimeSpec(segments: [try SegmentSpec(parsing: "f120-f240@1/8")]),
            outputFrameRate: Rational(30), listFrames: true)
        // 0.5 s at 1 (15 frames) + 0.5 s at 1/8 (4 s = 120 frames)
        #expect(slow.outputFrames == 135)
        #expect(slow.schedule?[15].sourceFrame == 120)
        #expect(slow.schedule?[16].sourceFrame == 121)
        #expect(slow.schedule?.last?.sourceFrame == 239)
        #expect(throws: FileRetimeError.self) {
            try Planner.plan(
                path: r.output, spec: RetimeSpec(segments: [try SegmentSpec(parsing: "0.5-3@1/2")]),
                outputFrameRate: Rational(30), listFrames: false)
        }
    }
}
