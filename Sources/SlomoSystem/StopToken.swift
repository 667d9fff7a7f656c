import Synchronization

/// A request to stop, raised once and read by whatever runs (a capture's loop, a batch's scheduler).
/// Raising is async-signal-safe (one atomic add), so a signal handler may do it; it counts raises.
public final class StopToken: Sendable {
    private let raised = Atomic<Int32>(0)
    public init() {}
    public var isRaised: Bool { raised.load(ordering: .acquiring) != 0 }
    /// How many times it was raised (a second Ctrl-C abandons what the first let finish).
    public var count: Int { Int(raised.load(ordering: .acquiring)) }
    /// Raises it (again): lock-free, safe in a signal handler.
    public func raise() { raised.add(1, ordering: .releasing) }
    /// Lowers it again (a test that raised it; a second run in one process).
    public func reset() { raised.store(0, ordering: .releasing) }
}
