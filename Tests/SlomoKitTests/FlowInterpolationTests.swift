import Foundation
import SlomoCore
import SlomoFFmpeg
import SlomoFlow
@testable import SlomoKit
import Testing

/// Whether libslomo-flow.so loads here (built by `swift build --product slomo-flow`; OpenCV installed).
enum FlowAvailability {
    static let loads = (try? FlowLibrary.shared()) != nil
    static var reason: Comment {
        do {
            _ = try FlowLibrary.shared()
            return "the flow library loads"
        } catch { return "skipped: \(error)" }
    }
}

/// `--frame-blend flow`: the interpolator on pictures whose motion is known, and the chooser on a
/// plan (which source pair and t each output frame used, exactly; source-timed frames untouched).
@Suite(.enabled(if: FlowAvailability.loads, FlowAvailability.reason))
struct FlowInterpolationTests {
    /// A smooth texture moved by (dx, dy): the sample at (x, y) is the pattern at (x − dx, y − dy).
    static func pattern(_ x: Double, _ y: Double) -> Double {
        128 + 50 * sin(x * 0.21 + y * 0.05) + 35 * cos(x * 0.06 - y * 0.23) + 20 * sin((x + y) * 0.11)
    }

    static func frame(width: Int = 320, height: Int = 240, dx: Double, dy: Double, tenBit: Bool = false, other: Bool = false) throws -> Frame {
        let f = try Frame(width: width, height: height, pixelFormat: tenBit ? .yuv420p10 : .yuv420p)
        let scale = tenBit ? 4.0 : 1.0
        for plane in 0..<3 {
            let (w, h) = plane == 0 ? (width, height) : (width / 2, height / 2)
            f.withPlane(plane) { p, stride in
                for y in 0..<h {
                    for x in 0..<w {
                        let v: Double
                        if plane == 0 {
                            v = other ? Self.pattern(Double(y) * 1.7 + 40, Double(x) * 0.6) : Self.pattern(Double(x) - dx, Double(y) - dy)
                        } else {
                            v = 128 + 30 * sin((Double(x) - dx / 2) * 0.17 + Double(plane)) * cos((Double(y) - dy / 2) * 0.13)
                        }
                        if tenBit {
                            (p + y * stride).withMemoryRebound(to: UInt16.self, capacity: w) { $0[x] = UInt16(v * scale) }
                        } else {
                            p[y * stride + x] = UInt8(max(0, min(255, v.rounded())))
                        }
                    }
                }
            }
        }
        return f
    }

    /// Mean |a − b| of the luma inside a border, in 8-bit levels.
    static func lumaError(_ a: Frame, _ b: Frame, border: Int = 24, tenBit: Bool = false) -> Double {
        var sum = 0.0, n = 0.0
        a.withPlane(0) { pa, sa in
            b.withPlane(0) { pb, sb in
                for y in border..<(a.height - border) {
                    for x in border..<(a.width - border) {
                        let va: Double, vb: Double
                        if tenBit {
                            va = Double((pa + y * sa).withMemoryRebound(to: UInt16.self, capacity: x + 1) { $0[x] }) / 4
                            vb = Double((pb + y * sb).withMemoryRebound(to: UInt16.self, capacity: x + 1) { $0[x] }) / 4
                        } else {
                            va = Double(pa[y * sa + x])
                            vb = Double(pb[y * sb + x])
                        }
                        sum += abs(va - vb)
                        n += 1
                    }
                }
            }
        }
        return sum / n
    }

    static func interpolator(tenBit: Bool = false, quality: FlowQuality = .medium) throws -> FlowInterpolator {
        try FlowInterpolator(
            layout: .init(width: 320, height: 240, chromaShiftX: 1, chromaShiftY: 1, bytesPerSample: tenBit ? 2 : 1, bitDepth: tenBit ? 10 : 8),
            quality: quality, threads: 0)
    }

    static func render(_ flow: FlowInterpolator, _ t: Double, tenBit: Bool = false) throws -> Frame {
        let out = try Frame(width: 320, height: 240, pixelFormat: tenBit ? .yuv420p10 : .yuv420p)
        try flow.render(t, into: (0..<3).map { p in out.withPlane(p) { ($0, $1) } })
        return out
    }

    /// A texture moving 8 px right and 4 px down between two frames: the frames at t = 1/4 and 1/2
    /// are the texture moved 2, 1 and 4, 2 px, within a documented 1.5 levels mean (the blend of
    /// the two is off by far more), in every quality.
    @Test(arguments: FlowQuality.allCases)
    func aKnownMotionIsRebuiltAtAnyT(quality: FlowQuality) throws {
        let flow = try Self.interpolator(quality: quality)
        let a = try Self.frame(dx: 0, dy: 0), b = try Self.frame(dx: 8, dy: 4)
        let info = try flow.setPair(FlowChooser.planes(a), FlowChooser.planes(b))
        #expect(!info.isCut && info.residual < 3, "\(info)")
        for t in [0.25, 0.5] {
            let made = try Self.render(flow, t)
            let truth = try Self.frame(dx: 8 * t, dy: 4 * t)
            let e = Self.lumaError(made, truth)
            let blended = Self.lumaError(try FrameBlender.blend(a, b, weight: Rational(Int64(t * 4), 4)), truth)
            #expect(e < 1.5 && e * 4 < blended, "t \(t) (\(quality)): flow \(e) levels, blend \(blended)")
        }
    }

    @Test func tenBitInTenBitOut() throws {
        let flow = try Self.interpolator(tenBit: true)
        let a = try Self.frame(dx: 0, dy: 0, tenBit: true), b = try Self.frame(dx: 6, dy: -3, tenBit: true)
        _ = try flow.setPair(FlowChooser.planes(a), FlowChooser.planes(b))
        let made = try Self.render(flow, 0.5, tenBit: true)
        let e = Self.lumaError(made, try Self.frame(dx: 3, dy: -1.5, tenBit: true), tenBit: true)
        #expect(e < 1.5, "\(e) levels (8-bit scale)")
        // the low two bits carry information: not an 8-bit picture shifted up
        let lowBits = made.withPlane(0) { p, s in (p + 120 * s).withMemoryRebound(to: UInt16.self, capacity: 200) { row in (100..<200).map { row[$0] & 3 } } }
        #expect(Set(lowBits).count > 1)
    }

    @Test func aCutIsFoundAndMotionIsNot() throws {
        let flow = try Self.interpolator()
        let a = try Self.frame(dx: 0, dy: 0)
        let moved = try flow.setPair(FlowChooser.planes(a), FlowChooser.planes(try Self.frame(dx: 10, dy: 0)))
        #expect(!moved.isCut, "\(moved)")
        let cut = try flow.setPair(FlowChooser.planes(a), FlowChooser.planes(try Self.frame(dx: 0, dy: 0, other: true)))
        #expect(cut.isCut, "\(cut)")
    }

    /// Which source pair and t each output frame used, against the retime map (60 fps source frames
    /// at k/60 s, output at 30 fps): an output frame at a source frame's own time is that frame,
    /// untouched; every other one is made from the two frames around its time, at its exact place
    /// between them, and lands at its own place in the output (pairs worked on 1 or 3 threads: each
    /// source frame is flat grey 4·k, so a made frame's grey says which pair and t it came from).
    /// For a rate, a segment, a ramp and a curve.
    @Test(arguments: ["rate", "segment", "ramp", "curve"], [1, 3])
    func eachOutputFrameUsesThePairAroundItsTime(kind: String, threads: Int) throws {
        let dir = TemporaryDirectory()
        let timeline = try ExportStageTests.timeline(dir)
        let spec: RetimeSpec
        switch kind {
        case "rate": spec = RetimeSpec(rate: Rational(1, 4))
        case "segment": spec = RetimeSpec(segments: [try SegmentSpec(parsing: "0.2-0.5@1/8")])
        case "ramp": spec = RetimeSpec(segments: [try SegmentSpec(parsing: "0.2-0.7@1/8:0.2", allowRamp: true)])
        default: spec = RetimeSpec(curve: try SpeedCurve(parsing: "0@1,0.4@1/10,0.9@1"))
        }
        let map = try spec.resolve(duration: timeline.duration, frameRate: timeline.frameRate, curveNodes: timeline.frameTimes)
        let plan = try ExportFramePlan(timeline: timeline, map: map, frameRate: Rational(30), blend: .flow)
        let sink = ExportStageTests.RecordingSink()
        let c = try FlowChooser(plan: plan, sink: sink, workFormat: .yuv420p, width: 96, height: 64, quality: .fast, threads: threads)
        c.keepsTrace = true
        #expect(c.workers?.workers == threads)
        for k in 0..<60 { try c.take(try ExportStageTests.frame(k), index: k) }
        try c.finish()
        #expect(sink.shown.map(\.n) == Array(0..<plan.total))
        var expected: [(Int, Int, Rational)] = [], untouched = 0
        for n in 0..<plan.total {
            let s = map.sourceTime(forTarget: Rational(n) / Rational(30)) * Rational(60)  // in source frames
            let i = Int(s.floor), t = s - Rational(Int64(i))
            if t.isZero || i >= 59 {
                // the frame itself: its value, exactly
                #expect(sink.shown[Int(n)].value == UInt8(4 * min(i, 59)), "frame \(n): \(sink.shown[Int(n)].value)")
                untouched += 1
            } else {
                expected.append((i, i + 1, t))
                let grey = 4 * (Double(i) + t.doubleValue)
                #expect(abs(Double(sink.shown[Int(n)].value) - grey) <= 1, "frame \(n): \(sink.shown[Int(n)].value), not \(grey)")
            }
        }
        #expect(c.trace.count == expected.count && c.made == Int64(expected.count), "\(kind): \(c.trace.count) made, \(expected.count) expected")
        for (got, want) in zip(c.trace, expected) {
            #expect(got.0 == want.0 && got.1 == want.1 && got.2 == want.2, "\(kind): \(got) against \(want)")
        }
        #expect(c.pairs <= 59 && c.cuts == 0 && untouched + expected.count == Int(plan.total))
    }

    /// 60 fps source frames at 1/4 speed, 30 fps out: the map, the plan, a sink that records.
    static func quarterSpeed() throws -> (RetimeMap, ExportFramePlan, ExportStageTests.RecordingSink) {
        let dir = TemporaryDirectory()
        let timeline = try ExportStageTests.timeline(dir)
        let map = try RetimeSpec(rate: Rational(1, 4)).resolve(duration: timeline.duration, frameRate: timeline.frameRate, curveNodes: nil)
        return (map, try ExportFramePlan(timeline: timeline, map: map, frameRate: Rational(30), blend: .flow), ExportStageTests.RecordingSink())
    }

    /// Source frames 10 and 11 do not decode: the output frames between 9 and 12 are made from the
    /// pair around them, at their place in the wider gap, and the report says so.
    @Test func damagedFramesBetweenTwoGoodOnesUseThePairAroundThem() throws {
        let (map, plan, sink) = try Self.quarterSpeed()
        let c = try FlowChooser(plan: plan, sink: sink, workFormat: .yuv420p, width: 96, height: 64, quality: .fast, threads: 2)
        c.keepsTrace = true
        for k in 0..<60 where k != 10 && k != 11 { try c.take(try ExportStageTests.frame(k), index: k) }
        try c.finish()
        #expect(c.acrossMissing == 1 && c.missing > 0)
        let wide = c.trace.filter { $0.0 == 9 }
        #expect(!wide.isEmpty && wide.allSatisfy { $0.1 == 12 }, "\(wide)")
        for n in 0..<plan.total {
            let s = map.sourceTime(forTarget: Rational(n) / Rational(30)) * Rational(60)
            guard s > Rational(9), s < Rational(12) else { continue }
            let t = (s - Rational(9)) / Rational(3)
            #expect(c.trace.contains { $0.0 == 9 && $0.2 == t }, "frame \(n) at \(t)")
            let grey = 4 * (9 + 3 * t.doubleValue)
            #expect(abs(Double(sink.shown[Int(n)].value) - grey) <= 1, "frame \(n): \(sink.shown[Int(n)].value), not \(grey)")
        }
        #expect(c.interpolation?.pairsAcrossMissing == 1)
    }

    /// Frames under 16x16 are below the flow's patch size: mixed as `blend` does, and said.
    @Test func framesTooSmallForTheFlowAreMixedAndSaySo() throws {
        let (_, plan, sink) = try Self.quarterSpeed()
        let c = try FlowChooser(plan: plan, sink: sink, workFormat: .yuv420p, width: 8, height: 8, quality: .medium, threads: 0)
        #expect(c.workers == nil && c.fallback?.contains("8x8") == true, "\(String(describing: c.fallback))")
        for k in 0..<60 {
            let f = try Frame(width: 8, height: 8, pixelFormat: .yuv420p)
            for (plane, rows, value) in [(0, 8, UInt8(4 * k)), (1, 4, 128), (2, 4, 128)] {
                f.withPlane(plane) { p, stride in p.update(repeating: value, count: stride * rows) }
            }
            try c.take(f, index: k)
        }
        try c.finish()
        #expect(Int64(sink.shown.count) == plan.total && c.made == 0 && c.interpolation?.fallback != nil)
        // output frame 1 lies 1/2 of the way from source frame 0 to 1: mixed, grey 2
        #expect(sink.shown[1].value == 2, "\(sink.shown[1].value)")
    }
}
