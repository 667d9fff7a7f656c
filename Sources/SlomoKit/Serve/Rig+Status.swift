import Foundation
import SlomoCore

/// What the rig says of itself: its status, and the ticker's events.
extension Rig {
    /// Four times a second: the drops as they change, the fills and the saving's progress.
    func tick() {
        let s = status()
        if let d = Optional((s.droppedByDriver, s.droppedBySlomo)), d != lastDrops {
            lastDrops = d
            emit(.drops)
        }
        if [.armed, .triggered, .saving].contains(s.state) { emit(.progress, progress: s.savingProgress ?? s.postTriggerFill ?? s.preTriggerFill) }
    }

    /// `GET status`. Reading the session's ring count is an input of the machine: the first shot's
    /// post-trigger window whole in the ring makes the rig `saving` (in a rig of several, the
    /// slowest camera's ring: the windows are full when every camera's is). A rig of several: the counts are every camera's summed, each camera's
    /// own in `cameras`; the name, format and rates are the lead camera's.
    public func status() -> RigStatus {
        lock.lock()
        let now = CaptureClock.now()
        let views = (0..<config.cameraCount).map { k in
            RigCamera(session: cameras.running.contains(k) ? running?.sessions[k] : nil, report: sessionReports[k])
        }
        let fps = views.indices.map { k in rates[k].read(frames: views[k].framesCaptured, at: now) }
        let lead = cameras.lead, camera = views[lead]
        let effects = slowestRingFrames().map { machine.handle(.ringCounted($0)) } ?? []
        var s = RigStatus(
            machine: machine, camera: camera, fps: fps[lead], live: lives[lead].counts, shotsSaved: saved.count,
            triggers: ["api"] + (config.trigger.map { [$0.kind.name] } ?? []))
        if views.count > 1 {
            s.cameras = views.indices.map { k in
                RigCameraStatus(camera: k + 1, name: cameraName(k), view: views[k], fps: fps[k], live: lives[k].counts, lost: cameras.lost(k))
            }
            s.framesCaptured = s.cameras!.reduce(0) { $0 + $1.framesCaptured }
            s.droppedByDriver = s.cameras!.reduce(0) { $0 + $1.droppedByDriver }
            s.droppedBySlomo = s.cameras!.reduce(0) { $0 + $1.droppedBySlomo }
            s.damagedFrames = s.cameras!.reduce(0) { $0 + $1.damagedFrames }
        }
        s.takes = takesNow()
        lock.unlock()
        _ = try? run(effects)
        return s
    }

    /// The sessions of the cameras still running. Under `lock`.
    func runningSessions() -> [CaptureSession] {
        guard let r = running else { return [] }
        return cameras.running.filter { $0 < r.sessions.count }.map { r.sessions[$0] }
    }

    /// The slowest running camera's ring count: a window is full (and its post-trigger frames in)
    /// only once every camera's is (one that started streaming later has fewer frames). Under `lock`.
    func slowestRingFrames() -> Int64? {
        runningSessions().map(\.status.ringFrames).min()
    }

    /// The running cameras' takes, the one with the fewest free (nil: shots are saved from the ring). Under `lock`.
    func takesNow() -> RigTakes? {
        runningSessions().compactMap { $0.takes?.status() }.min { $0.free < $1.free }
    }

    /// Every take holds a shot not yet saved and none may be reused: an arm or a trigger is refused.
    func refuseWhenTakesFull(_ what: String) throws(RigRefusal) {
        lock.lock()
        let t = takesNow()
        lock.unlock()
        guard let t, t.free == 0, !config.takes.overwriteUnsaved else { return }
        throw RigRefusal(
            .conflict,
            "\(what) refused: all \(t.takes) takes hold shots not yet saved (\(t.saving) saving); each is free once saved (--overwrite-unsaved reuses the oldest)"
        )
    }
}

/// The rig's events, in the order they happened (`GET /api/v1/events`).
extension Rig {
    /// The rig's events from now on, in order (a client that falls 256 events behind loses the oldest).
    public func events() -> (id: Int, events: AsyncStream<RigEvent>) {
        let (id, values) = watchers.add()
        return (id, values)
    }

    public func stopEvents(_ id: Int) { watchers.remove(id) }

    func emit(_ kind: RigEvent.Kind, shot: Int? = nil, source: String? = nil, job: Int? = nil, progress: Double? = nil, message: String? = nil) {
        let s = kind == .drops || kind == .state ? status() : nil
        lock.lock()
        seq += 1
        let e = RigEvent(
            seq: seq, event: kind, state: s?.state ?? machine.state, shot: shot, source: source, job: job, progress: progress,
            message: message ?? (kind == .state ? machine.message : nil),
            droppedByDriver: s?.droppedByDriver, droppedBySlomo: s?.droppedBySlomo)
        watchers.yield(e)  // under the lock: every client gets the events in `seq` order
        lock.unlock()
    }
}
