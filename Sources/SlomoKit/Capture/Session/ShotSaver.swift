import Foundation
import SlomoCore
import SlomoSystem

/// The shot saver: a stage that takes each shot the triggers placed, in order, and writes its frames
/// from the ring as they arrive (the post-trigger ones while they come), then the next. The next
/// shot's encoder is open before its trigger. It runs below the camera and the trigger thread: its
/// shot is pinned in the ring, so a slow disk makes saving slower, never the camera lose frames
/// while the ring has room.
final class ShotSaver: CaptureStage, @unchecked Sendable {
    // Safe: its counts and list are the thread's that runs it (the session's, or the takes' saver
    // thread, which the session waits for before it reads them).
    let settings: RecordingSettings
    let context: StageContext
    let audio: AudioCapture?
    /// A shot's recording finished (its sound and file syncs counted for the report).
    let finished: (any FrameFile) -> Void
    /// The shots saved, in order, and what they wrote; the write that failed (the capture was asked to end).
    private(set) var saved: [ShotReport] = []
    private(set) var framesWritten: Int64 = 0, bytesWritten: Int64 = 0
    private(set) var failure: Error?
    /// Takes: each file is written as `NAME.partial.EXT` and renamed when complete, so a save the
    /// process did not live to finish is never a damaged file under a shot's name.
    var partialNames = false
    /// Takes: the operator gave up the shots not yet saved (a second Ctrl-C); the save under way
    /// stops at its next frame and its partial file is removed.
    var abandoned: () -> Bool = { false }
    /// Takes: every frame of `shot` written, whether its file may be finished (false: given up).
    var keep: (PlacedShot) -> Bool = { _ in true }
    /// A save stopped by `abandoned`.
    struct Abandoned: Error {}

    init(settings: RecordingSettings, context: StageContext, audio: AudioCapture?, finished: @escaping (any FrameFile) -> Void) {
        self.settings = settings
        self.context = context
        self.audio = audio
        self.finished = finished
    }

    /// Where the saver takes its shots from: straight from the ring, as triggers place them (it
    /// then ends the capture after `--shots` and says when it is armed again), or from the takes
    /// held in RAM, in the order the save mode asks (the take copier does both of those).
    struct Feed {
        var next: () -> PlacedShot?
        /// The shot's frames are read (or will not be): the ring or the take has them back.
        var done: (PlacedShot) -> Void
        var fromRing: Bool
    }

    /// The feed of shots straight from the ring.
    var ringFeed: Feed {
        Feed(next: { [shots] in shots.next() }, done: { [shots] _ in shots.shotRead() }, fromRing: true)
    }

    /// Saves shots until the triggers end, `t.shots` are saved, or a write fails.
    func run(_ t: TriggerSettings, firstWriter: any FrameFile, feed: Feed) {
        var nextWriter: (any FrameFile)? = firstWriter
        while let shot = feed.next() {
            do {
                let r = try save(shot, writer: &nextWriter)
                feed.done(shot)
                saved.append(r)
                framesWritten += r.framesWritten
                bytesWritten += r.bytesWritten
                hooks.onShot?(r)
                hooks.onEvent?(.shot(camera: source.name, r))
            } catch is Abandoned {
                return
            } catch {
                failure = error
                shot.reader.close()
                feed.done(shot)
                end.request(.writeError, "\(error)")
                return
            }
            guard feed.fromRing else { continue }
            if t.shots > 0 && saved.count >= t.shots {
                end.request(.shots)
                return
            }
            // armed again: the next shot's encoder is ready before its trigger
            if nextWriter == nil { nextWriter = preparedWriter(shot: number(saved.count + 1)) }
            // armed again only when no trigger is already waiting (its shot is next, not a new one)
            let waiting = shots.hasWaiting, next = number(shots.triggeredCount + 1)
            if !waiting && !end.isRequested {
                var e = CaptureEvent(.rearmed, camera: source.name)
                e.shot = next
                hooks.onEvent?(e)
            }
        }
    }

    /// Shot `n`'s writer, encoder open, before its trigger; nil when it cannot be made now (saving
    /// the shot makes it again and reports why).
    func preparedWriter(shot n: Int) -> (any FrameFile)? {
        var s = settings
        s.output = TriggerSettings.path(settings.output, shot: n)
        guard let w = try? FrameFiles.open(settings: s, format: source.format, sourceName: source.name, frames: context.shotFrames) else { return nil }
        w.audio = audio
        do { try w.prepare() } catch { return nil }
        return w
    }

    /// Saves one shot: its frames from the ring, in order, as they arrive.
    func save(_ shot: PlacedShot, writer: inout (any FrameFile)?) throws -> ShotReport {
        var s = settings
        let final = TriggerSettings.path(settings.output, shot: shot.number)
        let partial = partialNames ? TakeStore.partialName(final) : nil
        s.output = partial ?? final
        let pre = Int(shot.triggerIndex - shot.start - shot.leadIn)
        let wall = TriggerEvents.iso8601(shot.wallTime)
        s.metadata.merge(shotTags(shot, pre: pre, preCount: preCount, postCount: postCount, wall: wall)) { _, new in new }
        let w: any FrameFile
        if let ready = writer, ready.output == s.output {
            w = ready
            writer = nil
        } else {
            w = try FrameFiles.open(settings: s, format: source.format, sourceName: source.name, frames: context.shotFrames)
            w.audio = audio
            try w.prepare()
        }
        w.metadata = s.metadata
        let reader = shot.reader
        var first: FrameRing.Meta?, last: FrameRing.Meta?, trig: FrameRing.Meta?
        var gaps: Int64 = 0
        var prev: UInt64?
        let counter = source.frameCounter
        while reader.position <= shot.end, case .frame(let f) = reader.next() {
            if abandoned() { try giveUp(reader, w, partial: partial) }
            let m = f.meta
            if first == nil { w.stampClock(source.timestampClock) }
            _ = try w.write(f.bytes, timestamp: m.timestamp, sequence: m.sequence)
            if first == nil { first = m }
            if f.index == shot.triggerIndex { trig = m }
            if let p = prev { gaps += Int64(counter.lost(from: p, to: m.sequence)) }
            prev = m.sequence
            last = m
            reader.release()
            if w.framesWritten % 8 == 0 { hooks.onShotProgress?(shot.number, w.framesWritten, shot.end - shot.start + 1) }
        }
        if !keep(shot) { try giveUp(reader, w, partial: partial) }
        let k = reader.position
        reader.close()
        try w.finish()
        if let partial {
            do throws(Errno) { try Files.rename(partial, to: final) } catch { throw OutputError(final, .renameFailed(from: partial, errno: error.rawValue)) }
        }
        finished(w)
        let tm = trig ?? first ?? FrameRing.Meta()
        let latency = shot.latency ?? (tm.timestamp - shot.eventTime)
        let post = Int(Swift.max(0, k - 1 - shot.triggerIndex))
        return ShotReport(
            shot: shot.number, output: final, trigger: shot.source, triggerFrame: pre + Int(shot.leadIn),
            leadInFrames: keyframed ? Int(shot.leadIn) : nil, preFrames: pre, postFrames: post,
            preFramesAsked: Int(preCount), postFramesAsked: Int(postCount), framesWritten: w.framesWritten,
            triggerSequence: tm.sequence, firstSequence: first?.sequence ?? 0, lastSequence: last?.sequence ?? 0, sequenceGaps: gaps,
            triggerTime: shot.eventTime, triggerWallTime: wall, triggerFrameTime: tm.timestamp,
            latency: latency, latencyMs: (latency.doubleValue * 1e6).rounded() / 1e3,
            decisionLatency: shot.decided - shot.eventTime, decisionLatencyMs: ((shot.decided - shot.eventTime).doubleValue * 1e6).rounded() / 1e3,
            triggerOut: shot.output, motionScore: shot.score,
            complete: pre == Int(preCount) && post == Int(postCount), bytesWritten: w.bytesWritten, warning: shot.warning)
    }

    /// The save stops here (the shots not saved were given up): the partial file removed.
    private func giveUp(_ reader: RingReader, _ w: any FrameFile, partial: String?) throws(Abandoned) {
        reader.close()
        try? w.finish()
        if let partial { try? Files.remove(partial) }
        throw Abandoned()
    }

    /// A shot's place around its trigger, in the file from its first byte (a server that finds the
    /// file after a crash lists the shot from them: `EarlierShots`).
    func shotTags(_ shot: PlacedShot, pre: Int, preCount: Int64, postCount: Int64, wall: String) -> [String: String] {
        var t: [SlomoTag: String] = [
            .triggerSource: shot.source, .triggerFrame: String(pre + Int(shot.leadIn)), .preFrames: String(pre),
            .preFramesAsked: String(preCount), .postFramesAsked: String(postCount), .triggerTime: shot.eventTime.description,
            .triggerFrameTime: shot.frameTime.description, .triggerDecisionLatency: (shot.decided - shot.eventTime).description,
            .triggerWallTime: wall, .shot: String(shot.number),
        ]
        if keyframed { t[.leadInFrames] = String(shot.leadIn) }
        if let o = shot.output { t[.triggerOutRaised] = o.raisedTime.description }
        return Dictionary(uniqueKeysWithValues: t.map { ($0.key.rawValue, $0.value) })
    }
}
