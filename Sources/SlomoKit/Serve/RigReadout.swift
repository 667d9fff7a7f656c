import SlomoCore

/// What the rig's status says of the camera besides the machine: the running session's public
/// status and ring, or, once it ended, its report.
struct RigCamera {
    var name: String
    var format: CaptureFormat?
    /// The running session's nominal rate.
    var nominalFrameRate: Rational?
    /// The running session's counts (nil: no session runs).
    var counts: CaptureStatus?
    var plan: RingPlan?
    /// The last session's report, once it ended.
    var report: CaptureReport?

    init(session: CaptureSession?, report: CaptureReport?) {
        name = session?.source.name ?? report?.device ?? "?"
        format = session?.source.format ?? report?.format
        nominalFrameRate = (session?.source.format.frameDuration).flatMap { try? $0.reciprocal() }
        counts = session?.status
        plan = session?.ringPlan
        self.report = report
    }

    init(name: String, format: CaptureFormat?, counts: CaptureStatus?, plan: RingPlan?, report: CaptureReport? = nil) {
        self.name = name
        self.format = format
        self.counts = counts
        self.plan = plan
        self.report = report
        nominalFrameRate = counts == nil ? nil : (format?.frameDuration).flatMap { try? $0.reciprocal() }
    }

    var framesCaptured: Int64 { counts?.framesCaptured ?? report?.framesCaptured ?? 0 }
}

extension RigStatus {
    /// `GET status`: the machine's state, its shots in flight and the camera's numbers; the fills
    /// only while a session runs.
    init(machine m: RigMachine, camera c: RigCamera, fps: Double?, live: LivePictures.Counts, shotsSaved: Int, triggers: [String]) {
        var pre: Double?, post: Double?, savingShot: Int?, savingProgress: Double?
        if c.counts != nil {
            if [.armed, .triggered, .saving].contains(m.state) { pre = m.inFlight.preFill }
            if let first = m.inFlight.first {
                post = first.postFill
                savingShot = first.shot
                savingProgress = first.written
            }
        }
        self.init(
            state: m.state, camera: c.name, format: c.format, nominalFrameRate: c.nominalFrameRate,
            achievedFps: fps, framesCaptured: c.framesCaptured,
            droppedByDriver: c.counts?.droppedByDriver ?? c.report?.droppedByDriver ?? 0,
            droppedBySlomo: c.counts?.droppedBySlomo ?? c.report?.droppedBySlomo ?? 0,
            damagedFrames: c.counts?.damagedFrames ?? c.report?.driverErrors ?? 0,
            preTriggerFill: pre, postTriggerFill: post, savingShot: savingShot, savingProgress: savingProgress,
            shotsLeft: m.shotsLeft, shotsSaved: shotsSaved, ringFrames: c.plan?.slots ?? 0,
            preFrames: c.plan?.preFrames ?? 0, postFrames: c.plan?.postFrames ?? 0, live: live, message: m.message, triggers: triggers)
    }
}

extension RigCameraStatus {
    /// Camera `camera`'s entry from its session's view; `lost`: why it was lost.
    init(camera: Int, name: String, view c: RigCamera, fps: Double?, live: LivePictures.Counts, lost: String?) {
        self.init(
            camera: camera, name: name, state: lost != nil ? .lost : c.counts != nil ? .streaming : .stopped, message: lost,
            format: c.format, nominalFrameRate: c.nominalFrameRate, achievedFps: c.counts == nil ? nil : fps, framesCaptured: c.framesCaptured,
            droppedByDriver: c.counts?.droppedByDriver ?? c.report?.droppedByDriver ?? 0,
            droppedBySlomo: c.counts?.droppedBySlomo ?? c.report?.droppedBySlomo ?? 0,
            damagedFrames: c.counts?.damagedFrames ?? c.report?.driverErrors ?? 0, live: live)
    }
}

/// Frames per second over the last second or more, to one decimal (display): a new figure once a
/// second has passed since the last.
struct RateMeter {
    private var sample: (time: Rational, frames: Int64)?
    private(set) var fps: Double?

    mutating func read(frames: Int64, at now: Rational) -> Double? {
        guard let s = sample else {
            sample = (now, frames)
            return fps
        }
        let dt = now - s.time
        if dt >= Rational.one {
            fps = (Double(frames - s.frames) / dt.doubleValue * 10).rounded() / 10
            sample = (now, frames)
        }
        return fps
    }
}

/// The values of the last `limit` keys used; a key used again is the newest, and the oldest
/// beyond the limit are let go (handed back, for the caller to close).
struct RecentlyUsed<Key: Hashable, Value> {
    let limit: Int
    private(set) var values: [Key: Value] = [:]
    /// Oldest first.
    private(set) var order: [Key] = []

    init(limit: Int) { self.limit = limit }

    mutating func use(_ key: Key, making make: () -> Value) -> (value: Value, dropped: [Value]) {
        let v = values[key] ?? make()
        values[key] = v
        order.removeAll { $0 == key }
        order.append(key)
        var dropped: [Value] = []
        while order.count > limit { if let old = values.removeValue(forKey: order.removeFirst()) { dropped.append(old) } }
        return (v, dropped)
    }

    mutating func remove(_ key: Key) -> Value? {
        order.removeAll { $0 == key }
        return values.removeValue(forKey: key)
    }
}
