import Foundation
import SlomoCore
import SlomoSystem

/// The rig `slomo serve` operates: one camera streaming into its ring all the time (so it can be
/// aimed), one state machine shared by every client — `idle → armed → triggered → saving → armed…` —
/// the shots it saved, and the export jobs run on them.
///
/// The states and their changes are `RigMachine`, a value; this object is its executor: it feeds
/// the machine what clients ask and what the camera's session says (`send`), and carries out the
/// effects (opening and closing the session, passing triggers, telling the clients, refusing). The
/// camera runs as a pre/post-trigger `CaptureSession` whose trigger is the rig's queue (`.api`);
/// the rig reads it only through its public status, ring plan, trigger queue and hooks.
public final class Rig: @unchecked Sendable {
    // Safe: every `var` below (used by the Rig+ files too) is touched under `lock`, but `lastDrops` (the ticker's own); the
    // session runs on its own thread and reaches the rig only through its hooks, which send the machine inputs under the lock.
    let lock = NSLock()
    /// Held across a whole control operation (arm, a settings change, disarm, stop), which may
    /// reopen the camera: one at a time, so two clients never run two sessions or undo each other.
    private let control = NSLock()
    public let config: RigConfig
    public let live: LivePictures
    /// The state machine: the state, settings, arm and shots in flight; changed only by `send`.
    var machine: RigMachine
    /// The camera's session while it runs, and the report of the last one once it ended.
    var running: RigSession?
    var sessionReport: CaptureReport?
    var saved: [Int: RigShot] = [:]
    /// The frames of the last three shots looked at stay decoded.
    var pictures = RecentlyUsed<ShotPictures>(limit: 3)
    /// The export jobs (their own lock and queue).
    private(set) var exports: ExportJobs!
    let watchers = Subscribers<RigEvent>(keep: 256)
    var seq: Int64 = 0
    var rate = RateMeter()
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
        live = LivePictures(
            fps: config.settings.previewFps, maxWidth: config.settings.previewWidth, burnIn: config.previewBurnIn ? BurnInSettings() : nil)
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
            case .useSettings(let s): live.set(fps: s.previewFps, width: s.previewWidth)
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
        var hooks = CaptureHooks(onEvent: { [weak self] e in self?.sessionEvent(e) })
        hooks.onShot = { [weak self] r in self?.shotSaved(r) }
        hooks.onShotProgress = { [weak self] shot, written, total in _ = try? self?.send(.shotProgressed(shot: shot, written: written, total: total)) }
        hooks.taps = [live]
        let run = try RigSession(config, settings: settings, listed: listed, output: out, hooks: hooks)
        lock.lock()
        running = run
        sessionReport = nil
        rate = RateMeter()
        lock.unlock()
        // the machine knows the session before its thread can say anything of it
        let plan = run.session.ringPlan
        _ = try? send(.sessionStarted(preFrames: plan.preFrames, postFrames: plan.postFrames, at: CaptureClock.now()))
        run.start { [weak self] report, failure in self?.sessionEnded(report, failure: failure) }
    }

    /// Ends the camera's session, if one runs, after the shots it has triggered are saved.
    private func stopSession() { lock.withLock { running }?.end() }

    private func sessionEnded(_ report: CaptureReport?, failure: String?) {
        lock.withLock {
            sessionReport = report
            running = nil
        }
        let quit = report?.stopReason == .quit
        let stopped = report.map { r in "the camera stopped: \(r.stopReason.rawValue)\(r.message.map { " (\($0))" } ?? "")" }
        _ = try? send(.sessionEnded(quit: quit, why: failure ?? (quit ? nil : stopped)))
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
        try send(.armAsked(next, at: CaptureClock.now()))
    }

    /// CLOCK_MONOTONIC now, the clock of frames and triggers.
    public static func now() -> Rational { CaptureClock.now() }

    /// `POST /api/v1/trigger`: the instant it was read is the trigger's instant. The GPIO line and
    /// the network come here too, each with its event's own instant and wall time.
    public func trigger(at instant: Rational? = nil, wall: Rational? = nil, source: String = "api") throws(RigRefusal) -> Rational {
        let time = instant ?? CaptureClock.now()
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

    private func sessionEvent(_ e: CaptureEvent) {
        switch e.event {
        case .trigger:
            let frames = lock.withLock { running?.session.status.ringFrames ?? 0 }
            _ = try? send(.triggerPlaced(shot: e.shot, source: e.source, ringFrames: frames))
        case .shot:
            guard let n = e.shot else { return }
            _ = try? send(.shotFinished(n))
        case .armed, .rearmed, .ignored: break
        }
    }
}
