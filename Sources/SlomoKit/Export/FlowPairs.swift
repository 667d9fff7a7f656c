import Foundation
import SlomoCore
import SlomoFFmpeg
import SlomoFlow

/// One source pair's work for `--frame-blend flow`: its flow, then every in-between frame the
/// schedule asks of it. Made by the export's thread, worked by one of `FlowPairs`' threads, read
/// back by the export's thread in order.
final class FlowPairJob: @unchecked Sendable {
    // Safe: the worker writes `info`, `frames`, `error` before `done` (under the pool's lock); the export reads them after.
    let a: Frame, b: Frame
    let i: Int, j: Int
    let times: [Rational]
    fileprivate(set) var info: FlowInterpolator.PairInfo?
    fileprivate(set) var frames: [Frame] = []
    fileprivate(set) var error: (any Error)?
    fileprivate(set) var done = false

    init(a: Frame, b: Frame, i: Int, j: Int, times: [Rational]) {
        self.a = a
        self.b = b
        self.i = i
        self.j = j
        self.times = times
    }

    /// The flow, and the frames unless the pair is a cut.
    fileprivate func work(_ flow: FlowInterpolator, format: PixelFormat) {
        do {
            let info = try flow.setPair(FlowChooser.planes(a), FlowChooser.planes(b))
            self.info = info
            if info.isCut { return }
            frames = try times.map { t in
                let out = try Frame(width: a.width, height: a.height, pixelFormat: format)
                try flow.render(t.doubleValue, into: (0..<3).map { p in out.withPlane(p) { ($0, $1) } })
                return out
            }
        } catch {
            self.error = error
        }
    }
}

/// The threads that work `--frame-blend flow`'s pairs, each with its own interpolator: pairs are
/// taken in the order they are given, and at most `limit` are given and not yet taken back, so
/// memory stays bounded (two source frames and their in-between frames per pair).
final class FlowPairs: @unchecked Sendable {  // `queue`, `inFlight` and `stopping` under `cond`
    let workers: Int
    let limit: Int
    private let cond = NSCondition()
    private var queue: [FlowPairJob] = []
    private var stopping = false
    private var threads: [Thread] = []

    /// `first`: the interpolator made (and so checked) by the caller, for the first thread; the
    /// others make their own.
    init(workers: Int, first: FlowInterpolator, quality: FlowQuality, format: PixelFormat) {
        self.workers = Swift.max(1, workers)
        limit = 2 * self.workers + 2
        let layout = first.layout
        let handoff = Handoff(first)
        for w in 0..<self.workers {
            let t = Thread { [self] in
                let flow: FlowInterpolator
                do { flow = w == 0 ? handoff.take() : try FlowInterpolator(layout: layout, quality: quality, threads: 1) } catch {
                    self.fail(error)
                    return
                }
                while let job = self.next() {
                    job.work(flow, format: format)
                    self.finished(job)
                }
            }
            t.name = "slomo-flow-\(w)"
            threads.append(t)
            t.start()
        }
    }

    /// Hands a pair to the next free thread.
    func submit(_ job: FlowPairJob) {
        cond.lock()
        queue.append(job)
        cond.broadcast()
        cond.unlock()
    }

    /// Waits until `job` is worked.
    func wait(_ job: FlowPairJob) {
        cond.lock()
        while !job.done { cond.wait() }
        cond.unlock()
    }

    func isDone(_ job: FlowPairJob) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        return job.done
    }

    /// Lets the threads end after the pair each is working: pairs not yet taken are dropped (after
    /// `finish` there are none; after a failure nobody will read them).
    func stop() {
        cond.lock()
        stopping = true
        queue.removeAll()
        cond.broadcast()
        cond.unlock()
    }

    private func next() -> FlowPairJob? {
        cond.lock()
        defer { cond.unlock() }
        while queue.isEmpty && !stopping { cond.wait() }
        return queue.isEmpty ? nil : queue.removeFirst()
    }

    private func finished(_ job: FlowPairJob) {
        cond.lock()
        job.done = true
        cond.broadcast()
        cond.unlock()
    }

    /// A thread that could not make its interpolator works no pairs: every pair it would have
    /// taken fails with the reason instead.
    private func fail(_ error: any Error) {
        while let job = next() {
            job.error = error
            finished(job)
        }
    }

    deinit { stop() }

    private final class Handoff: @unchecked Sendable {  // `take()` is called once, by the first thread
        private var flow: FlowInterpolator?
        init(_ flow: FlowInterpolator) { self.flow = flow }
        func take() -> FlowInterpolator {
            defer { flow = nil }
            return flow!
        }
    }
}
