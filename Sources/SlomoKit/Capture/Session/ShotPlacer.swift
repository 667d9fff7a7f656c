import Foundation
import SlomoCore
import SlomoSystem

/// The shot placer: the trigger thread's stage. It reads the session's trigger source (stdin,
/// SIGUSR1, the network, sound, a GPIO line, the server's queue) or, for the image trigger, the
/// ring itself, and places each shot by its event's own instant: the first frame whose timestamp
/// is at or after it, with the pre-trigger frames before it pinned, the trigger output raised
/// first. It runs at the caller's priority, beside the camera, and never holds the camera back.
final class ShotPlacer: CaptureStage, @unchecked Sendable {
    // Safe: `armedSaid` and `motion` are touched by the trigger thread only, and `motion` read by the
    // session after that thread has ended (`ShotQueue.drainAfterTriggers`); `sources` is set before
    // the thread passes its gate and not changed after.
    let trigger: TriggerSettings
    let context: StageContext
    /// The event source and trigger output: set by the session before it opens the gate the
    /// trigger thread waits at (which orders the write before every read).
    var sources: TriggerSources?
    private var armedSaid = false
    /// The image trigger's costs.
    private(set) var motion = MotionCounters()

    init(trigger: TriggerSettings, context: StageContext) {
        self.trigger = trigger
        self.context = context
    }

    /// Once, when the ring holds the whole pre-trigger window: scripts wait for it before they trigger.
    func sayArmed(_ ring: FrameRing) {
        guard !armedSaid, ring.count >= Swift.max(preCount, 1) else { return }
        armedSaid = true
        hooks.onArmed?()
    }

    /// Starts the trigger thread, which waits at `gate` until the camera streams (its event source
    /// is ready by then). Started before the writer lowers its own priority, which every thread it
    /// starts inherits: a trigger at nice +10 under load once fell 22 s behind a sound it had heard.
    func start(ring: FrameRing, gate: StartGate) {
        let t = trigger
        let triggerThread = Thread { [self] in
            CurrentProcess.nameThread("slomo-trigger")
            if gate.wait() {
                switch t.kind {
                case .stdin, .signal, .network, .sound, .gpio, .api: eventTriggers(ring: ring)
                case .motion(let threshold): motionTrigger(threshold: threshold, ring: ring)
                }
            }
            shots.triggersEnded()
        }
        triggerThread.name = "slomo-trigger"
        triggerThread.start()
    }

    /// Queues a shot whose trigger frame is `index` (`reader`: pinned, holding the frames before it).
    func enqueue(
        reader: RingReader, index: Int64, event: Rational,
        wall: Rational, source firedBy: String? = nil, latency: Rational?, score: Double?
    ) {
        let firedBy = firedBy ?? trigger.kind.name
        var warnings: [String] = []
        // held in RAM: a take for it first, or the trigger is refused (nothing raised, nothing kept)
        guard let (take, note) = reserveTake(firedBy: firedBy, wall: wall) else {
            reader.close()
            return
        }
        if let note { warnings.append(note) }
        // the output first: a strobe or a second device waits for nothing else
        let raised = sources?.output?.fire(event: event)
        var start = Swift.max(reader.start, index - preCount)
        var leadIn: Int64 = 0
        if index - start < preCount {
            let age = CaptureClock.now() - event
            let period = source.format.frameDuration ?? Rational(1, 30)
            let why =
                !armedSaid
                ? "the trigger came before the ring held them (before 'armed')"
                : age > period * Rational(4)
                    ? "the trigger named an instant \(Seconds(age, decimals: 3)) s before it was read, and the ring keeps --pre-trigger before now (a larger --ring-memory keeps more)"
                    : "the trigger was read too late to keep the rest"
            warnings.append("\(index - start) of \(preCount) frames before the trigger frame: \(why)")
        }
        let late = reader.frame(index).meta.timestamp - event
        if index == reader.start, late > (source.format.frameDuration ?? Rational(1, 30)) * Rational(2) {
            warnings.append(
                "the instant named is \(Seconds(late, decimals: 3)) s before the oldest frame the ring still held: the shot starts there, not at the instant")
        }
        if keyframed {
            if let k = keyframe(reader, atOrBefore: start) {
                leadIn = start - k
                start = k
            } else {
                warnings.append("no keyframe in the ring at or before the first pre-trigger frame: frames before the camera's next keyframe do not decode")
            }
        }
        reader.seek(to: start)
        let decided = CaptureClock.now()
        var shotNumber = 0
        shots.add { k in
            shotNumber = number(k)
            return PlacedShot(
                number: shotNumber, reader: reader, start: start, triggerIndex: index, end: index + postCount,
                eventTime: event, wallTime: wall, source: firedBy, latency: latency, score: score, leadIn: leadIn,
                warning: warnings.isEmpty ? nil : warnings.joined(separator: "; "), decided: decided, output: raised,
                frameTime: reader.frame(index).meta.timestamp, take: take)
        }
        // said outside the lock: a slow stderr must not hold up the shot writer
        hooks.onEvent?(
            .trigger(
                camera: source.name, shot: shotNumber, source: firedBy, time: event, wall: wall,
                latency: latency ?? decided - event))
    }

    /// H.264/HEVC: the keyframe at or before `start` the frames from it are predicted from (nil:
    /// none left in the ring).
    func keyframe(_ reader: RingReader, atOrBefore start: Int64) -> Int64? {
        let rule = source.format.pixels?.keyframes ?? .nal(.h264)
        var k = start
        while k >= reader.start {
            if rule.isKeyframe(reader.frame(k).bytes) { return k }
            k -= 1
        }
        return nil
    }

    /// A take for the next shot when shots are held in RAM (`nil` take: they are not), and what
    /// it cost (`--overwrite-unsaved`: the shot given up); nil when every take is held (the
    /// trigger refused, and said).
    func reserveTake(firedBy: String, wall: Rational) -> (Int?, String?)? {
        guard let store = takes else { return (nil, nil) }
        switch store.reserve() {
        case .take(let k): return (k, nil)
        case .overwrote(let k, let n):
            return (k, "shot \(n) was held unsaved in the oldest take, reused for this one (\(Setting.overwriteUnsaved))")
        case .full:
            let why =
                "a \(firedBy) trigger at \(TriggerEvents.iso8601(wall)) refused: all \(store.partitions.count) takes hold shots not yet saved "
                + "(each is free once saved; \(Setting.overwriteUnsaved) reuses the oldest)"
            hooks.onEvent?(.refused(camera: source.name, why, takes: store.states))
            return nil
        }
    }

    /// stdin lines (`trigger`, `quit`), SIGUSR1 or a network message: each event selects the first
    /// frame whose kernel timestamp is at or after the event's CLOCK_MONOTONIC time.
    func eventTriggers(ring: FrameRing) {
        let t = trigger
        guard let events = sources?.events else { return }
        while !end.isRequested {
            if t.shots > 0 && shots.triggeredCount >= t.shots { return }
            sayArmed(ring)
            switch events.next(timeoutMilliseconds: 20) {
            case .none: continue
            case .quit:
                shots.waitUntilRead(unless: { end.isRequested })
                end.request(.quit)
                return
            case .inputEnded:
                shots.waitUntilRead(unless: { end.isRequested })
                end.request(.inputEnded)
                return
            case .trigger(let time, let wall, let firedBy):
                // H.264/HEVC: the lead-in room too, until the keyframe before the shot is found (never
                // so much that the camera has no free slot for the frames up to the trigger frame)
                let room = Int64(Swift.max(0, Swift.min(plan.leadInFrames, plan.slots - plan.preFrames - plan.postFrames - 17)))
                // an instant still ahead (a scheduled network trigger): nothing is pinned until the
                // camera reaches it, so the ring never fills with frames held for it
                while ring.count == 0 || ring.meta(ring.count - 1).timestamp < time {
                    if end.isRequested { return }
                    CurrentProcess.sleep(microseconds: 2_000)
                }
                // an event already some frames old (a network message naming an earlier instant) starts
                // the reader that much further back, so its pre-trigger frames are kept too
                let period = source.format.frameDuration ?? Rational(1, 30)
                // (the count read once: read again after the thread was preempted, frames that came
                // meanwhile moved the start past the instant's pre-trigger frames)
                let count = ring.count
                let newest = count > 0 ? ring.meta(count - 1).timestamp : time
                let behind = newest > time ? ((newest - time) / period).ceiling + 1 : 0
                let reader = RingReader(ring, from: count - preCount - 4 - room - behind, pinned: true)
                guard let index = reader.firstFrame(atOrAfter: time) else {
                    reader.close()
                    return
                }
                enqueue(
                    reader: reader, index: index, event: time, wall: wall, source: firedBy,
                    latency: nil, score: nil)
            }
        }
    }

    /// The image trigger (`MotionTrigger`): a trigger source that reads the ring itself; each shot
    /// it sees is placed on the frame that moved.
    func motionTrigger(threshold: Rational, ring: FrameRing) {
        let t = trigger
        let motionSource = MotionTrigger(threshold: threshold, region: t.region, format: source.format, preCount: preCount, postCount: postCount)
        motionSource.run(
            ring: ring, counters: &motion,
            enough: { [shots] in t.shots > 0 && shots.triggeredCount >= t.shots }, ended: { [end] in end.isRequested },
            armed: { sayArmed(ring) },
            fire: { k, m, score in
                let decided = CaptureClock.now()
                enqueue(
                    reader: RingReader(ring, from: k - preCount, pinned: true), index: k,
                    event: m.timestamp, wall: TriggerEvents.wallClock(), latency: decided - m.timestamp, score: score)
            })
    }
}
