import SlomoCore

/// The rig's state machine as a value: every state it is in is stored here (`saving` included),
/// and every change is `handle(_:)`: one `RigInput` (a client asked, the camera's session said) in,
/// the new state and the `RigEffect`s the rig must carry out. It does no I/O, takes no lock and
/// reads no clock: `Rig` feeds it under its lock and runs the effects outside it.
///
/// | state \ input | arm | trigger | disarm | window change | session started | post window full | shot saved | session ended |
/// |---|---|---|---|---|---|---|---|---|
/// | starting | conflict starting | conflict not armed | – | conflict idle only | idle | – | – | stopped |
/// | idle | armed (a new window: reopened first) | conflict not armed | – | reopened | idle | – | – | stopped |
/// | armed | conflict already armed | triggered | idle | conflict | idle | – | – | stopped |
/// | triggered | conflict already | a further shot, or conflict taken | triggered until saved | conflict | idle | saving | armed/idle; triggered while others fill | stopped |
/// | saving | conflict already | a further shot, or conflict taken | saving until saved | conflict | idle | – | as triggered | stopped |
/// | stopped | unavailable gone | unavailable gone | unavailable gone | conflict | idle | – | – | stopped |
///
/// Refusals are `RigRefusal`s by `FailureKind` (the server answers conflict with 409, unavailable
/// with 503). Settings outside their ranges are refused (bad request, naming the field) before the state is looked at;
/// `close` (the server stopping) is taken in every state and makes the end of the session `stopped`.
/// Tests/SlomoKitTests/RigMachineTests.swift walks every state × every input against this table.
public struct RigMachine: Sendable, Equatable {
    public private(set) var state = RigState.starting
    public private(set) var settings: RigSettings
    /// Why the camera stopped, or the last warning.
    public private(set) var message: String?
    /// The rig is stopping: nothing is armed or reopened any more; the session's end is `stopped`.
    public private(set) var closing = false
    /// Shots this arm still takes (nil: until disarmed).
    public private(set) var shotsLeft: Int?
    /// When the current arm began (CLOCK_MONOTONIC): an event naming an earlier instant (a late
    /// network message) is not this arm's.
    public private(set) var armedAt: Rational?
    /// Triggers sent to the session whose placing has not come back yet.
    public private(set) var pendingTriggers = 0
    /// The shots triggered and not saved yet, and the ring they fill.
    public private(set) var inFlight = ShotsInFlight()
    /// A new window being opened (the session stopped and started again), and what follows it.
    public private(set) var reopening: Reopening?

    public enum Reopening: Sendable, Equatable {
        /// The new window's session is starting; `restore`: the settings to go back to if it fails;
        /// `thenArm`: an arm asked it (armed once the session runs).
        case window(restore: RigSettings, thenArm: Bool)
        /// The new window failed: the old one's session is starting again.
        case restoring
    }

    public init(settings: RigSettings) { self.settings = settings }

    /// One input: the machine changes and says what the rig must do, in order. A refusal is the
    /// last effect; the inputs of clients that are refused change nothing.
    public mutating func handle(_ input: RigInput) -> [RigEffect] {
        switch input {
        case .armAsked(let next, let at): return arm(next, at: at)
        case .triggerAsked(let t): return trigger(t)
        case .disarmAsked: return disarm()
        case .settingsChangeAsked(let next, let fields): return change(next, fields: fields)
        case .closeAsked: return close()
        case .sessionStarted(let pre, let post, let at): return sessionStarted(pre: pre, post: post, at: at)
        case .sessionFailedToStart(let why): return sessionFailed(why)
        case .triggerPlaced(let shot, let source, let ringFrames):
            pendingTriggers = Swift.max(0, pendingTriggers - 1)
            inFlight.count(ringFrames)
            if let shot { inFlight.place(shot) }
            return [.emit(.trigger, shot: shot, source: source)] + settle()
        case .ringCounted(let frames):
            inFlight.count(frames)
            return settle()
        case .shotProgressed(let shot, let written, let total):
            inFlight.progress(shot, written: written, total: total)
            return []
        case .shotFinished(let shot): return finished(shot)
        case .sessionEnded(let quit, let why): return sessionEnded(quit: quit, why: why)
        }
    }

    // MARK: what clients ask

    private var gone: RigRefusal { RigRefusal(.unavailable, "the camera is gone: \(message ?? "it stopped")") }

    private mutating func arm(_ next: RigSettings, at: Rational) -> [RigEffect] {
        do { try next.check() } catch { return [.refuse(error)] }
        let current = closing ? .stopped : state
        switch current {
        case .stopped: return [.refuse(gone)]
        case .starting: return [.refuse(RigRefusal(.conflict, "the camera is starting: arm again in a moment"))]
        case .armed, .triggered, .saving: return [.refuse(RigRefusal(.conflict, "already \(current.rawValue): disarm first"))]
        case .idle: break
        }
        let old = settings
        settings = next
        if Self.windowChanged(old, next) {
            reopening = .window(restore: old, thenArm: true)
            return [.useSettings(next), .reopenSession]
        }
        armNow(at: at)
        return [.useSettings(next), .announceState]
    }

    private mutating func armNow(at: Rational) {
        state = .armed
        armedAt = at
        shotsLeft = settings.shots == 0 ? nil : settings.shots
    }

    private mutating func trigger(_ t: RigTrigger) -> [RigEffect] {
        switch state {
        case .idle, .starting: return [.refuse(RigRefusal(.conflict, "not armed: arm first"))]
        case .stopped: return [.refuse(gone)]
        case .armed, .triggered, .saving: break
        }
        if let a = armedAt, t.time < a {
            return [.refuse(RigRefusal(.conflict, "its instant is \(Seconds(a - t.time, decimals: 3)) s before the rig was armed"))]
        }
        if let left = shotsLeft, left <= 0 {
            let n = settings.shots
            return [.refuse(RigRefusal(.conflict, "this arm's \(n) shot\(n == 1 ? " is" : "s are") taken and still saving: arm again once saved"))]
        }
        if let left = shotsLeft { shotsLeft = left - 1 }
        pendingTriggers += 1
        let before = state
        state = .triggered
        _ = settle()
        return [.sendTrigger(t)] + (state != before ? [.announceState] : [])
    }

    private mutating func disarm() -> [RigEffect] {
        if state == .stopped { return [.refuse(gone)] }
        shotsLeft = 0
        // shots already triggered are still saved: triggered (or saving) until they are
        if inFlight.isEmpty && pendingTriggers == 0 && state != .starting { state = .idle }
        return [.announceState]
    }

    private mutating func change(_ next: RigSettings, fields: Set<String>) -> [RigEffect] {
        do { try next.check() } catch { return [.refuse(error)] }
        let current = closing ? .stopped : state
        let ringFields = fields.intersection(RigSettings.needIdle).sorted()
        let newWindow = Self.windowChanged(settings, next)
        if !ringFields.isEmpty && current != .idle && newWindow {
            let sentence = "\(ringFields.joined(separator: " and ")) size the ring: they change only while idle (the rig is \(current.rawValue); disarm first)"
            return [.refuse(RigRefusal(.conflict, sentence, field: ringFields.first))]
        }
        let old = settings
        settings = next
        guard newWindow else { return [.useSettings(next)] }
        reopening = .window(restore: old, thenArm: false)
        return [.useSettings(next), .reopenSession]
    }

    private mutating func close() -> [RigEffect] {
        guard !closing else { return [] }
        closing = true
        return [.cancelExports, .closeTriggerInputs, .closeSession, .closeTriggerOutput, .endEvents]
    }

    // MARK: what the session says

    private mutating func sessionStarted(pre: Int, post: Int, at: Rational) -> [RigEffect] {
        var arm = false
        if case .window(_, thenArm: true)? = reopening { arm = true }
        reopening = nil
        inFlight = ShotsInFlight(preFrames: pre, postFrames: post)
        pendingTriggers = 0
        message = nil
        state = .idle
        if arm { armNow(at: at) }
        return [.announceState]
    }

    private mutating func sessionFailed(_ why: String) -> [RigEffect] {
        if case .window(let old, _)? = reopening {
            // the old window again, so that the rig still has a camera; the new one is refused
            settings = old
            reopening = .restoring
            return [.useSettings(old), .openSession, .refuse(RigRefusal(.conflict, "the new window was refused: \(why)"))]
        }
        reopening = nil
        state = .stopped
        message = why
        return [.announceState]
    }

    private mutating func finished(_ shot: Int) -> [RigEffect] {
        inFlight.finish(shot)
        if state == .triggered || state == .saving {
            // still triggered while another shot is filling or a trigger has not reached the session yet
            if inFlight.isEmpty && pendingTriggers == 0 {
                state = (shotsLeft ?? 1) > 0 ? .armed : .idle
            } else {
                state = .triggered
                _ = settle()
            }
        }
        return [.emit(.shot, shot: shot, source: nil), .announceState]
    }

    /// `quit`: the rig asked the session to end (a new window, or the server stopping); `why`:
    /// the session's failure, or why it stopped by itself.
    private mutating func sessionEnded(quit: Bool, why: String?) -> [RigEffect] {
        inFlight.clear()
        if !(quit && closing), let why { message = why }
        if !quit || closing { state = .stopped }
        return [.announceState]
    }

    /// Triggered or saving: saving once the first shot in flight has its whole post-trigger window.
    private mutating func settle() -> [RigEffect] {
        guard state == .triggered || state == .saving else { return [] }
        let before = state
        state = inFlight.firstWindowFull ? .saving : .triggered
        return state != before ? [.announceState] : []
    }

    /// A new pre- or post-trigger window: a new ring, so a new session.
    static func windowChanged(_ a: RigSettings, _ b: RigSettings) -> Bool { a.preTrigger != b.preTrigger || a.postTrigger != b.postTrigger }
}

/// A trigger a client or a trigger line asks for: its instant (CLOCK_MONOTONIC), the wall-clock
/// time, and what fired it (`api`, `gpio`, `udp`).
public struct RigTrigger: Sendable, Equatable {
    public var time: Rational
    public var wall: Rational
    public var source: String
    public init(time: Rational, wall: Rational, source: String) {
        self.time = time
        self.wall = wall
        self.source = source
    }
}

/// What happens to the rig: a client asks, or the camera's session says what it did.
public enum RigInput: Sendable, Equatable {
    /// `POST arm`, with the settings it makes (a new window, a shot count).
    case armAsked(RigSettings, at: Rational)
    case triggerAsked(RigTrigger)
    case disarmAsked
    /// `PATCH settings`: the settings it makes, and the fields it named.
    case settingsChangeAsked(RigSettings, fields: Set<String>)
    /// The server stopping.
    case closeAsked
    /// A session runs, with its ring's pre- and post-trigger frames.
    case sessionStarted(preFrames: Int, postFrames: Int, at: Rational)
    case sessionFailedToStart(String)
    /// The session placed a trigger (its shot, nil when it made none), at the ring's frame count then.
    case triggerPlaced(shot: Int?, source: String?, ringFrames: Int64)
    /// The ring's frame count, read from the session's status (how the post-trigger window fills).
    case ringCounted(Int64)
    case shotProgressed(shot: Int, written: Int64, total: Int64)
    /// The session saved a shot.
    case shotFinished(Int)
    /// The session ended: `quit` when the rig asked it to; `why` it failed or stopped by itself.
    case sessionEnded(quit: Bool, why: String?)

    public enum Kind: String, Sendable, CaseIterable {
        case armAsked, triggerAsked, disarmAsked, settingsChangeAsked, closeAsked, sessionStarted, sessionFailedToStart
        case triggerPlaced, ringCounted, shotProgressed, shotFinished, sessionEnded
    }

    public var kind: Kind {
        switch self {
        case .armAsked: .armAsked
        case .triggerAsked: .triggerAsked
        case .disarmAsked: .disarmAsked
        case .settingsChangeAsked: .settingsChangeAsked
        case .closeAsked: .closeAsked
        case .sessionStarted: .sessionStarted
        case .sessionFailedToStart: .sessionFailedToStart
        case .triggerPlaced: .triggerPlaced
        case .ringCounted: .ringCounted
        case .shotProgressed: .shotProgressed
        case .shotFinished: .shotFinished
        case .sessionEnded: .sessionEnded
        }
    }
}

/// What the rig must do after an input, in order.
public enum RigEffect: Sendable, Equatable {
    /// Answer the client with this refusal (nothing after it).
    case refuse(RigRefusal)
    /// The settings are now these: the live pictures take their rate and width.
    case useSettings(RigSettings)
    /// Stop the session and start one with the machine's settings (a new ring); its start or
    /// failure comes back as an input.
    case reopenSession
    /// Start a session with the machine's settings (the old window, after a new one failed).
    case openSession
    /// End the session after the shots it triggered are saved.
    case closeSession
    /// Pass the trigger to the session.
    case sendTrigger(RigTrigger)
    /// Tell the clients (`GET events`).
    case emit(RigEvent.Kind, shot: Int?, source: String?)
    /// Tell the clients the state (a `state` event with the status).
    case announceState
    /// The server stopping: cancel exports, let go of the trigger line or port, the output line,
    /// and the clients' event streams.
    case cancelExports, closeTriggerInputs, closeTriggerOutput, endEvents
}
