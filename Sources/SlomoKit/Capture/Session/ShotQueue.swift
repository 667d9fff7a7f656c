import Foundation
import SlomoCore

/// The shots the triggers have placed and the saver has not taken yet: filled by the trigger
/// thread, drained in order by the saver, each counted once all its frames are read (the camera
/// keeps running until then when a `quit` arrives).
final class ShotQueue: @unchecked Sendable {
    // Safe: every `var` is touched under `cond`.
    private let cond = NSCondition()
    private var pending: [PlacedShot] = []
    private var ended = false
    private var triggered = 0
    private var read = 0

    /// Queues the shot `make` builds from its place among the shots triggered (1, 2, …).
    func add(_ make: (Int) -> PlacedShot) {
        cond.lock()
        triggered += 1
        pending.append(make(triggered))
        cond.broadcast()
        cond.unlock()
    }

    /// The next shot to save, waiting for one; nil once the triggers have ended and none is left.
    func next() -> PlacedShot? {
        cond.lock()
        defer { cond.unlock() }
        while pending.isEmpty && !ended { cond.wait() }
        return pending.isEmpty ? nil : pending.removeFirst()
    }

    /// The trigger thread has ended: no further shot comes.
    func triggersEnded() {
        cond.lock()
        ended = true
        cond.broadcast()
        cond.unlock()
    }

    /// Waits until the trigger thread has ended; the shots it placed that were never saved (their
    /// readers closed).
    func drainAfterTriggers() {
        cond.lock()
        while !ended { cond.wait() }
        for s in pending { s.reader.close() }
        pending.removeAll()
        cond.unlock()
    }

    /// Shots triggered so far.
    var triggeredCount: Int {
        cond.lock()
        defer { cond.unlock() }
        return triggered
    }

    /// Whether a triggered shot waits for the saver.
    var hasWaiting: Bool {
        cond.lock()
        defer { cond.unlock() }
        return !pending.isEmpty
    }

    /// A shot's frames have all been read from the ring.
    func shotRead() {
        cond.lock()
        read += 1
        cond.broadcast()
        cond.unlock()
    }

    /// Blocks until every triggered shot's frames are read, or `stop()` says the capture ended.
    func waitUntilRead(unless stop: () -> Bool) {
        cond.lock()
        while read < triggered && !stop() { _ = cond.wait(until: Date(timeIntervalSinceNow: 0.05)) }
        cond.unlock()
    }
}

/// What the image trigger cost: frames evaluated and skipped (overwritten before it read them), CPU seconds.
struct MotionCounters {
    var evaluated: Int64 = 0
    var skipped: Int64 = 0
    var cpu: Double = 0
}

/// What every stage of a triggered capture is started with: the camera it reads, the ring's plan,
/// the shots between placer and saver, how the capture ends, what it tells the world, and how a
/// shot is numbered. One value, made by the session.
struct StageContext: @unchecked Sendable {
    // Unchecked: the source is read-only here (its format and name); the queue, the end and the
    // hooks synchronise themselves.
    let source: CaptureSource
    let plan: RingPlan
    let shots: ShotQueue
    let end: SessionEnd
    let hooks: CaptureHooks
    /// The takes shots are held in (`--takes`, `--save lifo`); nil: saved straight from the ring.
    var takes: TakeStore?
    /// Shot `k` of the capture (1, 2, …) as its number in file names and reports.
    let number: @Sendable (Int) -> Int

    var preCount: Int64 { Int64(plan.preFrames) }
    var postCount: Int64 { Int64(plan.postFrames) }
    /// Compressed streams with inter frames: a shot must begin at a keyframe.
    var keyframed: Bool { source.format.nalCodec != nil }
    /// The most frames a shot's file holds: its pre-trigger frames, the trigger frame, its
    /// post-trigger frames, and a compressed camera's lead-in to a keyframe (a `.cine` reserves them).
    var shotFrames: Int { FrameFiles.shotFrames(plan, format: source.format) }
}

/// A stage of a triggered capture (`ShotPlacer`, `ShotSaver`): it reads the ring beside the camera
/// with what its context gives, and says what it did as its own outcome, which the session puts
/// in the report. A new capture feature is a new stage (or a producer), not more session state.
protocol CaptureStage {
    var context: StageContext { get }
}

extension CaptureStage {
    var source: CaptureSource { context.source }
    var plan: RingPlan { context.plan }
    var shots: ShotQueue { context.shots }
    var end: SessionEnd { context.end }
    var hooks: CaptureHooks { context.hooks }
    var preCount: Int64 { context.preCount }
    var postCount: Int64 { context.postCount }
    var keyframed: Bool { context.keyframed }
    var takes: TakeStore? { context.takes }
    func number(_ k: Int) -> Int { context.number(k) }
}

/// A shot the placer decided: its frames held in the ring until the saver writes them.
struct PlacedShot {
    var number: Int
    /// Holds the shot's frames from `start` on until it is saved.
    var reader: RingReader
    var start: Int64
    var triggerIndex: Int64
    var end: Int64  // last frame index wanted
    var eventTime: Rational
    var wallTime: Rational
    /// What fired it (`TriggerKind.name`: the session's own kind, or the event's source).
    var source: String
    var latency: Rational?
    var score: Double?
    /// Frames before `start + leadIn` kept only so the first pre-trigger frame decodes (H.264/HEVC).
    var leadIn: Int64 = 0
    var warning: String?
    /// When slomo decided the shot (CLOCK_MONOTONIC).
    var decided = Rational.zero
    /// `--trigger-out`: when the line went high.
    var output: TriggerOutputReport?
    /// The trigger frame's timestamp as the ring held it when the shot was decided.
    var frameTime = Rational.zero
    /// The take it is copied into when shots are held in RAM (`TakeStore`).
    var take: Int?
}
