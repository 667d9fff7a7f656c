import Foundation
import SlomoCore
import SlomoFFmpeg
import SlomoFlow

/// `--frame-blend flow`: an output frame between two source frames is made from both along their
/// optical flow (`FlowInterpolator`: OpenCV's DIS both ways, projected to its time); one at a source
/// frame's own time is that frame, untouched. A pair's flow is computed once, for every output
/// frame between them. A scene cut (no motion explains the change) shows the nearer frame instead,
/// counted; frames too small for the flow's patches are mixed as `blend` does, said once.
final class FlowChooser: FrameChooser {
    private(set) var next: Int64 = 0, repeated: Int64 = 0, missing: Int64 = 0
    /// Output frames made by the flow, source pairs whose flow was computed, cuts found, and pairs
    /// whose frames lie on either side of damaged or missing ones.
    private(set) var made: Int64 = 0, pairs = 0, cuts = 0, acrossMissing = 0
    /// Why the flow was not used (said in the report), nil when it was.
    private(set) var fallback: String?
    /// Per made frame: (source frame before, source frame after, t) — what the tests check; kept
    /// only when `keepsTrace`.
    private(set) var trace: [(Int, Int, Rational)] = []
    var keepsTrace = false
    /// The threads working pairs (nil: the frames are too small for the flow).
    let workers: FlowPairs?
    private let plan: ExportFramePlan
    private let sink: any FrameSink
    private let workFormat: PixelFormat
    private let quality: FlowQuality
    private var held: (frame: Frame, index: Int)?
    private var lastShownIndex = -1
    /// Output frames not yet encoded, in order: a frame ready now, or the k-th frame of a pair
    /// being worked.
    private enum Slot { case ready(Frame), pair(FlowPairJob, Int) }
    private var slots: [(Slot, Int64)] = []
    private var slotsHead = 0
    private var jobs: [FlowPairJob] = []  // given to the workers and not yet read back, in order

    /// Loads the flow library now: without OpenCV the export is refused before anything is written.
    /// `threads`: pairs worked at once (0: one per core).
    init(
        plan: ExportFramePlan, sink: any FrameSink, workFormat: PixelFormat, width: Int, height: Int,
        quality: FlowQuality, threads: Int
    ) throws {
        self.plan = plan
        self.sink = sink
        self.workFormat = workFormat
        self.quality = quality
        guard let l = workFormat.planarYUV else { throw FlowError.failed("\(workFormat) is not planar YUV") }
        let layout = FlowInterpolator.Layout(
            width: width, height: height, chromaShiftX: l.chromaShiftX, chromaShiftY: l.chromaShiftY,
            bytesPerSample: l.bytesPerSample, bitDepth: l.bitDepth)
        let count = threads > 0 ? threads : Swift.max(1, ProcessInfo.processInfo.activeProcessorCount)
        // each thread works its own pair on one core: OpenCV's own threads would only contend
        let (first, why) = try Self.open(layout, quality, 1)
        fallback = why
        workers = first.map { FlowPairs(workers: count, first: $0, quality: quality, format: workFormat) }
    }

    deinit { workers?.stop() }

    /// The interpolator, or (frames too small for the flow) why not.
    static func open(_ layout: FlowInterpolator.Layout, _ quality: FlowQuality, _ threads: Int) throws -> (FlowInterpolator?, String?) {
        let why: String
        do { return (try FlowInterpolator(layout: layout, quality: quality, threads: threads), nil) } catch {
            guard case .tooSmall(let w) = error else { throw error }
            why = w
        }
        let mixed = layout.bytesPerSample == 1 && layout.chromaShiftX == 1 && layout.chromaShiftY == 1
        return (
            nil, "\(layout.width)x\(layout.height): \(why): " + (mixed ? "frames were mixed as --frame-blend blend does" : "the nearer source frame was shown")
        )
    }

    func take(_ frame: Frame, index k: Int) throws {
        if let h = held {
            if k <= h.index { return }
            try emit(upTo: k - 1, held: h, after: (frame, k))
        }
        held = (frame, k)
        try drain(waiting: false)
        // source frames that wait behind a pair still being worked are bounded too
        if slots.count - slotsHead - jobs.reduce(0, { $0 + $1.times.count }) > Self.maxWaiting { try drain(waiting: true) }
    }

    /// Source frames held at most while the pairs before them are worked.
    static let maxWaiting = 64

    func finish() throws {
        if let h = held { try emit(upTo: Int.max, held: h, after: nil) }
        try drain(waiting: true)
        workers?.stop()
    }

    private func emit(upTo k: Int, held: (frame: Frame, index: Int), after: (frame: Frame, index: Int)?) throws {
        var prepared: Frame?
        var between: [(Int64, Rational)] = []  // output frames strictly between the pair, and their t
        while next < plan.total && plan.shown[Int(next)] <= k {
            let shown = plan.shown[Int(next)]
            if shown != held.index { missing += 1 }
            let base = try prepared ?? sink.prepare(held.frame)
            prepared = base
            let s = plan.schedule.sourceTime(ofFrame: next)
            let t0 = plan.times[held.index]
            if let a = after, s > t0 {
                let t1 = plan.times[a.index]
                between.append((next, Swift.min(.one, (s - t0) / (t1 - t0))))
            } else {
                // a source frame's own time (or past the last one): that frame
                if shown == lastShownIndex { repeated += 1 }
                slots.append((.ready(try base.reference()), next))
            }
            lastShownIndex = shown
            next += 1
        }
        guard let a = after, let base = prepared, !between.isEmpty else { return }
        let b = try sink.prepare(a.frame)
        let (i, j) = (held.index, a.index)
        if j > i + 1 { acrossMissing += 1 }
        guard let workers else {
            // too small for the flow: mixed (8-bit 4:2:0, what the blender takes), or the nearer frame
            let mixes = workFormat == .yuv420p || workFormat == .yuvj420p
            for (n, w) in between {
                let f = mixes ? try FrameBlender.blend(base, b, weight: w) : try (w < Rational(1, 2) ? base : b).reference()
                slots.append((.ready(f), n))
            }
            return
        }
        // the pair's frames at exactly the source's times are the source frames (w = 1: frame b)
        let job = FlowPairJob(a: base, b: b, i: i, j: j, times: between.map { $0.1 })
        while jobs.count >= workers.limit { try drain(waiting: true, untilFewerThan: workers.limit) }
        workers.submit(job)
        jobs.append(job)
        for (k, (n, _)) in between.enumerated() { slots.append((.pair(job, k), n)) }
    }

    /// Encodes the output frames that are ready, in order; `waiting`: waits for pairs being worked
    /// (all of them, or until fewer than `untilFewerThan` are).
    private func drain(waiting: Bool, untilFewerThan bound: Int = 1) throws {
        while slotsHead < slots.count {
            let (slot, n) = slots[slotsHead]
            switch slot {
            case .ready(let f):
                try sink.encode(f, n)
            case .pair(let job, let k):
                if !workers!.isDone(job) {
                    guard waiting && jobs.count >= bound else { return compact() }
                    workers!.wait(job)
                }
                if k == 0 { try readBack(job) }
                let w = job.times[k]
                if job.info!.isCut {
                    try sink.encode(try (w < Rational(1, 2) ? job.a : job.b).reference(), n)
                } else {
                    if keepsTrace { trace.append((job.i, job.j, w)) }
                    made += 1
                    try sink.encode(job.frames[k], n)
                }
            }
            slotsHead += 1
        }
        compact()
    }

    /// A pair's flow is read back with its first frame: counted, and its failure thrown.
    private func readBack(_ job: FlowPairJob) throws {
        jobs.removeFirst()
        if let e = job.error { throw e }
        pairs += 1
        if job.info!.isCut { cuts += 1 }
    }

    private func compact() {
        if slotsHead > 64 && slotsHead * 2 > slots.count {
            slots.removeFirst(slotsHead)
            slotsHead = 0
        }
    }

    var interpolation: InterpolationReport? {
        InterpolationReport(
            method: "flow", quality: quality.rawValue, framesMade: made, pairs: pairs, cuts: cuts,
            pairsAcrossMissing: acrossMissing, fallback: fallback)
    }

    static func planes(_ f: Frame) -> FlowInterpolator.Planes {
        (0..<3).map { p in f.withPlane(p) { (UnsafePointer($0), $1) } }
    }
}
