import Foundation
import SlomoCore
import SlomoSystem

/// The RAM ring between the capture thread and everything else: `capacity` slots of `slotBytes`
/// each, allocated (and locked in memory where allowed) before streaming starts, so the capture
/// thread never allocates, faults a page in, or waits on a reader.
///
/// Frames are numbered 0, 1, 2… in arrival order (the *ring index*); frame `n` lives in slot
/// `n % capacity`. Readers *pin* the oldest index they still need; the producer overwrites a slot
/// only when no pin holds the frame in it, and otherwise drops the new frame (counted by the
/// caller as dropped by slomo: the ring is full). Unpinned frames stay readable until overwritten,
/// which is what a pre-trigger window reads.
final class FrameRing: @unchecked Sendable {
    // Safe: `meta`, `published`, `writing`, `pins`, `closed` are only touched under `cond`'s lock;
    // slot bytes are written by the one producer while no pin covers them, and read by readers
    // only for indices they pinned (or check with `isIntact` afterwards).
    struct Meta: Sendable {
        var timestamp = Rational.zero
        var sequence: UInt64 = 0
        var bytes = 0
    }

    let capacity: Int
    let slotBytes: Int
    private let memory: UnsafeMutableRawPointer
    /// Whether `mlock` held the ring in RAM, and why not when it did not.
    let locked: Bool
    let lockNote: String?
    private var meta: [Meta]
    private let cond = NSCondition()
    private var published: Int64 = 0
    private var writing = false
    private var pins: [Int: Int64] = [:]
    private var nextPinID = 0
    private var closed = false

    var totalBytes: Int { capacity * slotBytes }

    init(capacity: Int, slotBytes: Int, lockInMemory: Bool = true) {
        precondition(capacity >= 2 && slotBytes > 0)
        self.capacity = capacity
        // whole cache lines per slot, so two slots never share one
        self.slotBytes = (slotBytes + 63) / 64 * 64
        let total = capacity * self.slotBytes
        memory = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 4096)
        meta = Array(repeating: Meta(), count: capacity)
        var note: String?
        var ok = false
        if lockInMemory {
            // root may raise its own limit; others keep the limit and the note
            do throws(Errno) {
                try CurrentProcess.lockInMemory(memory, total)
                ok = true
            } catch {
                note = "mlock of \(total) bytes refused (\(error.words); raise RLIMIT_MEMLOCK, ulimit -l): pages were touched instead"
            }
        } else {
            note = "not locked (asked not to)"
        }
        if !ok {
            // fault every page in now rather than on the capture thread
            var off = 0
            while off < total {
                memory.storeBytes(of: 0, toByteOffset: off, as: UInt8.self)
                off += 4096
            }
        }
        locked = ok
        lockNote = note
    }

    deinit {
        if locked { CurrentProcess.unlock(memory, totalBytes) }
        memory.deallocate()
    }

    func pointer(_ index: Int64) -> UnsafeMutableRawPointer { memory + Int(index % Int64(capacity)) * slotBytes }

    // MARK: producer (the capture thread)

    /// The slot for the next frame, or nil when a pin holds the frame it would overwrite.
    func reserve() -> (index: Int64, pointer: UnsafeMutableRawPointer)? {
        cond.lock()
        defer { cond.unlock() }
        let n = published
        if let low = pins.values.min(), low <= n - Int64(capacity) { return nil }
        writing = true
        return (n, pointer(n))
    }

    /// Makes the reserved frame visible to readers.
    func publish(_ m: Meta) {
        cond.lock()
        meta[Int(published % Int64(capacity))] = m
        published += 1
        writing = false
        cond.broadcast()
        cond.unlock()
    }

    /// No more frames: readers waiting past the end are woken with `false`.
    func close() {
        cond.lock()
        closed = true
        cond.broadcast()
        cond.unlock()
    }

    /// Empties a closed ring for reuse (a take's partition once its shot is saved): no frame, no
    /// pin, open again. Only while nothing reads or writes it.
    func reopen() {
        cond.lock()
        published = 0
        pins.removeAll()
        writing = false
        closed = false
        cond.unlock()
    }

    // MARK: readers

    /// Frames published so far (the next frame's index).
    var count: Int64 {
        cond.lock()
        defer { cond.unlock() }
        return published
    }

    /// The oldest index whose bytes are still intact.
    var oldest: Int64 {
        cond.lock()
        defer { cond.unlock() }
        return oldestLocked
    }

    private var oldestLocked: Int64 { Swift.max(0, published + (writing ? 1 : 0) - Int64(capacity)) }

    /// Pins frames from `index` on (clamped to the oldest intact one); returns the pin and where it starts.
    func pin(from index: Int64) -> (id: Int, start: Int64) {
        cond.lock()
        defer { cond.unlock() }
        let start = Swift.max(index, oldestLocked)
        let id = nextPinID
        nextPinID += 1
        pins[id] = start
        return (id, start)
    }

    /// Moves a pin forward (the reader is done with everything before `index`); returns the
    /// frames published so far. (Nothing waits on pins: the producer never blocks.)
    @discardableResult
    func advance(_ id: Int, to index: Int64) -> Int64 {
        cond.lock()
        defer { cond.unlock() }
        if let p = pins[id], index > p { pins[id] = index }
        return published
    }

    func unpin(_ id: Int) {
        cond.lock()
        pins[id] = nil
        cond.unlock()
    }

    /// Blocks until frame `index` is published (true) or the ring is closed before it (false).
    func wait(for index: Int64) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        while published <= index && !closed { cond.wait() }
        return published > index
    }

    /// Like `wait(for:)` but gives up after `seconds` (nil: timed out).
    func wait(for index: Int64, seconds: Double) -> Bool? {
        cond.lock()
        defer { cond.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while published <= index && !closed {
            if !cond.wait(until: deadline) { return published > index ? true : (closed ? false : nil) }
        }
        return published > index
    }

    func meta(_ index: Int64) -> Meta {
        cond.lock()
        defer { cond.unlock() }
        return meta[Int(index % Int64(capacity))]
    }

    /// True while frame `index` has not been overwritten (for readers that do not pin).
    func isIntact(_ index: Int64) -> Bool {
        cond.lock()
        defer { cond.unlock() }
        return index >= oldestLocked && index < published
    }

    /// The first published index at or after `from` whose timestamp is at or after `time`,
    /// waiting for frames as they come; nil if the ring closes first.
    func firstFrame(from: Int64, atOrAfter time: Rational) -> Int64? {
        var k = from
        while true {
            guard wait(for: k) else { return nil }
            if meta(k).timestamp >= time { return k }
            k += 1
        }
    }
}

/// How big the ring is, and why: printed before capture starts.
public struct RingPlan: Sendable, Codable, Equatable {
    public var slots: Int
    public var slotBytes: Int
    public var bytes: Int64
    public var preFrames: Int
    public var postFrames: Int
    /// H.264/HEVC cameras with a trigger: room for the frames from the keyframe before the first
    /// pre-trigger frame (one second: a GOP up to 1 s is kept whole); 0 otherwise.
    public var leadInFrames = 0
    public var mebibytes: Double { (Double(bytes) / 1_048_576 * 10).rounded() / 10 }

    /// Slots for a pre/post-trigger capture: the whole shot, plus headroom for the saver to fall
    /// behind (a quarter of a second, at least 16 frames) and, for H.264/HEVC, a second of lead-in
    /// (see `leadInFrames`), or what `memory` allows if given.
    public static func plan(
        format: CaptureFormat, fps: Rational, pre: Rational?, post: Rational?,
        memory: Int64?
    ) -> RingPlan {
        let frameBytes = Swift.max(format.maxFrameBytes, 1)
        let preFrames = pre.map { ($0 * fps).floor } ?? 0
        let postFrames = post.map { ($0 * fps).floor } ?? 0
        let headroom = Swift.max(16, (fps / Rational(4)).ceiling)
        let leadIn = (pre != nil || post != nil) && format.nalCodec != nil ? Int(fps.ceiling) : 0
        var slots: Int
        if let memory {
            slots = Int(memory / Int64(frameBytes))
        } else if pre != nil || post != nil {
            // the shot and a quarter second, and at least 64 MiB: room for the camera while a saver
            // that other programs starve still holds a shot (small frames: seconds of it)
            slots = Swift.max(Int(preFrames + postFrames + 1 + headroom) + leadIn, 64 << 20 / frameBytes)
        } else {
            // continuous: two seconds of frames or 64 MiB, whichever is more, within 1 GiB
            let twoSeconds = Int((fps * Rational(2)).ceiling)
            slots = Swift.max(twoSeconds, 64 << 20 / frameBytes)
            slots = Swift.min(slots, Swift.max(twoSeconds, (1 << 30) / frameBytes))
        }
        slots = Swift.max(slots, 4)
        let slotBytes = (frameBytes + 63) / 64 * 64
        return RingPlan(
            slots: slots, slotBytes: slotBytes, bytes: Int64(slots) * Int64(slotBytes),
            preFrames: Int(preFrames), postFrames: Int(postFrames), leadInFrames: leadIn)
    }
}
