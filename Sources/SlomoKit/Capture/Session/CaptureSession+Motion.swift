import Foundation
import SlomoCore
import SlomoSystem

/// The image trigger: motion in a region of the frames, read from the ring beside the camera.
extension CaptureSession {
    /// The image trigger on every frame, without pinning the ring (a frame overwritten before it
    /// was read is counted as skipped).
    func motionTrigger(_ t: TriggerSettings, threshold: Rational, ring: FrameRing, preCount: Int64, postCount: Int64) {
        let f = source.format
        let layout = LumaLayout.of(fourcc: f.fourcc)!
        var detector = MotionDetector(region: t.region ?? PixelRegion(x: 0, y: 0, width: f.width, height: f.height),
                                      layout: layout, bytesPerLine: f.bytesPerLine > 0 ? f.bytesPerLine : f.width * layout.pixelStride,
                                      step: 2)
        // unpinned: the trigger never holds the camera back; frames it falls behind on are skipped
        let reader = RingReader(ring, from: 0, pinned: false)
        defer { motion.skipped += reader.skipped }
        // armed once the pre-trigger window is full (and never on a camera's first frames, which
        // often differ while it settles)
        var rearm: Int64 = Swift.max(preCount, 4)
        while true {
            if t.shots > 0 && shots.triggeredCount >= t.shots { return }
            let f: RingReader.Frame
            switch reader.next(timeout: 0.2) {
            case .timedOut: if captureEnded() { return }; continue
            case .ended: return
            case .frame(let frame): f = frame
            }
            let k = f.index, m = f.meta
            let c0 = CaptureSession.threadCPUTime()
            let s = detector.score(f.bytes)
            motion.cpu += CaptureSession.threadCPUTime() - c0
            guard f.isIntact else { motion.skipped += 1; continue }
            motion.evaluated += 1
            if k >= rearm { sayArmed(ring, preCount: preCount) }
            if let s, k >= rearm, Rational(Int64(s.sum)) > threshold * Rational(Int64(s.samples)) {
                let decided = CaptureClock.now()
                enqueue(reader: RingReader(ring, from: k - preCount, pinned: true), index: k, preCount: preCount, postCount: postCount,
                        event: m.timestamp, wall: TriggerEvents.wallClock(), latency: decided - m.timestamp,
                        score: (Double(s.sum) / Double(s.samples) * 100).rounded() / 100)
                rearm = k + postCount + 1
            }
        }
    }

    static func threadCPUTime() -> Double {
        let t = Clock.now(Clock.threadCPUTime)
        return Double(t.seconds) + Double(t.nanoseconds) / 1e9
    }
}
