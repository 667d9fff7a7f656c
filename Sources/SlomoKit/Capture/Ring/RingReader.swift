import SlomoCore

/// One reader of the ring, the one way everything downstream of the camera follows its frames:
/// the recorder, the shot saver, the motion trigger, the preview, the server's live pictures. The producer (the capture thread, `FrameRing.reserve`/`publish`) never
/// waits on any of them.
///
/// * A **pinned** reader holds every frame from its position on: the producer drops a new frame
///   rather than overwrite one it still needs (counted as dropped by slomo). It reads each frame
///   once, in order, and `release()` hands back what it has read.
/// * An **unpinned** reader never holds the producer back. If it falls a whole ring behind, the
///   frames it lost are counted in `skipped` and it goes on from the oldest intact one; a frame it
///   reads may be overwritten while it reads it (`Frame.isIntact` tells afterwards).
final class RingReader {
    /// A frame as a reader sees it, valid while the reader holds it (pinned) or while intact.
    struct Frame {
        let index: Int64
        let meta: FrameRing.Meta
        let bytes: UnsafeRawBufferPointer
        fileprivate let ring: FrameRing
        /// Not overwritten (yet): an unpinned reader checks this after using the bytes.
        var isIntact: Bool { ring.isIntact(index) }
    }

    enum Next { case frame(Frame), timedOut, ended }

    let ring: FrameRing
    private let pin: Int?
    /// Where the reader started (after clamping to the oldest intact frame).
    let start: Int64
    /// The next frame's index.
    private(set) var position: Int64
    /// Frames an unpinned reader lost by falling a whole ring behind.
    private(set) var skipped: Int64 = 0

    /// A reader from frame `index` on (clamped to the oldest frame still intact).
    init(_ ring: FrameRing, from index: Int64, pinned: Bool) {
        self.ring = ring
        if pinned {
            let p = ring.pin(from: index)
            pin = p.id
            start = p.start
        } else {
            pin = nil
            start = Swift.max(index, ring.oldest)
        }
        position = start
    }

    /// The next frame, waiting up to `timeout` seconds for it (nil: as long as it takes); `.ended`
    /// once the ring is closed before it.
    func next(timeout: Double? = nil) -> Next {
        while true {
            if let timeout {
                guard let arrived = ring.wait(for: position, seconds: timeout) else { return .timedOut }
                guard arrived else { return .ended }
            } else {
                guard ring.wait(for: position) else { return .ended }
            }
            if pin == nil, !ring.isIntact(position) {
                let oldest = ring.oldest
                skipped += oldest - position
                position = oldest
                continue
            }
            let m = ring.meta(position)
            let f = Frame(index: position, meta: m, bytes: UnsafeRawBufferPointer(start: ring.pointer(position), count: m.bytes), ring: ring)
            position += 1
            return .frame(f)
        }
    }

    /// Frames published but not yet read: how far behind the camera the reader is.
    var behind: Int64 { ring.count - position }

    /// Done with every frame before `position`: a pinned reader lets the producer have them.
    /// Returns how far behind the reader is.
    @discardableResult
    func release() -> Int64 {
        guard let pin else { return behind }
        return ring.advance(pin, to: position) - position
    }

    /// Moves to frame `index` (forward only for a pinned reader: what it released is gone).
    func seek(to index: Int64) {
        position = index
        if let pin { ring.advance(pin, to: index) }
    }

    /// The first frame from the reader's position on whose timestamp is at or after `time`,
    /// waiting for frames as they come (the reader does not move); nil if the ring closes first.
    func firstFrame(atOrAfter time: Rational) -> Int64? { ring.firstFrame(from: position, atOrAfter: time) }

    /// Frame `index`, which the reader holds (pinned, at or after its position) or which is intact.
    func frame(_ index: Int64) -> Frame {
        let m = ring.meta(index)
        return Frame(index: index, meta: m, bytes: UnsafeRawBufferPointer(start: ring.pointer(index), count: m.bytes), ring: ring)
    }

    /// The reader is done: a pinned one lets go of its frames.
    func close() { if let pin { ring.unpin(pin) } }

    /// The newest frame published, for a reader that wants only what is there now (the preview);
    /// nil before the first frame.
    static func newest(in ring: FrameRing) -> Frame? {
        let k = ring.count - 1
        guard k >= 0 else { return nil }
        let m = ring.meta(k)
        return Frame(index: k, meta: m, bytes: UnsafeRawBufferPointer(start: ring.pointer(k), count: Swift.min(m.bytes, ring.slotBytes)), ring: ring)
    }
}
