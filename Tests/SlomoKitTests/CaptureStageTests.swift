import Foundation
import SlomoCore
import SlomoFFmpeg
import SlomoSystem
import Testing

@testable import SlomoKit

/// Each capture stage alone on the synthetic producer: the capture thread fills a ring from the
/// synthetic camera, and one stage reads it, with no session around them.
@Suite struct CaptureStageTests {
    /// The synthetic gray camera's producer, its ring (room for every frame unless `slots`) and the
    /// session end they share; `run` starts the producer's thread, `wait` joins it.
    final class Rig: @unchecked Sendable {
        let source: SyntheticSource
        let end = SessionEnd()
        let producer: CaptureThread
        let ring: FrameRing
        let plan: RingPlan
        private let done = DispatchSemaphore(value: 0)

        init(frames: Int64, paced: Bool = false, slots: Int? = nil) throws {
            source = try SyntheticSource(spec: "fps=240,size=96x64,format=gray,pace=\(paced ? 1 : 0)")
            var limits = CaptureLimits(frames: frames)
            limits.lockMemory = false
            limits.realtime = false
            producer = CaptureThread(source: source, limits: limits, end: end, stop: StopToken())
            let p = RingPlan.plan(format: source.format, fps: Rational(240), pre: Rational(1, 10), post: Rational(1, 20), memory: nil)
            let n = slots ?? Int(frames) + 8
            plan = RingPlan(
                slots: n, slotBytes: p.slotBytes, bytes: Int64(n) * Int64(p.slotBytes), preFrames: p.preFrames, postFrames: p.postFrames,
                leadInFrames: p.leadInFrames)
            ring = FrameRing(capacity: plan.slots, slotBytes: plan.slotBytes, lockInMemory: false)
        }

        func run() {
            let t = Thread { [self] in
                try? source.prepare()
                producer.run(ring)
                done.signal()
            }
            t.start()
        }

        func wait() { done.wait() }

        /// `end`: the stages' own (the producer's has ended once it is joined).
        func context(_ shots: ShotQueue, end: SessionEnd = SessionEnd()) -> StageContext {
            StageContext(source: source, plan: plan, shots: shots, end: end, hooks: CaptureHooks(), number: { $0 })
        }
    }

    static func settings(_ output: String) -> RecordingSettings {
        var s = RecordingSettings(output: output)
        s.rawCodec = .ffv1
        s.sync = false
        s.overwrite = true
        return s
    }

    static func frameCount(_ path: String) throws -> Int {
        let d = try Demuxer(path: path)
        let packet = Packet()
        var n = 0
        while try d.readPacket(into: packet) {
            n += 1
            packet.unref()
        }
        return n
    }

    /// The continuous recorder on a 16-slot ring of 120 frames into `file`, its reader pinned before
    /// the camera starts; `late`: the camera runs to its end before the recorder writes a frame.
    static func record(_ file: String, late: Bool) throws -> (outcome: ContinuousRecorder.Outcome, written: Int64, dropped: Int64) {
        let rig = try Rig(frames: 120, slots: 16)
        let writer = try RecordingWriter(settings: Self.settings(file), format: rig.source.format, sourceName: "synthetic")
        try writer.prepare()
        let reader = ContinuousRecorder.reader(rig.ring)
        rig.run()
        if late { rig.wait() }
        let outcome = ContinuousRecorder(writer: writer, source: rig.source).record(reader, end: rig.end, progress: nil)
        if !late { rig.wait() }
        try writer.finish()
        return (outcome, writer.framesWritten, rig.producer.stats.droppedBySlomo)
    }

    @Test func theContinuousRecorderWritesEveryFrameInOrder() throws {
        let dir = TemporaryDirectory()
        let r = try Self.record(dir.file("all.mkv"), late: false)
        #expect(r.outcome.writeError == nil && r.outcome.short == 0)
        // a 16-slot ring and an unpaced camera: the recorder pins what it has not written, so a
        // frame is either written or counted as dropped by slomo, never lost unsaid
        #expect(r.written + r.dropped == 120)
        #expect(try Self.frameCount(dir.file("all.mkv")) == Int(r.written))
    }

    @Test func aRecorderThatStartsLateStillHoldsTheRingFromItsFirstFrame() throws {
        // a loaded machine: the 16 frames the ring held from the first are written, every later one
        // counted as dropped (a reader made once the camera ran would hold nothing and count nothing)
        let dir = TemporaryDirectory()
        let r = try Self.record(dir.file("late.mkv"), late: true)
        #expect(r.written == 16 && r.dropped == 104)
    }

    @Test func theShotPlacerPutsAnEventOnTheFirstFrameAtOrAfterItsInstant() throws {
        let rig = try Rig(frames: 100)
        rig.run()
        rig.wait()
        let shots = ShotQueue()
        let events = TriggerQueue()
        let stages = SessionEnd()
        let placer = ShotPlacer(trigger: TriggerSettings(kind: .api, pre: Rational(1, 10), post: Rational(1, 20)), context: rig.context(shots, end: stages))
        placer.sources = TriggerSources(events: events, output: nil, ownsEvents: true, ownsOutput: true)
        // an instant a microsecond after frame 50: frame 51 is the first at or after it
        let instant = rig.ring.meta(50).timestamp + Rational(1, 1_000_000)
        events.push(.trigger(instant, wall: .zero, source: "test"))
        let gate = StartGate()
        placer.start(ring: rig.ring, gate: gate)
        gate.open()
        let shot = try #require(shots.next())
        stages.request(.quit)
        shots.drainAfterTriggers()
        #expect(shot.triggerIndex == 51 && shot.start == 51 - Int64(rig.plan.preFrames) && shot.source == "test")
        #expect(shot.eventTime == instant && shot.frameTime == rig.ring.meta(51).timestamp)
        shot.reader.close()
    }

    @Test func theShotSaverWritesAShotsFramesAroundItsTriggerFrame() throws {
        let dir = TemporaryDirectory()
        let rig = try Rig(frames: 100)
        rig.run()
        rig.wait()
        let shots = ShotQueue()
        let t = TriggerSettings(kind: .api, pre: Rational(1, 10), post: Rational(1, 20))
        let placer = ShotPlacer(trigger: t, context: rig.context(shots))
        let reader = RingReader(rig.ring, from: 0, pinned: true)
        placer.enqueue(reader: reader, index: 60, event: rig.ring.meta(60).timestamp, wall: .zero, latency: nil, score: nil)
        shots.triggersEnded()
        let settings = Self.settings(dir.file("shot.mkv"))
        let saver = ShotSaver(settings: settings, context: placer.context, audio: nil, finished: { _ in })
        let first = try RecordingWriter(
            settings: Self.settings(TriggerSettings.path(settings.output, shot: 1)), format: rig.source.format, sourceName: "synthetic")
        try first.prepare()
        saver.run(t, firstWriter: first, feed: saver.ringFeed)
        #expect(saver.failure == nil)
        let r = try #require(saver.saved.first)
        let (pre, post) = (rig.plan.preFrames, rig.plan.postFrames)
        #expect(r.preFrames == pre && r.postFrames == post && r.triggerFrame == pre && r.framesWritten == Int64(pre + post + 1))
        #expect(try Self.frameCount(r.output) == pre + post + 1)
    }

    /// A sink that keeps what it is given.
    final class Keeper: PictureSink {
        var wantsPictures: Bool
        var pictures: [LivePicture] = []
        var opened: (Int, Int)?
        init(wants: Bool) { wantsPictures = wants }
        func open(format: CaptureFormat, width: Int, height: Int) throws { opened = (width, height) }
        func take(_ picture: LivePicture) throws { pictures.append(picture) }
        func close() throws {}
    }

    @Test func theLivePicturesStageMakesJPEGsOfTheNewestFramesWithoutHoldingTheCamera() throws {
        let rig = try Rig(frames: 120, paced: true, slots: 16)
        let keeper = Keeper(wants: true)
        let idle = Keeper(wants: false)
        let live = LivePictures(fps: Rational(30), maxWidth: 32, sinks: [keeper, idle])
        live.start(ring: rig.ring, format: rig.source.format)
        rig.run()
        rig.wait()
        live.stop()
        #expect(rig.producer.stats.droppedBySlomo == 0)  // it pins nothing: the 16-slot ring never fills
        #expect(keeper.opened! == (32, 20) && keeper.pictures.count >= 3, "\(keeper.pictures.count) pictures")
        let indices = keeper.pictures.map(\.frameIndex)
        #expect(zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 })
        #expect(keeper.pictures.allSatisfy { $0.jpeg.starts(with: [0xFF, 0xD8]) && $0.width == 32 && $0.height == 20 })
        #expect(idle.pictures.isEmpty && live.counts.pictures == Int64(keeper.pictures.count))
    }

    @Test func noPicturesAreMadeWhileNoSinkWantsThem() throws {
        let rig = try Rig(frames: 60, paced: true, slots: 16)
        let live = LivePictures(fps: Rational(30), maxWidth: 32, sinks: [Keeper(wants: false)])
        live.start(ring: rig.ring, format: rig.source.format)
        rig.run()
        rig.wait()
        live.stop()
        #expect(live.counts.pictures == 0 && live.counts.error == nil)
    }
}
