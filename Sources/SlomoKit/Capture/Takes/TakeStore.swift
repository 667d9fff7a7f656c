import Foundation
import SlomoCore
import SlomoSystem
import Synchronization

/// How a triggered capture saves its shots (`--save`): `auto` saves each as soon as it has filled,
/// in order; `lifo` saves in the background, newest first.
public enum SaveMode: String, Sendable, Codable, CaseIterable {
    case auto, lifo
}

/// Whether and how a triggered capture holds its shots in RAM: `--save`, `--takes` (nil: as many
/// as fit, with `lifo`; saved straight from the ring with `auto`), `--overwrite-unsaved` (a
/// trigger with every take held reuses the oldest instead of being refused).
public struct TakeSettings: Sendable, Equatable {
    public var save = SaveMode.auto
    public var takes: Int?
    public var overwriteUnsaved = false
    public init() {}
    /// Shots are copied into takes (any save mode but auto, or `--takes`).
    public var holdsTakes: Bool { takes != nil || save != .auto }
}

/// Memory split into takes (`--takes`): each partition a ring of one shot's frames, filled by the
/// take copier straight from the camera's ring and read back by the saver, so the camera's ring is
/// free again as soon as a shot is copied. A trigger reserves a partition before its shot is
/// placed; none free is a refused trigger (or, `--overwrite-unsaved`, the oldest take not being
/// saved given up, and said). Every method is safe from any thread.
final class TakeStore: @unchecked Sendable {
    // Safe: every `var` is touched under `cond`.
    enum State: String, Sendable { case free, reserved, filling, held, saving }
    private struct Take {
        var state = State.free
        var shot: PlacedShot?
        /// When it was held (1, 2, …): auto saves the lowest first, lifo the highest.
        var heldOrder = 0
        /// Its saver wrote every frame and is finishing the file: an abandon leaves it saved.
        var kept = false
    }
    /// One ring per take, each as long as a shot.
    let partitions: [FrameRing]
    let mode: SaveMode
    let overwriteUnsaved: Bool
    private var takes: [Take]
    private let cond = NSCondition()
    private var copyingEnded = false, stopped = false
    /// Set once by `abandon()`; read by the saver at every frame.
    private let abandonedFlag = Atomic<Bool>(false)
    private var held = 0
    private var outcome = TakesReport.Counts()

    init(count: Int, frames: Int, slotBytes: Int, lockInMemory: Bool, mode: SaveMode, overwriteUnsaved: Bool) {
        partitions = (0..<count).map { _ in FrameRing(capacity: Swift.max(frames, 2), slotBytes: slotBytes, lockInMemory: lockInMemory) }
        takes = Array(repeating: Take(), count: count)
        self.mode = mode
        self.overwriteUnsaved = overwriteUnsaved
    }

    /// What reserving a take for a new shot gave.
    enum Reservation: Equatable {
        case take(Int)
        /// `--overwrite-unsaved`: take `Int` reused; the shot numbered `shot` it held is given up.
        case overwrote(Int, shot: Int)
        case full
    }

    /// A take for the next shot (the placer, before it places it).
    func reserve() -> Reservation {
        cond.lock()
        defer { cond.unlock() }
        if let k = takes.firstIndex(where: { $0.state == .free }) {
            takes[k].state = .reserved
            return .take(k)
        }
        let waiting = takes.indices.filter { takes[$0].state == .held }
        guard overwriteUnsaved, let k = waiting.min(by: { takes[$0].heldOrder < takes[$1].heldOrder }) else {
            outcome.refused += 1
            return .full
        }
        let shot = takes[k].shot?.number ?? 0
        takes[k].shot?.reader.close()
        takes[k] = Take(state: .reserved)
        outcome.overwritten.append(shot)
        return .overwrote(k, shot: shot)
    }

    /// The copier starts filling take `k`: its ring, emptied.
    func fill(_ k: Int) -> FrameRing {
        cond.lock()
        defer { cond.unlock() }
        takes[k].state = .filling
        partitions[k].reopen()
        return partitions[k]
    }

    /// Take `k` holds `shot` (its indices the take's own, from 0); the saver may have it.
    func hold(_ k: Int, shot: PlacedShot) {
        cond.lock()
        held += 1
        takes[k].state = .held
        takes[k].shot = shot
        takes[k].heldOrder = held
        outcome.mostHeld = Swift.max(outcome.mostHeld, takes.filter { $0.state == .held || $0.state == .saving }.count)
        cond.broadcast()
        cond.unlock()
    }

    /// Take `k` was reserved but never filled (the capture ended first): free again.
    func giveBack(_ k: Int) {
        cond.lock()
        takes[k] = Take()
        cond.broadcast()
        cond.unlock()
    }

    /// The next take to save, waiting for one: the oldest held (auto) or the newest (lifo); nil
    /// once no more come (copying ended, none held) or saving stopped.
    func nextToSave() -> (take: Int, shot: PlacedShot)? {
        cond.lock()
        defer { cond.unlock() }
        while true {
            if stopped { return nil }
            let ready = takes.indices.filter { takes[$0].state == .held }
            let order = { (a: Int, b: Int) in self.takes[a].heldOrder < self.takes[b].heldOrder }
            if let k = mode == .lifo ? ready.max(by: order) : ready.min(by: order), let shot = takes[k].shot {
                takes[k].state = .saving
                return (k, shot)
            }
            let coming = takes.contains { $0.state == .reserved || $0.state == .filling }
            if copyingEnded && !coming { return nil }
            cond.wait()
        }
    }

    /// Take `k`'s shot is saved (or failed): the take is free.
    func saved(_ k: Int) {
        cond.lock()
        if let n = takes[k].shot?.number { outcome.savedOrder.append(n) }
        takes[k].shot?.reader.close()
        takes[k] = Take()
        cond.broadcast()
        cond.unlock()
    }

    /// No further take will be filled.
    func copyingDone() {
        cond.lock()
        copyingEnded = true
        cond.broadcast()
        cond.unlock()
    }

    /// Saving has stopped (a write failed): the takes still held are not saved; their shot numbers.
    @discardableResult
    func stop() -> [Int] {
        cond.lock()
        defer { cond.unlock() }
        stopped = true
        cond.broadcast()
        return takes.compactMap { $0.state == .held ? $0.shot?.number : nil }
    }

    /// The operator interrupted again while held shots were being saved: nothing more is saved,
    /// the save under way stops at its next frame (its partial file removed). The shots given up:
    /// the one being saved, then the held ones, by number.
    func abandon() -> [Int] {
        abandonedFlag.store(true, ordering: .releasing)
        cond.lock()
        defer { cond.unlock() }
        stopped = true
        let given = takes.filter { ($0.state == .saving && !$0.kept) || $0.state == .held }.compactMap { $0.shot?.number }.sorted()
        outcome.abandoned = given
        cond.broadcast()
        return given
    }

    /// Take `k`'s saver has written every frame: whether it may finish the file (false once
    /// abandoned: it gives the file up). Decided under the lock, so a shot is either saved or
    /// named as given up, never both.
    func keep(_ k: Int) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        guard !abandonedFlag.load(ordering: .acquiring) else { return false }
        takes[k].kept = true
        return true
    }

    /// Whether `abandon()` was called (the saver stops between two frames).
    var isAbandoned: Bool { abandonedFlag.load(ordering: .acquiring) }

    /// Each take's state now.
    var states: [State] {
        cond.lock()
        defer { cond.unlock() }
        return takes.map(\.state)
    }

    /// The takes now, as a rig's status gives them.
    func status() -> RigTakes {
        let s = states
        let frames = partitions.first?.capacity ?? 0
        let n = TakeCounts(s)
        return RigTakes(
            save: mode, takes: s.count, framesEach: frames, bytesEach: Int64(frames) * Int64(partitions.first?.slotBytes ?? 0),
            held: n.held, saving: n.saving, free: n.free)
    }

    /// What the takes did, for the report.
    func report(framesEach: Int) -> TakesReport {
        let bytesEach = Int64(framesEach) * Int64(partitions.first?.slotBytes ?? 0)
        cond.lock()
        defer { cond.unlock() }
        return TakesReport(
            save: mode, takes: takes.count, framesEach: framesEach, bytesEach: bytesEach, lockedInMemory: partitions.allSatisfy(\.locked),
            counts: outcome, unsaved: takes.compactMap { $0.state == .held || $0.state == .saving ? $0.shot?.number : nil }.sorted())
    }
}

/// The takes of a capture in its report (`--takes`, `--save lifo`): how memory was split, what was
/// refused or overwritten, and the order the shots were saved in.
public struct TakesReport: Codable, Sendable, Equatable {
    public var save: SaveMode
    public var takes: Int
    public var framesEach: Int
    public var bytesEach: Int64
    public var lockedInMemory: Bool
    public struct Counts: Codable, Sendable, Equatable {
        /// Triggers refused because every take held an unsaved shot.
        public var refused = 0
        /// Shots given up unsaved (`--overwrite-unsaved`), by number.
        public var overwritten: [Int] = []
        /// Shots given up unsaved because the operator interrupted the saving (a second Ctrl-C), by number.
        public var abandoned: [Int] = []
        /// Shot numbers in the order they were saved.
        public var savedOrder: [Int] = []
        /// The most takes held or saving at once.
        public var mostHeld = 0
    }
    public var counts: Counts
    /// Shots still held when saving stopped (a write failed, or the saving was interrupted), by number.
    public var unsaved: [Int]
}

extension TakeStore {
    /// The takes a triggered capture holds its shots in (nil: it saves them from the ring), each
    /// as long as a shot of `plan`, as many as `t.takes` or as fit.
    static func make(for t: TakeSettings, plan: RingPlan, format: CaptureFormat, source: String, lock: Bool) throws -> TakeStore? {
        guard t.holdsTakes else { return nil }
        let frames = FrameFiles.shotFrames(plan, format: format)
        let each = Int64(frames) * Int64((plan.slotBytes + 63) / 64 * 64)
        let n = try count(asked: t.takes, bytesEach: each, ringBytes: plan.bytes, available: SystemMemory.available(), source: source)
        return TakeStore(count: n, frames: frames, slotBytes: plan.slotBytes, lockInMemory: lock, mode: t.save, overwriteUnsaved: t.overwriteUnsaved)
    }

    /// How many takes of `bytesEach` a capture holds: `asked` when it fits beside the ring with
    /// 1 GiB to spare; otherwise as many as half the available memory holds, at most 100.
    static func count(asked: Int?, bytesEach: Int64, ringBytes: Int64, available: Int64?, source: String) throws(CaptureError) -> Int {
        let free = available ?? Int64(64) << 30
        let room = free - ringBytes - (Int64(1) << 30)
        let fit = Int(Swift.max(0, room / Swift.max(bytesEach, 1)))
        if let n = asked {
            guard n <= fit else { throw .takesTooLarge(source: source, takes: n, bytes: bytesEach, fit: fit, availableBytes: free) }
            return n
        }
        let half = Int(Swift.max(0, Swift.min(room, free / 2) / Swift.max(bytesEach, 1)))
        guard half >= 1 else { throw .takesTooLarge(source: source, takes: 1, bytes: bytesEach, fit: fit, availableBytes: free) }
        return Swift.min(half, 100)
    }
}

extension TakeStore {
    /// Where a take's file is written until it is complete: `shot05.partial.mkv` for `shot05.mkv`
    /// (the extension kept, which names the container); nil for outputs that are not one file
    /// (a directory or an image sequence), written under their own names.
    static func partialName(_ path: String) -> String? {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        guard !path.hasSuffix("/"), !ext.isEmpty, !path.contains("%") else { return nil }
        return url.deletingPathExtension().path + ".partial." + ext
    }
}

/// The takes by what they can take: holding a shot not yet saved (reserved and filling ones too),
/// being saved, free. What the status, the `held` events and stderr count.
struct TakeCounts {
    let held: Int, saving: Int, free: Int

    init(_ states: [TakeStore.State]) {
        held = states.filter { $0 == .held || $0 == .filling || $0 == .reserved }.count
        saving = states.filter { $0 == .saving }.count
        free = states.filter { $0 == .free }.count
    }
}
