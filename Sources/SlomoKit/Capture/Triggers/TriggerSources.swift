import Foundation
import SlomoCore
import SlomoSystem

/// What a session tells the world as it runs, and the readers beside it: given at `init`, never
/// changed after (the command line, a test, the server each make their own).
public struct CaptureHooks: @unchecked Sendable {
    // Unchecked: `taps` are classes that synchronise themselves (`RingTap`); the closures are Sendable.
    /// Once, when a triggered capture is armed (the ring holds the whole pre-trigger window).
    public var onArmed: (@Sendable () -> Void)?
    /// A trigger received, a shot saved, armed again (`CaptureEvent`), from the session's threads.
    public var onEvent: (@Sendable (CaptureEvent) -> Void)?
    /// Each saved shot's report, before its `shot` event.
    var onShot: (@Sendable (ShotReport) -> Void)?
    /// A shot being saved: its number, frames written, frames it will have.
    var onShotProgress: (@Sendable (Int, Int64, Int64) -> Void)?
    /// More readers of the ring (the server's live pictures), started with the camera, stopped after it.
    var taps: [RingTap] = []

    public init(onArmed: (@Sendable () -> Void)? = nil, onEvent: (@Sendable (CaptureEvent) -> Void)? = nil) {
        self.onArmed = onArmed
        self.onEvent = onEvent
    }
}

/// The event source and trigger output several sessions share (several cameras on one event, a
/// server's queue), given to `CaptureSession.run`.
struct SharedTrigger: @unchecked Sendable {
    // Unchecked: what it holds is shared between threads by design (a fan-out's share, the
    // server's `TriggerQueue`, a `TriggerOutput`), and each of those synchronises itself.
    var events: TriggerEventSource?
    var output: TriggerOutput?
}

/// Where a session's trigger events come from and the line it raises for each shot, opened in one
/// place for every front end: its own source (made here) or a shared one (given), closed by their owner.
final class TriggerSources: @unchecked Sendable {
    // Safe: set up by `run` before the trigger thread starts, read by it afterwards; closed after it ends.
    let events: TriggerEventSource?
    let output: TriggerOutput?
    private let ownsEvents: Bool, ownsOutput: Bool

    init(events: TriggerEventSource?, output: TriggerOutput?, ownsEvents: Bool, ownsOutput: Bool) {
        self.events = events
        self.output = output
        self.ownsEvents = ownsEvents
        self.ownsOutput = ownsOutput
    }

    /// The event source of a trigger kind, opened now: a GPIO line or a network port in use is
    /// refused before the camera streams; `audio`: the recording's sound input (the sound trigger
    /// hears it unless it has its own microphone); `onEvent`: the network listener's warnings.
    /// Nil for motion (the image trigger reads the ring) and for `.api` without a shared queue.
    static func open(
        _ t: TriggerSettings, camera: String, audio: AudioCapture?,
        onEvent: (@Sendable (CaptureEvent) -> Void)?
    ) throws -> TriggerEventSource? {
        switch t.kind {
        case .motion: return nil
        case .stdin, .signal: return TriggerEvents(kind: t.kind)
        case .api: return TriggerQueue()
        case .gpio(let g): return try GPIOTriggerSource(g, debounce: t.debounce, holdoff: t.holdoff)
        case .network(let e):
            return try NetworkTriggerListener(endpoint: e, key: t.key ?? [], holdoff: t.holdoff, camera: camera) { onEvent?($0) }
        case .sound(let level): return try SoundTriggerSource.make(t, level: level, recorded: audio)
        }
    }

    func close() {
        if ownsEvents { events?.close() }
        if ownsOutput { output?.close() }
    }
}
