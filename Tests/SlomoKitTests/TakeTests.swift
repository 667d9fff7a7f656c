import Foundation
import SlomoCore
import Testing

@testable import SlomoKit

/// Shots held in RAM: the take store's order and refusals alone, then the take copier and the
/// saver on the synthetic camera's ring (`CaptureStageTests.Rig`).
@Suite struct TakeTests {
    /// A store of `n` small takes and a shot for it numbered `number` (its reader over a ring of its own).
    static func store(_ n: Int, mode: SaveMode, overwrite: Bool = false) -> TakeStore {
        TakeStore(count: n, frames: 4, slotBytes: 64, lockInMemory: false, mode: mode, overwriteUnsaved: overwrite)
    }

    static func shot(_ number: Int, take: Int) -> PlacedShot {
        let ring = FrameRing(capacity: 4, slotBytes: 64, lockInMemory: false)
        return PlacedShot(
            number: number, reader: RingReader(ring, from: 0, pinned: true), start: 0, triggerIndex: 0, end: 0, eventTime: .zero, wallTime: .zero,
            source: "test", take: take)
    }

    /// Holds shots 1…n in the store's takes, in order.
    static func hold(_ s: TakeStore, _ numbers: ClosedRange<Int>) {
        for n in numbers {
            guard case .take(let k) = s.reserve() else {
                Issue.record("no take for shot \(n)")
                return
            }
            _ = s.fill(k)
            s.hold(k, shot: shot(n, take: k))
        }
    }

    static func saveAll(_ s: TakeStore) -> [Int] {
        s.copyingDone()
        var order: [Int] = []
        while let (k, shot) = s.nextToSave() {
            order.append(shot.number)
            s.saved(k)
        }
        return order
    }

    @Test func autoSavesTheOldestTakeFirstAndLifoTheNewest() {
        for (mode, expected) in [(SaveMode.auto, [1, 2, 3, 4]), (.lifo, [4, 3, 2, 1])] {
            let s = Self.store(4, mode: mode)
            Self.hold(s, 1...4)
            #expect(Self.saveAll(s) == expected, "\(mode)")
            let r = s.report(framesEach: 4)
            #expect(r.counts.savedOrder == expected && r.counts.mostHeld == 4 && r.unsaved.isEmpty && s.states.allSatisfy { $0 == .free })
        }
    }

    @Test func aStoreWithEveryTakeHeldRefusesAndOverwriteReusesTheOldestNotBeingSaved() throws {
        let s = Self.store(2, mode: .auto)
        Self.hold(s, 1...2)
        #expect(s.reserve() == .full && s.report(framesEach: 4).counts.refused == 1)
        // saved: the take is free again
        let (k, first) = try #require(s.nextToSave())
        #expect(first.number == 1 && s.reserve() == .full)  // being saved is not free
        s.saved(k)
        #expect(s.reserve() == .take(k))

        let o = Self.store(2, mode: .lifo, overwrite: true)
        Self.hold(o, 1...2)
        // lifo saves shot 2 first: the oldest held and not being saved is shot 1's take
        let (saving, newest) = try #require(o.nextToSave())
        #expect(newest.number == 2)
        let reuse = o.reserve()
        guard case .overwrote(let t, let lost) = reuse else {
            Issue.record("\(reuse)")
            return
        }
        #expect(t != saving && lost == 1 && o.report(framesEach: 4).counts.overwritten == [1])
    }

    /// Abandoning names the held shots and the one being saved, unless its saver already kept it
    /// (every frame written): a shot is either saved or given up, never both.
    @Test func anAbandonGivesUpWhatIsNotKept() throws {
        let s = Self.store(3, mode: .auto)
        Self.hold(s, 1...3)
        let (k1, first) = try #require(s.nextToSave())
        #expect(first.number == 1 && s.keep(k1))
        #expect(s.abandon() == [2, 3] && s.isAbandoned && s.nextToSave() == nil)
        s.saved(k1)
        #expect(s.report(framesEach: 4).counts.savedOrder == [1] && s.report(framesEach: 4).unsaved == [2, 3])

        let late = Self.store(2, mode: .lifo)
        Self.hold(late, 1...2)
        let (k2, newest) = try #require(late.nextToSave())
        #expect(newest.number == 2 && late.abandon() == [1, 2] && !late.keep(k2))
        #expect(late.report(framesEach: 4).counts.abandoned == [1, 2] && late.report(framesEach: 4).unsaved == [1, 2])
    }

    @Test func takesThatCannotFitAreRefusedNamingHowManyDo() throws {
        #expect(try TakeStore.count(asked: 3, bytesEach: 1 << 30, ringBytes: 0, available: 5 << 30, source: "cam") == 3)
        #expect(throws: CaptureError.self) {
            try TakeStore.count(asked: 5, bytesEach: 1 << 30, ringBytes: 0, available: 5 << 30, source: "cam")
        }
        do {
            _ = try TakeStore.count(asked: 5, bytesEach: 1 << 30, ringBytes: 0, available: 5 << 30, source: "cam")
        } catch {
            #expect(error.wording.description.contains("4 takes fit"), "\(error.wording)")
        }
        // none asked: half the free memory, at most 100
        #expect(try TakeStore.count(asked: nil, bytesEach: 1 << 30, ringBytes: 0, available: 10 << 30, source: "cam") == 5)
        #expect(try TakeStore.count(asked: nil, bytesEach: 1 << 20, ringBytes: 0, available: 10 << 30, source: "cam") == 100)
    }

    /// A shot placed on the ring, copied into its take (the ring's frames handed back at once) and
    /// saved from the take: every frame around its trigger frame, the trigger frame where it was.
    @Test func aShotCopiedIntoATakeIsSavedWholeFromIt() throws {
        let dir = TemporaryDirectory()
        let rig = try CaptureStageTests.Rig(frames: 100)
        rig.run()
        rig.wait()
        let shots = ShotQueue()
        var t = TriggerSettings(kind: .api, pre: Rational(1, 10), post: Rational(1, 20))
        t.takes.save = .lifo
        var context = rig.context(shots)
        let frames = FrameFiles.shotFrames(rig.plan, format: rig.source.format)
        let store = TakeStore(count: 2, frames: frames, slotBytes: rig.plan.slotBytes, lockInMemory: false, mode: .lifo, overwriteUnsaved: false)
        context.takes = store
        let placer = ShotPlacer(trigger: t, context: context)
        let reader = RingReader(rig.ring, from: 0, pinned: true)
        placer.enqueue(reader: reader, index: 60, event: rig.ring.meta(60).timestamp, wall: .zero, latency: nil, score: nil)
        shots.triggersEnded()
        TakeCopier(context: context, store: store).run(t)
        #expect(store.states.filter { $0 == .held }.count == 1)
        let settings = CaptureStageTests.settings(dir.file("shot.mkv"))
        let saver = ShotSaver(settings: settings, context: context, audio: nil, finished: { _ in })
        let first = try RecordingWriter(
            settings: CaptureStageTests.settings(TriggerSettings.path(settings.output, shot: 1)), format: rig.source.format, sourceName: "synthetic")
        try first.prepare()
        saver.run(t, firstWriter: first, feed: ShotSaver.Feed(next: { store.nextToSave()?.shot }, done: { s in s.take.map(store.saved) }, fromRing: false))
        #expect(saver.failure == nil)
        let r = try #require(saver.saved.first)
        let (pre, post) = (rig.plan.preFrames, rig.plan.postFrames)
        #expect(r.preFrames == pre && r.postFrames == post && r.triggerFrame == pre && r.framesWritten == Int64(pre + post + 1))
        // the trigger frame's own time and sequence number, as the ring held them
        #expect(r.triggerFrameTime == rig.ring.meta(60).timestamp && r.triggerSequence == rig.ring.meta(60).sequence)
        #expect(try CaptureStageTests.frameCount(r.output) == pre + post + 1)
        #expect(store.states.allSatisfy { $0 == .free })
    }
}
