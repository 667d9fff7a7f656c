import Foundation
import SlomoCore
import SlomoFFmpeg
@testable import SlomoKit
import Testing

/// Export's stages on their own: which source frame each output frame shows (`ExportFramePlan`,
/// on a real 60 fps clip's timeline), and what the holding chooser sends its sink (frames whose
/// luma carries their source index, a sink that records instead of encoding).
@Suite struct ExportStageTests {
    /// 1 s of 60 fps FFV1 in NUT (exact 1/60 s times), no audio.
    static func timeline(_ dir: TemporaryDirectory) throws -> MediaTimeline {
        var r = GenerateRequest(output: dir.file("c.nut"), frameRate: Rational(60), duration: Rational(1), width: 96, height: 64)
        r.codec = .ffv1
        r.audio = false
        _ = try Generator.generate(r)
        return try MediaTimeline(path: r.output)
    }

    static func plan(_ timeline: MediaTimeline, rate: Rational, blend: ExportRequest.FrameBlend = .none) throws -> ExportFramePlan {
        let map = try RetimeSpec(rate: rate).resolve(duration: timeline.duration, frameRate: timeline.frameRate)
        return try ExportFramePlan(timeline: timeline, map: map, frameRate: Rational(30), blend: blend)
    }

    @Test func theFramePlanShowsTheFrameAtEachOutputTimeAndDecodesOnlyThose() throws {
        let dir = TemporaryDirectory()
        let timeline = try Self.timeline(dir)
        #expect(timeline.frameTimes.count == 60)
        // half speed to 30 fps: output frame n at n/30 s is source time n/60 s, frame n
        let half = try Self.plan(timeline, rate: Rational(1, 2))
        #expect(half.total == 60 && half.shown == Array(0..<60) && half.needed.allSatisfy { $0 })
        // quarter speed: each source frame shown twice
        let quarter = try Self.plan(timeline, rate: Rational(1, 4))
        #expect(quarter.total == 120 && quarter.shown == (0..<120).map { $0 / 2 })
        // double speed: every fourth frame is shown, and only those are decoded…
        let fast = try Self.plan(timeline, rate: Rational(2))
        #expect(fast.total == 15 && fast.shown == (0..<15).map { $0 * 4 })
        #expect(fast.needed.enumerated().allSatisfy { $0.element == ($0.offset % 4 == 0) })
        // …the next one too when blending, every one for motion interpolation
        let blended = try Self.plan(timeline, rate: Rational(2), blend: .blend)
        #expect(blended.needed.enumerated().allSatisfy { $0.element == ($0.offset % 4 <= 1) })
        #expect(try Self.plan(timeline, rate: Rational(2), blend: .motion).needed.allSatisfy { $0 })
    }

    @Test func aDecodedFrameIsFoundByItsExactPTSOrItsTime() throws {
        let dir = TemporaryDirectory()
        let timeline = try Self.timeline(dir)
        let plan = try Self.plan(timeline, rate: Rational(1, 2))
        let tb = timeline.info.timeBase
        let origin = try timeline.origin.ticks(in: tb, rounding: .nearest)
        for k in [0, 1, 30, 59] {
            let pts = origin + (try timeline.frameTimes[k].ticks(in: tb, rounding: .nearest))
            #expect(plan.index(ofPTS: pts) == k && plan.index(ofDecoded: pts) == k)
        }
        // a pts between two frames (NUT's time base is finer than 1/120 s) is no frame's own, but
        // lies in frame 30's interval
        try #require(tb < Rational(1, 120))
        let between = origin + (try (timeline.frameTimes[30] + Rational(1, 120)).ticks(in: tb, rounding: .nearest))
        #expect(plan.index(ofPTS: between) == nil && plan.index(ofDecoded: between) == 30)
    }

    /// Records each output frame's number and the source index its luma carries.
    final class RecordingSink: FrameSink {
        var shown: [(n: Int64, value: UInt8)] = []
        func prepare(_ decoded: Frame) throws -> Frame { decoded }
        func encode(_ frame: Frame, _ n: Int64) throws { shown.append((n, frame.withPlane(0) { p, _ in p[0] })) }
    }

    /// Source frame k: luma 4k everywhere, chroma grey.
    static func frame(_ k: Int) throws -> Frame {
        let f = try Frame(width: 96, height: 64, pixelFormat: .yuv420p)
        for (plane, rows, value) in [(0, 64, UInt8(4 * k)), (1, 32, 128), (2, 32, 128)] {
            f.withPlane(plane) { p, stride in p.update(repeating: value, count: stride * rows) }
        }
        return f
    }

    @Test func holdingRepeatsEachFrameAsPlannedAndCountsRepeatsAndMissingFrames() throws {
        let dir = TemporaryDirectory()
        let plan = try Self.plan(try Self.timeline(dir), rate: Rational(1, 4))
        let sink = RecordingSink()
        let chooser = HoldingChooser(plan: plan, sink: sink, blend: false)
        for k in 0..<60 where k != 10 {  // frame 10 damaged: never decoded
            try chooser.take(try Self.frame(k), index: k)
            if k == 6 { try chooser.take(try Self.frame(5), index: 5) }  // a late duplicate is ignored
        }
        try chooser.finish()
        #expect(sink.shown.map(\.n) == Array(0..<120))
        // output n shows source n/2; frame 10's two outputs show frame 9 instead
        let expected: [UInt8] = (0..<120).map { (n: Int) -> UInt8 in
            let k = n / 2
            return UInt8(4 * (k == 10 ? 9 : k))
        }
        #expect(sink.shown.map(\.value) == expected)
        #expect(chooser.next == 120 && chooser.missing == 2 && chooser.repeated == 60)
    }

    @Test func blendingMixesTheNextFrameByTheOutputFramesPlaceBetweenThem() throws {
        let dir = TemporaryDirectory()
        let plan = try Self.plan(try Self.timeline(dir), rate: Rational(1, 4), blend: .blend)
        let sink = RecordingSink()
        let chooser = HoldingChooser(plan: plan, sink: sink, blend: true)
        for k in 0..<60 { try chooser.take(try Self.frame(k), index: k) }
        try chooser.finish()
        // output n is at source time n/120 s: on frame n/2 for even n, halfway to the next for odd
        // n (luma 4k and 4k+4 mixed at 1/2: 4k+2 exactly); the last frame has no next one
        let expected = (0..<120).map { n -> UInt8 in
            let k = n / 2
            return UInt8(n % 2 == 1 && k < 59 ? 4 * k + 2 : 4 * k)
        }
        #expect(sink.shown.map(\.value) == expected)
    }

    /// Retime's packet times: every packet's pts on the output timeline exactly, in a time base
    /// that holds them all.
    @Test func retimedPacketTimesAreExactInTheTimeBaseTheyChoose() throws {
        let dir = TemporaryDirectory()
        let timeline = try Self.timeline(dir)
        for spec in [RetimeSpec(rate: Rational(1, 2)), RetimeSpec(segments: [try SegmentSpec(parsing: "0.5-1@1/3")])] {
            let map = try spec.resolve(duration: timeline.duration, frameRate: timeline.frameRate)
            let times = try RetimedPacketTimes(timeline: timeline, map: map, stored: map, fromOriginal: false)
            let ticks = try times.ticks(in: times.timeBase)
            #expect(!ticks.rounded && ticks.pts.count == 60)
            for (k, pts) in ticks.pts.enumerated() {
                let expected = map.targetTime(forSource: Rational(Int64(k), 60))
                #expect(Rational(ticks: pts, timeBase: times.timeBase) == expected, "packet \(k) of \(spec)")
            }
            #expect(times.averageRate == Rational(60) / map.target.duration)
        }
    }
}
