import Foundation
import Synchronization
import SlomoCore

/// What the capture thread has counted, readable from any thread while it runs.
final class LiveCounts: Sendable {
    private let captured = Atomic<Int64>(0), byDriver = Atomic<Int64>(0), bySlomo = Atomic<Int64>(0), damaged = Atomic<Int64>(0)
    @inline(__always) func note(_ s: CaptureStats) {
        captured.store(s.framesCaptured, ordering: .relaxed)
        byDriver.store(s.droppedByDriver, ordering: .relaxed)
        bySlomo.store(s.droppedBySlomo, ordering: .relaxed)
        damaged.store(s.driverErrors, ordering: .relaxed)
    }
    var framesCaptured: Int64 { captured.load(ordering: .relaxed) }
    var droppedByDriver: Int64 { byDriver.load(ordering: .relaxed) }
    var droppedBySlomo: Int64 { bySlomo.load(ordering: .relaxed) }
    var damagedFrames: Int64 { damaged.load(ordering: .relaxed) }
}

/// A reader of the ring that runs beside the capture (its own thread, never pinning the camera).
protocol RingTap: AnyObject {
    func start(ring: FrameRing)
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
    private func set(_ v: Bool) { cond.lock(); if state == nil { state = v }; cond.broadcast(); cond.unlock() }
    /// True once opened; false once closed before.
    func wait() -> Bool {
        cond.lock(); defer { cond.unlock() }
        while state == nil { cond.wait() }
        return state!
    }
}
