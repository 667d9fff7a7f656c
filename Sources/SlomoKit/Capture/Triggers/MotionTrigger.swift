import Foundation
import SlomoCore
import SlomoSystem

/// The image trigger: a trigger source that reads the ring itself, every frame, without pinning it
/// (a frame overwritten before it was read is counted as skipped), and fires where the region's
/// brightness moved more than the threshold (`MotionDetector`, pure, in SlomoCore). Armed once the
/// pre-trigger window is full (never on a camera's first frames, which often differ while it
/// settles), and again after each shot's post-trigger frames.
struct MotionTrigger {
    let threshold: Rational
    let region: PixelRegion?
    let format: CaptureFormat
    let preCount: Int64, postCount: Int64

    /// Reads `ring` until it ends, `enough` says the shots are taken, or (while no frame comes) `ended`
    /// says the capture ends; `armed` once the window is full, `fire` with the frame that moved (its
    /// index, its metadata, the score).
    func run(
        ring: FrameRing, counters motion: inout MotionCounters, enough: () -> Bool, ended: () -> Bool, armed: () -> Void,
        fire: (Int64, FrameRing.Meta, Double) -> Void
    ) {
        let f = format
        let layout = LumaLayout.of(fourcc: f.fourcc)!
        var detector = MotionDetector(
            region: region ?? PixelRegion(x: 0, y: 0, width: f.width, height: f.height),
            layout: layout, bytesPerLine: f.bytesPerLine > 0 ? f.bytesPerLine : f.width * layout.pixelStride,
            step: 2)
        // unpinned: the trigger never holds the camera back; frames it falls behind on are skipped
        let reader = RingReader(ring, from: 0, pinned: false)
        defer { motion.skipped += reader.skipped }
        var rearm: Int64 = Swift.max(preCount, 4)
        while true {
            if enough() { return }
            let frame: RingReader.Frame
            switch reader.next(timeout: 0.2) {
            case .timedOut:
                if ended() { return }
                continue
            case .ended: return
            case .frame(let next): frame = next
            }
            let k = frame.index
            let c0 = Self.threadCPUTime()
            let s = detector.score(frame.bytes)
            motion.cpu += Self.threadCPUTime() - c0
            guard frame.isIntact else {
                motion.skipped += 1
                continue
            }
            motion.evaluated += 1
            if k >= rearm { armed() }
            if let s, k >= rearm, Rational(Int64(s.sum)) > threshold * Rational(Int64(s.samples)) {
                fire(k, frame.meta, (Double(s.sum) / Double(s.samples) * 100).rounded() / 100)
                rearm = k + postCount + 1
            }
        }
    }

    static func threadCPUTime() -> Double {
        let t = Clock.now(Clock.threadCPUTime)
        return Double(t.seconds) + Double(t.nanoseconds) / 1e9
    }
}
