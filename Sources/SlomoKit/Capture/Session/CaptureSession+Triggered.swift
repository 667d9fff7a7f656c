import Foundation
import SlomoCore
import SlomoSystem

/// Pre/post-trigger recording: triggers pick shots out of the ring; each is saved as it completes.
extension CaptureSession {
    struct Shot {
        var number: Int
        /// Holds the shot's frames from `start` on until it is saved.
        var reader: RingReader
        var start: Int64
        var triggerIndex: Int64
        var end: Int64            // last frame index wanted
        var eventTime: Rational
        var wallTime: Rational
        /// What fired it (`TriggerKind.name`: the session's own kind, or the event's source).
        var source: String
        var latency: Rational?
        var score: Double?
        /// Frames before `start + leadIn` kept only so the first pre-trigger frame decodes (H.264/HEVC).
        var leadIn: Int64 = 0
        var warning: String?
        /// When slomo decided the shot (CLOCK_MONOTONIC).
        var decided = Rational.zero
        /// `--trigger-out`: when the line went high.
        var output: TriggerOutputReport?
        /// The trigger frame's timestamp as the ring held it when the shot was decided.
        var frameTime = Rational.zero
    }

    /// Starts the trigger thread, which waits at `gate` until the camera streams (its event source
    /// is ready by then). Started before the writer lowers its own priority, which every thread it
    /// starts inherits: a trigger at nice +10 under load once fell 22 s behind a sound it had heard.
    func startTriggerThread(_ t: TriggerSettings, ring: FrameRing, gate: StartGate) {
        let preCount = Int64(ringPlan.preFrames), postCount = Int64(ringPlan.postFrames)
        let triggerThread = Thread { [self] in
            CurrentProcess.nameThread("slomo-trigger")
            if gate.wait() {
                switch t.kind {
                case .stdin, .signal, .network, .sound, .gpio, .api: eventTriggers(t, ring: ring, preCount: preCount, postCount: postCount)
                case .motion(let threshold): motionTrigger(t, threshold: threshold, ring: ring, preCount: preCount, postCount: postCount)
                }
            }
            shots.triggersEnded()
        }
        triggerThread.name = "slomo-trigger"
        triggerThread.start()
    }

    func runTriggered(_ t: TriggerSettings, ring: FrameRing, firstWriter: RecordingWriter,
                      captureDone: DispatchSemaphore) throws -> CaptureReport {
        let preCount = Int64(ringPlan.preFrames), postCount = Int64(ringPlan.postFrames)

        let saver = ShotSaver(settings: settings, source: source, audio: audioCapture, hooks: hooks, shots: shots, end: end,
                              preCount: preCount, postCount: postCount, number: shotNumber, finished: audioWritten)
        saver.run(t, ring: ring, firstWriter: firstWriter)
        let saved = saver.saved
        captureDone.wait()
        shots.drainAfterTriggers()
        if let e = end.startFailure { throw e }
        let report = triggeredReport(t, ring: ring, shots: saved, framesWritten: saver.framesWritten, bytesWritten: saver.bytesWritten)
        // each shot's file gets its own report beside it: the capture's, narrowed to that shot
        for shot in saved { writeSidecar(Self.shotReport(report, shot), for: [shot.output]) }
        if let failure = saver.failure { throw CaptureSession.stopped(TriggerSettings.path(settings.output, shot: shotNumber(saved.count + 1)), frames: 0, failure, report: reportNote) }
        return report
    }

    /// The report beside shot `shot`'s file: the capture's (camera, ring, drops, trigger), with
    /// that shot's file, frames and bytes, and that shot alone in `shots`.
    static func shotReport(_ report: CaptureReport, _ shot: ShotReport) -> CaptureReport {
        var r = report
        r.output = shot.output
        r.framesWritten = shot.framesWritten
        r.bytesWritten = shot.bytesWritten
        r.shots = [shot]
        return r
    }

    /// The report of a triggered capture: its shots, the trigger, and the image trigger's costs.
    func triggeredReport(_ t: TriggerSettings, ring: FrameRing, shots: [ShotReport], framesWritten: Int64, bytesWritten: Int64) -> CaptureReport {
        var report = makeReport(output: settings.output, framesWritten: framesWritten, bytesWritten: bytesWritten, ring: ring,
                                backlog: 0, catchUp: .zero, shortFrames: 0)
        report.trigger = t.kind.name
        report.shots = shots
        if case .motion = t.kind {
            report.motionFramesEvaluated = motion.evaluated
            report.motionFramesSkipped = motion.skipped
            report.motionCpuMicrosPerFrame = motion.evaluated > 0 ? (motion.cpu / Double(motion.evaluated) * 1e7).rounded() / 10 : nil
        }
        if shots.isEmpty { report.warnings.append("no trigger arrived: nothing was saved") }
        if let w = triggerSources?.output?.warning { report.warnings.append(w) }
        return report
    }

    /// Queues a shot whose trigger frame is `index` (`reader`: pinned, holding the frames before it).
    func enqueue(reader: RingReader, index: Int64, preCount: Int64, postCount: Int64, event: Rational,
                 wall: Rational, source firedBy: String? = nil, latency: Rational?, score: Double?) {
        let firedBy = firedBy ?? trigger?.kind.name ?? "?"
        // the output first: a strobe or a second device waits for nothing else
        let raised = triggerSources?.output?.fire(event: event)
        var start = Swift.max(reader.start, index - preCount)
        var leadIn: Int64 = 0
        var warnings: [String] = []
        if index - start < preCount {
            let age = CaptureClock.now() - event
            let period = source.format.frameDuration ?? Rational(1, 30)
            let why = !armedSaid ? "the trigger came before the ring held them (before 'armed')"
                : age > period * Rational(4) ? "the trigger named an instant \(Seconds(age, decimals: 3)) s before it was read, and the ring keeps --pre-trigger before now (a larger --ring-memory keeps more)"
                : "the trigger was read too late to keep the rest"
            warnings.append("\(index - start) of \(preCount) frames before the trigger frame: \(why)")
        }
        let late = reader.frame(index).meta.timestamp - event
        if index == reader.start, late > (source.format.frameDuration ?? Rational(1, 30)) * Rational(2) {
            warnings.append("the instant named is \(Seconds(late, decimals: 3)) s before the oldest frame the ring still held: the shot starts there, not at the instant")
        }
        if keyframed {
            // back from the first pre-trigger frame to the keyframe it is predicted from
            var k = start
            let codec = source.format.nalCodec ?? .h264
            func key(_ k: Int64) -> Bool { RecordingWriter.isLikelyKeyframe(reader.frame(k).bytes, codec: codec) }
            var found = key(k)
            while k > reader.start && !found { k -= 1; found = key(k) }
            if found {
                leadIn = start - k
                start = k
            } else {
                warnings.append("no keyframe in the ring at or before the first pre-trigger frame: frames before the camera's next keyframe do not decode")
            }
        }
        reader.seek(to: start)
        let decided = CaptureClock.now()
        var number = 0
        shots.add { k in
            number = shotNumber(k)
            return Shot(number: number, reader: reader, start: start, triggerIndex: index, end: index + postCount,
                        eventTime: event, wallTime: wall, source: firedBy, latency: latency, score: score, leadIn: leadIn,
                        warning: warnings.isEmpty ? nil : warnings.joined(separator: "; "), decided: decided, output: raised,
                        frameTime: reader.frame(index).meta.timestamp)
        }
        // said outside the lock: a slow stderr must not hold up the shot writer
        hooks.onEvent?(.trigger(camera: source.name, shot: number, source: firedBy, time: event, wall: wall,
                          latency: latency ?? decided - event))
    }

    func captureEnded() -> Bool { end.isRequested }

    /// stdin lines (`trigger`, `quit`), SIGUSR1 or a network message: each event selects the first
    /// frame whose kernel timestamp is at or after the event's CLOCK_MONOTONIC time.
    func eventTriggers(_ t: TriggerSettings, ring: FrameRing, preCount: Int64, postCount: Int64) {
        guard let events = triggerSources?.events else { return }
        while !captureEnded() {
            if t.shots > 0 && shots.triggeredCount >= t.shots { return }
            sayArmed(ring, preCount: preCount)
            switch events.next(timeoutMilliseconds: 20) {
            case .none: continue
            case .quit:
                waitForPendingShots()
                requestEnd(.quit)
                return
            case .inputEnded:
                waitForPendingShots()
                requestEnd(.inputEnded)
                return
            case .trigger(let time, let wall, let firedBy):
                // H.264/HEVC: the lead-in room too, until the keyframe before the shot is found (never
                // so much that the camera has no free slot for the frames up to the trigger frame)
                let room = Int64(Swift.max(0, Swift.min(ringPlan.leadInFrames, ringPlan.slots - ringPlan.preFrames - ringPlan.postFrames - 17)))
                // an instant still ahead (a scheduled network trigger): nothing is pinned until the
                // camera reaches it, so the ring never fills with frames held for it
                while ring.count == 0 || ring.meta(ring.count - 1).timestamp < time {
                    if captureEnded() { return }
                    CurrentProcess.sleep(microseconds: 2_000)
                }
                // an event already some frames old (a network message naming an earlier instant) starts
                // the reader that much further back, so its pre-trigger frames are kept too
                let period = source.format.frameDuration ?? Rational(1, 30)
                let newest = ring.count > 0 ? ring.meta(ring.count - 1).timestamp : time
                let behind = newest > time ? ((newest - time) / period).ceiling + 1 : 0
                let reader = RingReader(ring, from: ring.count - preCount - 4 - room - behind, pinned: true)
                guard let index = reader.firstFrame(atOrAfter: time) else { reader.close(); return }
                enqueue(reader: reader, index: index, preCount: preCount, postCount: postCount, event: time, wall: wall, source: firedBy,
                        latency: nil, score: nil)
            }
        }
    }

    /// Blocks until every triggered shot's frames, post-trigger ones included, are in (the camera
    /// must keep running until then), or the capture ended for another reason.
    func waitForPendingShots() {
        shots.waitUntilRead(unless: captureEnded)
    }


}
