import SlomoCore

/// What a triggered capture tells its operator as it happens: armed, a trigger received, a shot
/// saved, armed again. The CLI prints each as a line on stderr, or as a JSON line with `--json`;
/// `Docs/JSON.md` describes the fields.
public struct CaptureEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case armed, trigger, shot, rearmed, ignored, held, refused, stopped, abandoned }
    public var event: Kind
    /// The camera (device or source name).
    public var camera: String
    /// The shot this event is about (for `rearmed`: the next one).
    public var shot: Int?
    /// `trigger`: its source (stdin, signal, motion), its CLOCK_MONOTONIC time and wall-clock
    /// time, and slomo's own latency (event → decision), in milliseconds.
    public var source: String?
    public var eventTime: Rational?
    public var wallTime: String?
    public var latencyMs: Double?
    /// `shot`: the file, its frames, those before and after the trigger frame, whether it holds
    /// all it was asked for, and why not.
    public var output: String?
    public var frames: Int64?
    public var preFrames: Int?
    public var postFrames: Int?
    public var complete: Bool?
    public var warning: String?
    /// `held` (a shot copied into a take in RAM) and `refused` (a trigger with no take free): the
    /// takes holding a shot not yet saved, being saved, and free.
    public var takesHeld: Int?
    public var takesSaving: Int?
    public var takesFree: Int?

    public init(_ event: Kind, camera: String) {
        self.event = event
        self.camera = camera
    }

    /// A trigger message ignored (malformed, wrongly signed, outside the replay window), and why.
    static func ignored(camera: String, _ why: String) -> CaptureEvent {
        var e = CaptureEvent(.ignored, camera: camera)
        e.warning = why
        return e
    }

    /// A trigger received for shot `shot`.
    static func trigger(camera: String, shot: Int, source: String, time: Rational, wall: Rational, latency: Rational) -> CaptureEvent {
        var e = CaptureEvent(.trigger, camera: camera)
        e.shot = shot
        e.source = source
        e.eventTime = time
        e.wallTime = TriggerEvents.iso8601(wall)
        e.latencyMs = (latency.doubleValue * 1e6).rounded() / 1e3
        return e
    }

    /// Shot `shot` held in RAM, in one of the takes whose states are `takes`.
    static func held(camera: String, shot: Int, takes: [TakeStore.State]) -> CaptureEvent {
        var e = CaptureEvent(.held, camera: camera)
        e.shot = shot
        e.count(takes)
        return e
    }

    /// A trigger refused: every take holds a shot not yet saved.
    static func refused(camera: String, _ why: String, takes: [TakeStore.State]) -> CaptureEvent {
        var e = CaptureEvent(.refused, camera: camera)
        e.warning = why
        e.count(takes)
        return e
    }

    private mutating func count(_ takes: [TakeStore.State]) {
        let n = TakeCounts(takes)
        (takesHeld, takesSaving, takesFree) = (n.held, n.saving, n.free)
    }

    /// Interrupted again while held shots were being saved: `shots` are not saved (the one being
    /// saved first, its partial file removed).
    static func abandoned(camera: String, shots: [Int]) -> CaptureEvent {
        var e = CaptureEvent(.abandoned, camera: camera)
        e.warning =
            "interrupted again: shot\(shots.count == 1 ? "" : "s") \(shots.map(String.init).joined(separator: ", ")) held in RAM not saved (the partial file of the one being saved removed)"
        return e
    }

    /// The camera stopped with shots still held in RAM: they are being saved now.
    static func stoppedSaving(camera: String, takes: [TakeStore.State]) -> CaptureEvent {
        var e = CaptureEvent(.stopped, camera: camera)
        e.count(takes)
        return e
    }

    /// Shot `r` saved.
    static func shot(camera: String, _ r: ShotReport) -> CaptureEvent {
        var e = CaptureEvent(.shot, camera: camera)
        e.shot = r.shot
        e.output = r.output
        e.frames = r.framesWritten
        e.preFrames = r.preFrames
        e.postFrames = r.postFrames
        e.complete = r.complete
        e.warning = r.warning
        return e
    }

    /// The line an operator reads on stderr.
    public var line: String {
        switch event {
        case .armed: return "slomo: armed: \(camera)"
        case .trigger:
            return "slomo: trigger \(shot ?? 0) (\(source ?? "?")) at \(wallTime ?? "?"): \(latencyMs.map { "\($0) ms after the event" } ?? "")"
        case .shot:
            let pre = preFrames.map(String.init) ?? "?", post = postFrames.map(String.init) ?? "?"
            return "slomo: shot \(shot ?? 0) saved: \(output ?? "?"), \(frames ?? 0) frames (\(pre) before the trigger frame, \(post) after)"
                + (warning.map { "; \($0)" } ?? "")
        case .rearmed: return "slomo: re-armed for shot \(shot ?? 0)"
        case .ignored: return "slomo: warning: \(warning ?? "a trigger message ignored")"
        case .held:
            return "slomo: shot \(shot ?? 0) held in RAM (takes: \(takesHeld ?? 0) held, \(takesSaving ?? 0) saving, \(takesFree ?? 0) free)"
        case .refused: return "slomo: warning: \(warning ?? "a trigger refused")"
        case .abandoned: return "slomo: warning: \(warning ?? "shots held in RAM given up")"
        case .stopped:
            let n = (takesHeld ?? 0) + (takesSaving ?? 0)
            return
                "slomo: the camera stopped; saving the \(n) shot\(n == 1 ? "" : "s") still held in RAM (Ctrl-C again gives them up)"
        }
    }
}
