import SlomoCore
import SlomoFFmpeg

/// Export's frame chooser: decoded source frames in (each with its index), output frames out to
/// the sink, in order, until the schedule is full. It counts what the output could not show as
/// planned: repeats of the same source frame, and frames that show an earlier one because the
/// planned one was damaged or missing.
protocol FrameChooser: AnyObject {
    /// Output frames sent so far.
    var next: Int64 { get }
    var repeated: Int64 { get }
    var missing: Int64 { get }
    func take(_ frame: Frame, index k: Int) throws
    /// After the last source frame: the rest of the schedule.
    func finish() throws
    /// What made the in-between frames (`flow`), for the report.
    var interpolation: InterpolationReport? { get }
}

extension FrameChooser {
    var interpolation: InterpolationReport? { nil }
}

/// `--frame-blend flow` in the export report: what the optical flow made.
public struct InterpolationReport: Codable, Sendable, Equatable {
    public var method: String
    /// `--flow-quality`.
    public var quality: String
    /// Output frames made along the flow (the rest are source frames, untouched, or a cut's nearer frame).
    public var framesMade: Int64
    /// Source pairs whose flow was computed (once each, however many frames lie between them).
    public var pairs: Int
    /// Pairs no motion explains (a scene cut): their in-between frames show the nearer frame.
    public var cuts: Int
    /// Pairs made across damaged or missing source frames (the good frames either side were used).
    public var pairsAcrossMissing: Int
    /// Why the flow was not used, when it was not (frames too small for its patches).
    public var fallback: String?
}

/// Where a chooser's output frames go: made ready (demosaiced) and encoded as output frame `n`.
/// `VideoSink` in an export; a test's recorder in `ExportStageTests`.
protocol FrameSink: AnyObject {
    func prepare(_ decoded: Frame) throws -> Frame
    func encode(_ frame: Frame, _ n: Int64) throws
}

extension VideoSink: FrameSink {}

/// The chooser `--frame-blend` asks for.
func makeFrameChooser(_ r: ExportRequest, plan: ExportFramePlan, map: RetimeMap, sink: VideoSink) throws -> any FrameChooser {
    switch r.frameBlend {
    case .motion: try MotionChooser(r, plan: plan, map: map, sink: sink)
    case .flow:
        try FlowChooser(
            plan: plan, sink: sink, workFormat: sink.workFormat, width: sink.width, height: sink.height,
            quality: r.flowQuality, threads: r.threads)
    case .none, .blend: HoldingChooser(plan: plan, sink: sink, blend: r.frameBlend == .blend)
    }
}

/// `--frame-blend none` and `blend`: each output frame shows the source frame held (the last at or
/// before its time); with `blend`, mixed with the next one by the output frame's place between them.
final class HoldingChooser: FrameChooser {
    private(set) var next: Int64 = 0, repeated: Int64 = 0, missing: Int64 = 0
    private let plan: ExportFramePlan
    private let sink: any FrameSink
    private let blend: Bool
    private var held: (frame: Frame, index: Int)?
    private var lastShownIndex = -1

    init(plan: ExportFramePlan, sink: any FrameSink, blend: Bool) {
        self.plan = plan
        self.sink = sink
        self.blend = blend
    }

    func take(_ frame: Frame, index k: Int) throws {
        if let h = held {
            if k <= h.index { return }  // out-of-order duplicate
            try emit(upTo: k - 1, held: h, after: (frame, k))
        }
        held = (frame, k)
    }

    func finish() throws {
        if let h = held { try emit(upTo: Int.max, held: h, after: nil) }
    }

    /// Every output frame that shows source frame `k` or earlier, from `held`.
    private func emit(upTo k: Int, held: (frame: Frame, index: Int), after: (frame: Frame, index: Int)?) throws {
        var prepared: Frame?
        while next < plan.total && plan.shown[Int(next)] <= k {
            let shown = plan.shown[Int(next)]
            if shown != held.index { missing += 1 }
            if shown == lastShownIndex { repeated += 1 }
            lastShownIndex = shown
            let base = try prepared ?? sink.prepare(held.frame)
            prepared = base
            if blend, let a = after, held.index + 1 == a.index {
                let s = plan.schedule.sourceTime(ofFrame: next)
                let t0 = plan.times[held.index], t1 = plan.times[a.index]
                let w = Swift.max(.zero, Swift.min(.one, (s - t0) / (t1 - t0)))
                if w.isZero {
                    try sink.encode(base, next)
                } else {
                    try sink.encode(try FrameBlender.blend(base, try sink.prepare(a.frame), weight: w), next)
                }
            } else {
                // a fresh reference per output frame: the encoder may still hold the last one
                try sink.encode(try base.reference(), next)
            }
            next += 1
        }
    }
}

/// `--frame-blend motion`: source frames go into libavfilter's minterpolate at their *target*
/// times, and it produces frames at exactly n/fps on the output timeline.
final class MotionChooser: FrameChooser {
    private(set) var next: Int64 = 0, repeated: Int64 = 0
    let missing: Int64 = 0
    private let plan: ExportFramePlan
    private let map: RetimeMap
    private let sink: VideoSink
    private let frameRate: Rational
    private let graph: FilterGraph
    private static let timeBase = Rational(1, 1_000_000)
    private var lastPTS: Int64 = .min
    private var lastPushed: Frame?

    init(_ r: ExportRequest, plan: ExportFramePlan, map: RetimeMap, sink: VideoSink) throws {
        self.plan = plan
        self.map = map
        self.sink = sink
        frameRate = r.frameRate
        graph = try FilterGraph(
            width: sink.width, height: sink.height, pixelFormat: sink.workFormat, timeBase: Self.timeBase,
            description: "minterpolate=fps=\(r.frameRate):mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1",
            threads: r.threads)
    }

    func take(_ frame: Frame, index k: Int) throws {
        // on the output's timeline: 0 at the first output frame (`--start` maps there)
        let target = try (map.targetTime(forSource: plan.times[k]) - plan.schedule.covered.start).ticks(in: Self.timeBase, rounding: .nearest)
        guard target > lastPTS else { return }
        lastPTS = target
        let p = try sink.prepare(frame)
        let c = p === frame ? try frame.reference() : p
        c.pts = target
        lastPushed = c
        try graph.push(c)
        try pull()
    }

    func finish() throws {
        try graph.push(nil)
        try pull()
        // minterpolate ends before its last input: show the last source frame to the end of the schedule
        while next < plan.total, let last = lastPushed {
            try sink.encode(try last.reference(), next)
            repeated += 1
            next += 1
        }
    }

    private func pull() throws {
        while true {
            let out = Frame()
            guard case .got = try graph.pull(into: out), let p = out.pts else { return }
            let n = (Rational(ticks: p, timeBase: graph.outputTimeBase) * frameRate).rounded(.nearest)
            guard n == next, next < plan.total else { continue }
            try sink.encode(out, next)
            next += 1
        }
    }
}

/// Linear blend of two 8-bit planar frames of the same format and size.
enum FrameBlender {
    static func blend(_ a: Frame, _ b: Frame, weight: Rational) throws -> Frame {
        let out = try Frame(width: a.width, height: a.height, pixelFormat: a.pixelFormat)
        let w = Int((weight * Rational(256)).rounded(.nearest))
        let planes = [(a.width, a.height), ((a.width + 1) / 2, (a.height + 1) / 2), ((a.width + 1) / 2, (a.height + 1) / 2)]
        for (i, (pw, ph)) in planes.enumerated() {
            a.withPlane(i) { pa, sa in
                b.withPlane(i) { pb, sb in
                    out.withPlane(i) { po, so in
                        for y in 0..<ph {
                            let ra = pa + y * sa, rb = pb + y * sb, ro = po + y * so
                            for x in 0..<pw { ro[x] = UInt8((Int(ra[x]) * (256 - w) + Int(rb[x]) * w + 128) >> 8) }
                        }
                    }
                }
            }
        }
        return out
    }
}
