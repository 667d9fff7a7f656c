import Foundation

/// A value one thread writes and another reads, under a lock: the one box for every such value
/// (a server's bound port, a task's error, each camera thread's result).
public final class Locked<Value>: @unchecked Sendable {
    // Safe: `stored` only under `lock`.
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    /// Changes the value in place, under the lock.
    public func update<R>(_ change: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try change(&stored)
    }

    public func set(_ value: Value) { update { $0 = value } }
}
