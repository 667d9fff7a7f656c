import Synchronization

/// A request to stop, raised once and read by whatever runs (a capture's loop, a batch's scheduler).
/// Raising is async-signal-safe (one atomic store), so a signal handler may do it.
public final class StopToken: Sendable {
    private let raised = Atomic<Int32>(0)
    public init() {}
    public var isRaised: Bool { raised.load(ordering: .acquiring) != 0 }
    public func raise() { raised.store(1, ordering: .releasing) }
    /// Lowers it again (a test that raised it; a second run in one process).
    public func reset() { raised.store(0, ordering: .releasing) }
}
