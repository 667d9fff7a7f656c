import Foundation
import SlomoCore

/// The take copier: the stage between the shot placer and the saver when shots are held in RAM
/// (`--takes`, `--save lifo`). It copies each placed shot's frames out of the camera's ring into
/// the take its trigger reserved, as they arrive (the post-trigger frames while they come), and
/// hands each frame back to the ring at once: the camera's ring never waits on a disk or an
/// encoder, only on a memory copy. The saver then reads the takes in the order the save mode asks.
final class TakeCopier: CaptureStage {
    let context: StageContext
    let store: TakeStore
    /// Shots copied into takes.
    private(set) var copied = 0

    init(context: StageContext, store: TakeStore) {
        self.context = context
        self.store = store
    }

    /// Copies shots until the triggers end or `t.shots` are held; then no further take comes.
    func run(_ t: TriggerSettings) {
        defer { store.copyingDone() }
        while let shot = shots.next() {
            guard let k = shot.take else {
                shot.reader.close()
                shots.shotRead()
                continue
            }
            let held = copy(shot, into: k)
            if let held {
                store.hold(k, shot: held)
                copied += 1
                hooks.onEvent?(.held(camera: source.name, shot: shot.number, takes: store.states))
            } else {
                store.giveBack(k)
            }
            if t.shots > 0 && copied >= t.shots {
                end.request(.shots)
                return
            }
            if !shots.hasWaiting && !end.isRequested {
                var e = CaptureEvent(.rearmed, camera: source.name)
                e.shot = number(shots.triggeredCount + 1)
                hooks.onEvent?(e)
            }
        }
    }

    /// Copies `shot`'s frames into take `k`; the shot as the take holds it (its frame indices the
    /// take's own, from 0), or nil when the capture ended before any frame of it came.
    func copy(_ shot: PlacedShot, into k: Int) -> PlacedShot? {
        let take = store.fill(k)
        let reader = shot.reader
        var n: Int64 = 0
        while reader.position <= shot.end, n < Int64(take.capacity), case .frame(let f) = reader.next() {
            guard let slot = take.reserve() else { break }
            if let from = f.bytes.baseAddress { slot.pointer.copyMemory(from: from, byteCount: f.bytes.count) }
            take.publish(f.meta)
            reader.release()
            n += 1
        }
        reader.close()
        shots.shotRead()
        take.close()
        guard n > 0 else { return nil }
        var held = shot
        held.reader = RingReader(take, from: 0, pinned: true)
        held.triggerIndex = shot.triggerIndex - shot.start
        held.end = Swift.min(shot.end, shot.start + n - 1) - shot.start
        held.start = 0
        return held
    }
}
