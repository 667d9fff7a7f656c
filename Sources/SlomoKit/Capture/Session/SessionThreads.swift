import Foundation
import Synchronization
import SlomoCore

/// What the capture thread has counted, readable from any thread while it runs.
final class LiveCounts: Sendable {
    private let captured = Atomic<Int64>(0), byDriver = Atomic<Int64>(0), bySlomo = Atomic<Int64>(0), damaged = Atomic<Int64>(0)
    private let inRing = Atomic<Int64>(0)
    @inline(__always) func note(_ s: CaptureStats, ringFrames: Int64) {
        captured.store(s.framesCaptured, ordering: .relaxed)
        byDriver.store(s.droppedByDriver, ordering: .relaxed)
        bySlomo.store(s.droppedBySlomo, ordering: .relaxed)
        damaged.store(s.driverErrors, ordering: .relaxed)
        inRing.store(ringFrames, ordering: .relaxed)
    }
    var status: CaptureStatus {
        CaptureStatus(
            framesCaptured: captured.load(ordering: .relaxed), droppedByDriver: byDriver.load(ordering: .relaxed),
            droppedBySlomo: bySlomo.load(ordering: .relaxed), damagedFrames: damaged.load(ordering: .relaxed),
            ringFrames: inRing.load(ordering: .relaxed))
    }
}

/// A running capture's counts, as any thread may read them (`CaptureSession.status`).
public struct CaptureStatus: Sendable, Equatable {
    public var framesCaptured: Int64
    public var droppedByDriver: Int64
    public var droppedBySlomo: Int64
    public var damagedFrames: Int64
    /// Frames put in the ring since the session started (the shot placer's and saver's frame numbers).
    public var ringFrames: Int64
}

/// A reader of the ring that runs beside the capture (its own thread, never pinning the camera).
protocol RingTap: AnyObject {
    /// Starts reading `ring`, whose frames are of `format`.
    func start(ring: FrameRing, format: CaptureFormat)
    func stop()
}

/// Holds a thread until what it needs is ready (`open`), or lets it go without starting (`close`
/// first: the run failed before).
final class StartGate: @unchecked Sendable {
    // Safe: `state` is touched under `cond`.
    private let cond = NSCondition()
    private var state: Bool?
    func open() { set(true) }
    func close() { set(false) }
    private func set(_ v: Bool) {
        cond.lock()
        if state == nil { state = v }
        cond.broadcast()
        cond.unlock()
    }
    /// True once opened; false once closed before.
    func wait() -> Bool {
        cond.lock()
        defer { cond.unlock() }
        while state == nil { cond.wait() }
        return state!
    }
}

/// How and when a capture ends, asked from any thread (the capture thread, the writer, a trigger,
/// the shot saver): the first reason asked wins. Also what the capture thread tells the report.
final class SessionEnd: @unchecked Sendable {
    // Safe: every `var` is touched under `lock`.
    private let lock = NSLock()
    private var requested = false
    private var reason = StopReason.signal
    private var message: String?
    private var stoppedAt: Rational?
    private var startError: Error?
    private var note = "normal"

    /// Asks the capture to end for `reason` (kept only if it is the first).
    func request(_ reason: StopReason, _ message: String? = nil) {
        lock.lock()
        if !requested {
            self.reason = reason
            self.message = message
        }
        requested = true
        lock.unlock()
    }

    var isRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return requested
    }

    /// The camera did not start: the run throws `error` (no recording, no report).
    func failedToStart(_ error: Error) {
        lock.lock()
        startError = error
        requested = true
        reason = .error
        lock.unlock()
    }

    var startFailure: Error? {
        lock.lock()
        defer { lock.unlock() }
        return startError
    }

    /// The capture thread stopped the camera now (the writer's catch-up is measured from it).
    func cameraStopped() {
        lock.lock()
        stoppedAt = CaptureClock.now()
        lock.unlock()
    }

    var cameraStoppedAt: Rational? {
        lock.lock()
        defer { lock.unlock() }
        return stoppedAt
    }

    /// The capture thread's priority, as the report says it.
    var threadNote: String {
        get {
            lock.lock()
            defer { lock.unlock() }
            return note
        }
        set {
            lock.lock()
            note = newValue
            lock.unlock()
        }
    }

    /// Why it ended, with the message that came with it.
    var outcome: (reason: StopReason, message: String?) {
        lock.lock()
        defer { lock.unlock() }
        return (reason, message)
    }
}
