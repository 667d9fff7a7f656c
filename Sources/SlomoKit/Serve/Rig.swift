import Foundation
import SlomoCore
import SlomoSystem

/// The rig `slomo serve` operates: one camera streaming into its ring all the time (so it can be
/// aimed), one state machine shared by every client — `idle → armed → triggered → saving → armed…` —
/// the shots it saved, and the export jobs run on them.
///
/// The camera runs as a pre/post-trigger `CaptureSession` whose trigger is this object (`.api`):
/// a trigger is passed on only while armed, so a shot is never taken, lost or overwritten behind
/// the state the clients see. Saving goes on while the ring keeps filling; a trigger during a save
/// is a further shot when the arm has shots left, and refused with the reason otherwise.
public final class Rig: @unchecked Sendable {
    // Safe: every `var` below (used by Rig+Jobs, Rig+Shots, Rig+Status and Rig+Triggers too) is touched under `lock`; the session runs on its own thread and
    // reaches the rig only through its callbacks, which take the lock.
    let lock = NSLock()
    /// Held across a whole control operation (arm, a settings change, disarm, stop), which may
    /// reopen the camera: one at a time, so two clients never run two sessions or undo each other.
    private let control = NSLock()
    public let config: RigConfig
    public let live: LivePictures
    var settings: RigSettings
    var state = RigState.starting
    var session: CaptureSession?
    private var triggers = TriggerQueue()
    private var sessionDone = DispatchSemaphore(value: 0)
    private var sessionStop = StopToken()
    /// Triggers passed to the session whose `trigger` event has not come back yet.
    private var pendingTriggers = 0
    var lastState = RigState.starting
    var sessionReport: CaptureReport?
    var message: String?
    var shotsLeft: Int?
    /// Shots triggered and not saved yet: their number, the ring count at the trigger, the post frames wanted, frames written.
    var inFlight: [Int: (count: Int64, written: Int64, total: Int64)] = [:]
    var saved: [Int: RigShot] = [:]
    var pictures: [Int: ShotPictures] = [:]
    var picturesUsed: [Int] = []
    /// The export jobs (their own lock and queue).
    private(set) var exports: ExportJobs!
    let watchers = Subscribers<RigEvent>(keep: 256)
    var seq: Int64 = 0
    var rateSample: (time: Rational, frames: Int64)?
    var fps: Double?
    var lastDrops: (Int64, Int64) = (0, 0)
    private var ticker: Thread?
    private var closing = false
    /// The GPIO line or network listener of `config.trigger`, open for the rig's whole life.
    var physical: TriggerEventSource?
    /// `config.triggerOutput`'s line, requested at start and kept (every session raises it).
    private var output: TriggerOutput?
    /// When the current arm began (CLOCK_MONOTONIC): an event naming an earlier instant (a late
    /// network message) is not this arm's.
    private var armedAt: Rational?
    var physicalDone = DispatchSemaphore(value: 0)

    public init(_ config: RigConfig) {
        self.config = config
        settings = config.settings
        live = LivePictures(fps: config.settings.previewFps, maxWidth: config.settings.previewWidth)
        exports = ExportJobs(outDir: config.outDir) { [weak self] job, progress, message in
            self?.emit(.job, job: job, progress: progress, message: message)
        }
    }

    // MARK: starting and stopping

    /// Lists the shots an earlier server left in the output directory, opens the camera and starts
    /// streaming (state `idle`). Errors are the camera's and the ring's; the result is one sentence
    /// for each shot file that could not be listed.
    @discardableResult
    public func start() throws -> [String] {
        let earlier = EarlierShots.load(outDir: config.outDir)
        lock.lock()
        for r in earlier.shots { saved[r.shot] = RigShot(r) }
        lock.unlock()
        // the output line and the trigger's line or port first: one in use is refused before anything streams
        let out = try config.triggerOutput.map { try TriggerOutput($0) }
        lock.lock(); output = out; lock.unlock()
        do {
            try startPhysicalTrigger()
            do { try startSession() } catch { stopPhysicalTrigger(); throw error }
        } catch { out?.close(); throw error }
        let t = Thread { [weak self] in
            while let self, !self.isClosing {
                self.tick()
                CurrentProcess.sleep(microseconds: 250_000)
            }
        }
        t.name = "slomo-rig"
        ticker = t
        t.start()
        return earlier.warnings
    }

    private var isClosing: Bool { lock.lock(); defer { lock.unlock() }; return closing }

    /// Ends the rig: exports not finished are cancelled (their partial files removed), shots
    /// already triggered are saved, then the camera stops. The numbers of the jobs cancelled.
    @discardableResult
    public func stop() -> [Int] {
        control.lock(); defer { control.unlock() }
        lock.lock(); closing = true; lock.unlock()
        let cancelled = exports.cancelAll()
        stopPhysicalTrigger()
        stopSession()
        lock.lock(); let out = output; output = nil; lock.unlock()
        out?.close()
        watchers.finishAll()
        return cancelled
    }

    private func startSession() throws {
        let s: RigSettings
        lock.lock(); s = settings; lock.unlock()
        let source = try config.openSource()
        var t = TriggerSettings(kind: .api, pre: s.preTrigger, post: s.postTrigger, shots: 0)
        t.output = config.triggerOutput  // raised for every shot, whatever fired it (the rig's line)
        // after the highest shot in the folder, of either kind of file, and any the rig lists
        lock.lock(); let listed = saved.keys.max() ?? 0; lock.unlock()
        t.firstShot = Swift.max(
            listed + 1, TriggerSettings.nextFreeShot(Self.template(config.outDir, "mp4")),
            TriggerSettings.nextFreeShot(Self.template(config.outDir, "mkv")))
        var recording = config.recording
        recording.output = template
        let triggers = TriggerQueue()
        let stop = StopToken()
        var hooks = CaptureHooks(onEvent: { [weak self] e in self?.sessionEvent(e) })
        hooks.onShot = { [weak self] r in self?.shotSaved(r) }
        hooks.onShotProgress = { [weak self] shot, written, total in self?.shotProgress(shot, written, total) }
        hooks.taps = [live]
        let session = try CaptureSession(
            source: source, settings: recording, limits: config.limits, trigger: t,
            audio: config.audio, preview: nil, hooks: hooks, stop: stop)
        lock.lock(); let shared = SharedTrigger(events: triggers, output: output); lock.unlock()
        let done = DispatchSemaphore(value: 0)
        lock.lock()
        self.session = session
        self.triggers = triggers
        sessionDone = done
        sessionStop = stop
        pendingTriggers = 0
        sessionReport = nil
        state = .idle
        message = nil
        rateSample = nil
        fps = nil
        lock.unlock()
        let thread = Thread { [weak self] in
            var report: CaptureReport?
            var failure: String?
            do { report = try session.run(shared: shared) } catch { failure = "\(error)" }
            self?.sessionEnded(report, failure: failure)
            done.signal()
        }
        thread.name = "slomo-rig-camera"
        thread.start()
        emit(.state)
    }

    /// Stops the camera's session after the shots it has triggered are saved; a session that has
    /// not ended by then (a stalled camera) is stopped outright.
    private func stopSession() {
        lock.lock()
        let t = triggers, done = sessionDone, stop = sessionStop, running = session != nil
        let grace = 5 + 2 * ((settings.preTrigger + settings.postTrigger).ceiling)
        lock.unlock()
        guard running else { return }
        t.push(.quit)
        if done.wait(timeout: .now() + .seconds(Int(grace))) == .timedOut {
            stop.raise()
            done.wait()
        }
        done.signal()  // a second stop returns at once
    }

    private func sessionEnded(_ report: CaptureReport?, failure: String?) {
        lock.lock()
        sessionReport = report
        session = nil
        inFlight.removeAll()
        let quit = report?.stopReason == .quit
        if !quit || !closing {
            if let failure {
                message = failure
            } else if let r = report, !quit {
                message = "the camera stopped: \(r.stopReason.rawValue)\(r.message.map { " (\($0))" } ?? "")"
            }
        }
        if !(quit && !closing) { state = .stopped }
        lock.unlock()
        emit(.state)
    }

    // MARK: the state machine

    /// `POST /api/v1/arm`: optionally a new window (idle only: a new ring) and shot count.
    public func arm(preTrigger: Rational? = nil, postTrigger: Rational? = nil, shots: Int? = nil) throws(RigRefusal) {
        control.lock(); defer { control.unlock() }
        lock.lock()
        var next = settings
        if let preTrigger { next.preTrigger = preTrigger }
        if let postTrigger { next.postTrigger = postTrigger }
        if let shots { next.shots = shots }
        let current = closing ? .stopped : state, why = message
        lock.unlock()
        try next.check()
        switch current {
        case .stopped: throw RigRefusal(.unavailable, "the camera is gone: \(why ?? "it stopped")")
        case .starting: throw RigRefusal(.conflict, "the camera is starting: arm again in a moment")
        case .armed, .triggered, .saving: throw RigRefusal(.conflict, "already \(current.rawValue): disarm first")
        case .idle: break
        }
        try apply(next)
        lock.lock()
        state = .armed
        armedAt = CaptureClock.now()
        shotsLeft = next.shots == 0 ? nil : next.shots
        lock.unlock()
        emit(.state)
    }

    /// CLOCK_MONOTONIC now, the clock of frames and triggers.
    public static func now() -> Rational { CaptureClock.now() }

    /// `POST /api/v1/trigger`: the instant it was read is the trigger's instant. The GPIO line and
    /// the network come here too, each with its event's own instant and wall time.
    public func trigger(at instant: Rational? = nil, wall: Rational? = nil, source: String = "api") throws(RigRefusal) -> Rational {
        let time = instant ?? CaptureClock.now()
        lock.lock(); defer { lock.unlock() }
        switch state {
        case .idle, .starting: throw RigRefusal(.conflict, "not armed: arm first")
        case .stopped: throw RigRefusal(.unavailable, "the camera is gone: \(message ?? "it stopped")")
        case .armed, .triggered, .saving: break
        }
        if let a = armedAt, time < a {
            throw RigRefusal(.conflict, "its instant is \(Seconds(a - time, decimals: 3)) s before the rig was armed")
        }
        if let left = shotsLeft, left <= 0 {
            throw RigRefusal(
                .conflict, "this arm's \(settings.shots) shot\(settings.shots == 1 ? " is" : "s are") taken and still saving: arm again once saved")
        }
        if let left = shotsLeft { shotsLeft = left - 1 }
        pendingTriggers += 1
        triggers.push(.trigger(time, wall: wall ?? CaptureClock.now(Clock.realTime), source: source))
        state = .triggered
        return time
    }

    /// `POST /api/v1/disarm`: no further trigger is taken; shots already triggered are still saved.
    public func disarm() throws(RigRefusal) {
        control.lock(); defer { control.unlock() }
        lock.lock()
        if state == .stopped { let why = message; lock.unlock(); throw RigRefusal(.unavailable, "the camera is gone: \(why ?? "it stopped")") }
        shotsLeft = 0
        if inFlight.isEmpty && pendingTriggers == 0 && state != .starting { state = .idle }
        lock.unlock()
        emit(.state)
    }

    /// `PATCH /api/v1/settings`: changes what it names; the window only while idle.
    public func change(_ patch: (inout RigSettings) -> Void, touching fields: Set<String>) throws(RigRefusal) {
        control.lock(); defer { control.unlock() }
        lock.lock()
        let now = settings
        var next = now
        patch(&next)
        let current = closing ? .stopped : state
        lock.unlock()
        try next.check()
        let ringFields = fields.intersection(RigSettings.needIdle)
        let ringChanged = next.preTrigger != now.preTrigger || next.postTrigger != now.postTrigger
        if !ringFields.isEmpty && current != .idle && ringChanged {
            throw RigRefusal(
                .conflict,
                "\(ringFields.sorted().joined(separator: " and ")) size the ring: they change only while idle (the rig is \(current.rawValue); disarm first)",
                field: ringFields.sorted().first)
        }
        try apply(next)
    }

    /// Makes `next` the settings; a new window means a new session (the camera reopened).
    private func apply(_ next: RigSettings) throws(RigRefusal) {
        lock.lock()
        let old = settings
        settings = next
        lock.unlock()
        live.set(fps: next.previewFps, width: next.previewWidth)
        guard next.preTrigger != old.preTrigger || next.postTrigger != old.postTrigger else { return }
        stopSession()
        do { try startSession() } catch {
            // the old window again, so that the rig still has a camera
            lock.lock(); settings = old; lock.unlock()
            let why = "\(error)"
            do { try startSession() } catch {
                lock.lock(); state = .stopped; message = "\(error)"; lock.unlock()
            }
            throw RigRefusal(.conflict, "the new window was refused: \(why)")
        }
    }

    public var currentSettings: RigSettings { lock.lock(); defer { lock.unlock() }; return settings }

    // MARK: what the session says

    private func sessionEvent(_ e: CaptureEvent) {
        switch e.event {
        case .trigger:
            lock.lock()
            pendingTriggers = Swift.max(0, pendingTriggers - 1)
            if let n = e.shot {
                let count = session?.status.ringFrames ?? 0
                let post = Int64(session?.ringPlan.postFrames ?? 0)
                let pre = Int64(session?.ringPlan.preFrames ?? 0)
                inFlight[n] = (count, 0, pre + post + 1)
            }
            lock.unlock()
            emit(.trigger, shot: e.shot, source: e.source)
        case .shot:
            guard let n = e.shot else { return }
            lock.lock()
            inFlight.removeValue(forKey: n)
            // still triggered while another shot is filling or a trigger has not reached the session yet
            if inFlight.isEmpty && pendingTriggers == 0 {
                state = (shotsLeft ?? 1) > 0 ? .armed : .idle
            } else {
                state = .triggered
            }
            lock.unlock()
            emit(.shot, shot: n)
            emit(.state)
        case .armed, .rearmed, .ignored: break
        }
    }

    private func shotProgress(_ shot: Int, _ written: Int64, _ total: Int64) {
        lock.lock()
        if let f = inFlight[shot] { inFlight[shot] = (f.count, written, total) }
        lock.unlock()
    }
}
