import Foundation
import SlomoCore

/// What the rig says of itself: its status, and the ticker's events.
extension Rig {
    /// Four times a second: the state's fills and rate, the drops as they change.
    func tick() {
        let s = status()
        lock.lock()
        let changed = s.state != lastState
        lastState = s.state
        lock.unlock()
        if changed { emit(.state) }
        if let d = Optional((s.droppedByDriver, s.droppedBySlomo)), d != lastDrops {
            lastDrops = d
            emit(.drops)
        }
        if [.armed, .triggered, .saving].contains(s.state) { emit(.progress, progress: s.savingProgress ?? s.postTriggerFill ?? s.preTriggerFill) }
    }

    public func status() -> RigStatus {
        lock.lock(); defer { lock.unlock() }
        let plan = session?.ringPlan
        let counts = session?.status
        let now = CaptureClock.now()
        let captured = counts?.framesCaptured ?? sessionReport?.framesCaptured ?? 0
        if let r = rateSample {
            let dt = now - r.time
            if dt >= Rational.one { fps = (Double(captured - r.frames) / dt.doubleValue * 10).rounded() / 10; rateSample = (now, captured) }
        } else {
            rateSample = (now, captured)
        }
        var st = state
        var pre: Double?, post: Double?, savingShot: Int?, savingProgress: Double?
        if let plan, let counts {
            if st == .armed || st == .triggered || st == .saving {
                pre = plan.preFrames == 0 ? 1 : Swift.min(1, Double(counts.ringFrames) / Double(plan.preFrames))
            }
            if let (n, f) = inFlight.min(by: { $0.key < $1.key }).map({ ($0.key, $0.value) }) {
                post = plan.postFrames == 0 ? 1 : Swift.min(1, Double(Swift.max(0, counts.ringFrames - f.count)) / Double(plan.postFrames))
                if post == 1 { st = .saving }
                savingShot = n
                savingProgress = f.total > 0 ? Swift.min(1, Double(f.written) / Double(f.total)) : 0
            }
        }
        return RigStatus(
            state: st, camera: session?.source.name ?? sessionReport?.device ?? "?", format: session?.source.format ?? sessionReport?.format,
            nominalFrameRate: (session?.source.format.frameDuration).flatMap { try? $0.reciprocal() },
            achievedFps: fps, framesCaptured: captured,
            droppedByDriver: counts?.droppedByDriver ?? sessionReport?.droppedByDriver ?? 0,
            droppedBySlomo: counts?.droppedBySlomo ?? sessionReport?.droppedBySlomo ?? 0,
            damagedFrames: counts?.damagedFrames ?? sessionReport?.driverErrors ?? 0,
            preTriggerFill: pre, postTriggerFill: post, savingShot: savingShot, savingProgress: savingProgress,
            shotsLeft: shotsLeft, shotsSaved: saved.count, ringFrames: plan?.slots ?? 0,
            preFrames: plan?.preFrames ?? 0, postFrames: plan?.postFrames ?? 0, live: live.counts, message: message,
            triggers: ["api"] + (config.trigger.map { [$0.kind.name] } ?? []))
    }
}

/// The rig's events, in the order they happened (`GET /api/v1/events`).
extension Rig {
    /// The rig's events from now on, in order (a client that falls 256 events behind loses the oldest).
    public func events() -> (id: Int, events: AsyncStream<RigEvent>) { let (id, values) = watchers.add(); return (id, values) }

    public func stopEvents(_ id: Int) { watchers.remove(id) }

    func emit(_ kind: RigEvent.Kind, shot: Int? = nil, source: String? = nil, job: Int? = nil, progress: Double? = nil, message: String? = nil) {
        let s = kind == .drops || kind == .state ? status() : nil
        lock.lock()
        seq += 1
        let e = RigEvent(
            seq: seq, event: kind, state: s?.state ?? state, shot: shot, source: source, job: job, progress: progress,
            message: message ?? (kind == .state ? self.message : nil),
            droppedByDriver: s?.droppedByDriver, droppedBySlomo: s?.droppedBySlomo)
        watchers.yield(e)  // under the lock: every client gets the events in `seq` order
        lock.unlock()
    }
}
