import Foundation
import SlomoCore
import SlomoSystem
import SlomoFFmpeg

/// The producer's thread (real-time priority where allowed): takes each frame from the source,
/// mends its clock, counts it, copies it into the preallocated ring and gives the buffer back at
/// once. It never waits on loading, encoding, writing or a reader: a full ring is a counted drop.
final class CaptureThread: @unchecked Sendable {
    // Safe: `stats` and `continuity` are the thread's own until it is joined (the session waits on
    // `captureDone` before it reads them); `live` is atomic.
    let source: CaptureSource
    let limits: CaptureLimits
    let end: SessionEnd
    let stopToken: StopToken
    /// The counts, read by the session once the thread has ended.
    var stats = CaptureStats()
    /// The counts as the last report gave them (short frames of the writer included), for the plot.
    var reported = CaptureStats()
    /// The counts so far, for readers on other threads (the server's status).
    let live = LiveCounts()

    init(source: CaptureSource, limits: CaptureLimits, end: SessionEnd, stop: StopToken) {
        self.source = source
        self.limits = limits
        self.end = end
        self.stopToken = stop
    }

    /// The capture thread's mending of clock jumps (read for the report once the camera stopped).
    var continuity = TimestampContinuity(frameDuration: nil)

    /// The thread's body: until the source ends, the capture is asked to end, or a limit is met.
    func run(_ ring: FrameRing) {
        defer { ring.close() }
        let note =
            limits.realtime && source.isPaced
            ? ThreadPriority.raise()
            : "normal (\(source.isPaced ? "not asked" : "unpaced source"))"
        end.threadNote = note
        do { try source.start() } catch {
            end.failedToStart(error)
            return
        }
        let multiPlane = source.format.planes.count > 1 ? try? source.format.planeLayout() : nil
        // the interval list grows on this thread: room for a minute (or the asked length) up front
        let fps = source.format.frameDuration.flatMap { try? $0.reciprocal() } ?? Rational(30)
        stats.intervalsMicros.reserveCapacity(
            Swift.min(1_000_000, Swift.max(16, Int(limits.frames ?? (limits.duration.map { ($0 * fps).ceiling } ?? (fps * Rational(60)).ceiling)))))
        var firstTime: Rational?
        // frames published into the ring (its count, kept here: no lock taken per frame)
        var inRing: Int64 = 0
        var stop: (StopReason, String?)?
        let counter = source.frameCounter
        continuity = TimestampContinuity(frameDuration: source.format.frameDuration, counter: counter)
        while stop == nil {
            if stopToken.isRaised {
                stop = (.signal, nil)
                break
            }
            if end.isRequested { break }
            let finished: CaptureEnd?
            do {
                finished = try source.next { f in
                    let time = continuity.mend(f.timestamp, sequence: f.sequence)
                    if firstTime == nil { firstTime = time }
                    if let d = limits.duration, time - firstTime! >= d {
                        stop = (.duration, nil)
                        return
                    }
                    stats.record(sequence: f.sequence, timestamp: time, counter: counter)
                    if let n = limits.frames, stats.framesCaptured >= n { stop = (.frames, nil) }
                    if store(f, at: time, in: ring, planes: multiPlane) { inRing += 1 }
                    live.note(stats, ringFrames: inRing)
                }
            } catch {
                stop = (.driverError, "\(error)")
                break
            }
            switch finished {
            case nil, .idle?: break
            case .finished?: stop = (.frames, nil)
            case .disconnected(let why)?: stop = (.disconnected, why)
            }
        }
        source.stop()
        end.cameraStopped()
        if let (reason, message) = stop { end.request(reason, message) }
    }

    /// One frame into the ring (on the capture thread): copied whole into a free slot and
    /// published (true), or counted as a driver error, a short frame, or a drop when the ring is full.
    /// `planes`: a multi-planar format's layout, each plane where the picture's layout puts it.
    @inline(__always)
    @discardableResult
    func store(_ f: BorrowedFrame, at time: Rational, in ring: FrameRing, planes multiPlane: PlaneLayout?) -> Bool {
        if let d = f.damage {
            stats.damaged(d)
            return false
        }
        if f.byteCount == 0 {
            stats.shortFrames += 1
            return false
        }
        if let l = multiPlane {
            guard f.planes.count >= l.offsets.count,
                zip(f.planes, l.planeSizes).allSatisfy({ $0.count >= $1 })
            else {
                stats.shortFrames += 1
                return false
            }
        }
        guard let slot = ring.reserve() else {
            stats.droppedBySlomo += 1
            return false
        }
        var offset = 0
        if let l = multiPlane {
            for k in 0..<l.offsets.count {
                (slot.pointer + l.offsets[k]).copyMemory(from: f.planes[k].baseAddress!, byteCount: l.planeSizes[k])
            }
            offset = l.size
        } else {
            let p = f.planes[0]
            offset = Swift.min(p.count, ring.slotBytes)
            if offset > 0 { slot.pointer.copyMemory(from: p.baseAddress!, byteCount: offset) }
        }
        ring.publish(FrameRing.Meta(timestamp: time, sequence: f.sequence, bytes: Swift.min(offset, ring.slotBytes)))
        return true
    }
}
