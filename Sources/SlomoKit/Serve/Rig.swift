import Foundation
import SlomoCore
import SlomoSystem

/// The rig `slomo serve` operates: its camera (or several, one event for all) streaming into its
/// ring all the time (so it can be aimed), one state machine shared by every client — `idle → armed → triggered → saving → armed…` —
/// the shots it saved, and the export jobs run on them.
///
/// The states and their changes are `RigMachine`, a value; this object is its executor: it feeds
/// the machine what clients ask and what the camera's session says (`send`), and carries out the
/// effects (opening and closing the session, passing triggers, telling the clients, refusing). The
/// camera runs as a pre/post-trigger `CaptureSession` whose trigger is the rig's queue (`.api`);
/// the rig reads it only through its public status, ring plan, trigger queue and hooks. Several
/// cameras are one `RigSession` of several sessions, heard by the machine as one (`RigCameras`).
public final class Rig: @unchecked Sendable {
    // Safe: every `var` below (used by the Rig+ files too) is touched under `lock`, but `lastDrops` (the ticker's own); the
    // session runs on its own thread and reaches the rig only through its hooks, which send the machine inputs under the lock.
    let lock = NSLock()
    /// Held across a whole control operation (arm, a settings change, disarm, stop), which may
    /// reopen the camera: one at a time, so two clients never run two sessions or undo each other.
    private let control = NSLock()
    public let config: RigConfig
    /// Each camera's live pictures (the first camera's first).
    public let lives: [LivePictures]
    /// The first camera's live pictures.
    public var live: LivePictures { lives[0] }
    /// The state machine: the state, settings, arm and shots in flight; changed only by `send`.
    var machine: RigMachine
    /// The camera's session while it runs, and the report of the last one once it ended.
    var running: RigSession?
    /// Each camera's last session report (by camera, 0 first), once it ended.
    var sessionReports: [Int: CaptureReport] = [:]
    /// Which cameras run, which were lost, and the shots some cameras have saved.
    var cameras: RigCameras
    var saved: [Int: RigShot] = [:]
    /// The frames of the last three shot files looked at stay decoded.
    var pictures = RecentlyUsed<String, ShotPictures>(limit: 3)
    /// The export jobs (their own lock and queue).
    private(set) var exports: ExportJobs!
    let watchers = Subscribers<RigEvent>(keep: 256)
    var seq: Int64 = 0
    /// Each camera's frame rate meter.
    var rates: [RateMeter]
    var lastDrops: (Int64, Int64) = (0, 0)
    /// Arms refused for want of disk space (`slomo_disk_refusals_total`).
    var diskRefusals: Int64 = 0
    private var ticker: Thread?
    /// The GPIO line or network listener of `config.trigger`, open for the rig's whole life.
    private var line: RigTriggerLine?
    /// `config.triggerOutput`'s line, requested at start and kept (every session raises it).
    private var output: TriggerOutput?

    public init(_ config: RigConfig) {
        self.config = config
        machine = RigMachine(settings: config.settings)
        cameras = RigCameras(count: config.cameraCount)
        rates = Array(repeating: RateMeter(), count: config.cameraCount)
        lives = (0..<config.cameraCount).map { _ in
            LivePictures(
                fps: config.settings.previewFps, maxWidth: config.settings.previewWidth, burnIn: config.previewBurnIn ? BurnInSettings() : nil)
        }
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
        for f in earlier.shots { record(f.report, camera: f.camera) }
        lock.unlock()
        // the output line and the trigger's line or port first: one in use is refused before anything streams
        let out = try config.triggerOutput.map { try TriggerOutput($0) }
        lock.lock()
        output = out
        lock.unlock()
        do {
            let l = try RigTriggerLine.open(
                config.trigger, fired: { [weak self] in self?.fired($0, at: $1, wall: $2) },
                said: { [weak self] in self?.emit($0, source: $1, message: $2) })
            lock.lock()
            line = l
            lock.unlock()
            do { try startSession() } catch {
                _ = try? send(.sessionFailedToStart("\(error)"))
                l?.close()
                throw error
            }
        } catch {
            out?.close()
            throw error
        }
        let t = Thread { [weak self] in
            while let self, !self.lock.withLock({ self.machine.closing }) {
                self.tick()
                CurrentProcess.sleep(microseconds: 250_000)
            }
        }
        t.name = "slomo-rig"
        ticker = t
        t.start()
        return earlier.warnings
    }

    /// Ends the rig: exports not finished are cancelled (their partial files removed), shots
    /// already triggered are saved, then the camera stops. The numbers of the jobs cancelled.
    @discardableResult
    public func stop() -> [Int] {
        control.lock()
        defer { control.unlock() }
        return (try? send(.closeAsked)) ?? []
    }

    // MARK: the executor

    /// Feeds the machine one input under the lock, then carries out its effects outside it; a
    /// refusal is thrown. The result: the export jobs cancelled (the server stopping).
    @discardableResult
    func send(_ input: RigInput) throws(RigRefusal) -> [Int] {
        lock.lock()
        let effects = machine.handle(input)
        // pushed before the next input is taken: the session receives triggers in the machine's order
        for case .sendTrigger(let t) in effects { running?.push(t) }
        lock.unlock()
        return try run(effects)
    }

    @discardableResult
    func run(_ effects: [RigEffect]) throws(RigRefusal) -> [Int] {
        var cancelled: [Int] = []
        for effect in effects {
            switch effect {
            case .refuse(let r): throw r
            case .useSettings(let s): for l in lives { l.set(fps: s.previewFps, width: s.previewWidth) }
            case .reopenSession:
                stopSession()
                try openSession()
            case .openSession: try openSession()
            case .closeSession: stopSession()
            case .sendTrigger: break  // pushed by `send`
            case .emit(let kind, let shot, let source): emit(kind, shot: shot, source: source)
            case .announceState: emit(.state)
            case .cancelExports: cancelled = exports.cancelAll()
            case .closeTriggerInputs: lock.withLock { line.take() }?.close()
            case .closeTriggerOutput: lock.withLock { output.take() }?.close()
            case .endEvents: watchers.finishAll()
            }
        }
        return cancelled
    }

    /// A session with the machine's settings; its start or its failure goes back to the machine.
    private func openSession() throws(RigRefusal) {
        do { try startSession() } catch { try send(.sessionFailedToStart("\(error)")) }
    }

    private func startSession() throws {
        lock.lock()
        let settings = machine.settings, out = output, listed = saved.keys.max() ?? 0
        lock.unlock()
        let several = config.cameraCount > 1
        let run = try RigSession(config, settings: settings, listed: listed, output: out) { k in
            var hooks = CaptureHooks(onEvent: { [weak self] e in self?.sessionEvent(e, camera: k) })
            hooks.onShot = { [weak self] r in self?.shotSaved(r, camera: several ? k : nil) }
            hooks.onShotProgress = { [weak self] shot, written, total in
                guard let self, self.lock.withLock({ self.cameras.speaksForAll(k) }) else { return }
                _ = try? self.send(.shotProgressed(shot: shot, written: written, total: total))
            }
            hooks.taps = [self.lives[k]]
            return hooks
        }
        lock.lock()
        running = run
        sessionReports = [:]
        cameras = RigCameras(count: config.cameraCount)
        rates = (0..<config.cameraCount).map { _ in RateMeter() }
        lock.unlock()
        // the machine knows the session before its thread can say anything of it
        let plan = run.session.ringPlan
        _ = try? send(.sessionStarted(preFrames: plan.preFrames, postFrames: plan.postFrames, at: CaptureClock.now()))
        run.start { [weak self] k, report, failure in self?.sessionEnded(k, report, failure: failure) }
    }

    /// Ends the camera's session, if one runs, after the shots it has triggered are saved.
    private func stopSession() { lock.withLock { running }?.end() }

    /// Camera `k`'s session ended: the machine hears it once every camera's has (a rig of
    /// several goes on without a camera that stopped by itself: its status says why).
    private func sessionEnded(_ k: Int, _ report: CaptureReport?, failure: String?) {
        let quit = report?.stopReason == .quit
        let stopped = report.map { r in "the camera stopped: \(r.stopReason.rawValue)\(r.message.map { " (\($0))" } ?? "")" }
        let why = failure ?? (quit ? nil : stopped)
        let (all, settled) = lock.withLock {
            sessionReports[k] = report
            let r = cameras.ended(camera: k, quit: quit, why: why)
            if r.all { running = nil }
            return r
        }
        if all {
            _ = try? send(.sessionEnded(quit: quit, why: why))
            return
        }
        if !quit { emit(.warning, message: "camera \(k + 1) (\(cameraName(k))) is lost: \(why ?? "it stopped"); the other cameras go on") }
        for shot in settled { _ = try? send(.shotFinished(shot)) }
    }

    // MARK: what clients ask

    /// `POST /api/v1/arm`: optionally a new window (idle only: a new ring) and shot count.
    public func arm(preTrigger: Rational? = nil, postTrigger: Rational? = nil, shots: Int? = nil) throws(RigRefusal) {
        control.lock()
        defer { control.unlock() }
        var next = currentSettings
        if let preTrigger { next.preTrigger = preTrigger }
        if let postTrigger { next.postTrigger = postTrigger }
        if let shots { next.shots = shots }
        try checkHeadroom(next)
        try refuseWhenTakesFull("arming")
        try send(.armAsked(next, at: CaptureClock.now()))
    }

    /// Camera `k`'s live pictures (1 first; nil: the first camera's).
    public func live(camera k: Int?) throws(RigRefusal) -> LivePictures {
        let k = k ?? 1
        guard (1...lives.count).contains(k) else {
            throw RigRefusal(.missing, "no camera \(k): this rig has \(lives.count == 1 ? "one camera" : "cameras 1...\(lives.count)")")
        }
        return lives[k - 1]
    }

    /// CLOCK_MONOTONIC now, the clock of frames and triggers.
    public static func now() -> Rational { CaptureClock.now() }

    /// `POST /api/v1/trigger`: the instant it was read is the trigger's instant. The GPIO line and
    /// the network come here too, each with its event's own instant and wall time.
    public func trigger(at instant: Rational? = nil, wall: Rational? = nil, source: String = "api") throws(RigRefusal) -> Rational {
        let time = instant ?? CaptureClock.now()
        try refuseWhenTakesFull("a trigger")
        try send(.triggerAsked(RigTrigger(time: time, wall: wall ?? CaptureClock.now(Clock.realTime), source: source)))
        return time
    }

    /// `POST /api/v1/disarm`: no further trigger is taken; shots already triggered are still saved.
    public func disarm() throws(RigRefusal) {
        control.lock()
        defer { control.unlock() }
        try send(.disarmAsked)
    }

    /// `PATCH /api/v1/settings`: changes what it names; the window only while idle (a new ring:
    /// the camera reopened).
    public func change(_ patch: (inout RigSettings) -> Void, touching fields: Set<String>) throws(RigRefusal) {
        control.lock()
        defer { control.unlock() }
        var next = currentSettings
        patch(&next)
        try send(.settingsChangeAsked(next, fields: fields))
    }

    public var currentSettings: RigSettings { lock.withLock { machine.settings } }

    // MARK: what the session says

    /// What camera `k`'s session says: the lead camera's placing of a trigger, and a shot once
    /// every camera still running has saved it.
    private func sessionEvent(_ e: CaptureEvent, camera k: Int) {
        switch e.event {
        case .trigger:
            let frames: Int64? = lock.withLock {
                guard cameras.speaksForAll(k), let r = running, k < r.sessions.count else { return nil }
                return slowestRingFrames()
            }
            guard let frames else { return }
            _ = try? send(.triggerPlaced(shot: e.shot, source: e.source, ringFrames: frames))
        case .shot:
            guard let n = e.shot else { return }
            for shot in lock.withLock({ cameras.saved(camera: k, shot: n) }) { _ = try? send(.shotFinished(shot)) }
        case .refused, .abandoned: emit(.warning, message: e.warning)
        case .armed, .rearmed, .ignored, .held, .stopped: break
        }
    }
}
