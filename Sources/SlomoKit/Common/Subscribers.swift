import Foundation

/// Clients of a stream of values (the rig's events, the live pictures): each holds at most `keep`
/// values it has not taken, and a newer one replaces its oldest (counted), so a slow client never
/// holds up the one who yields.
final class Subscribers<Element: Sendable>: @unchecked Sendable {
    // Safe: `all`, `next`, `replaced` under `lock`.
    private let lock = NSLock()
    private var all: [Int: AsyncStream<Element>.Continuation] = [:]
    private var next = 0
    private let keep: Int
    /// Values a client had not taken when a newer one replaced them.
    private(set) var replaced: Int64 = 0
    init(keep: Int) { self.keep = keep }

    func add() -> (id: Int, values: AsyncStream<Element>) {
        let (stream, c) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(keep))
        lock.lock()
        defer { lock.unlock() }
        let id = next
        next += 1
        all[id] = c
        return (id, stream)
    }

    func remove(_ id: Int) {
        lock.lock()
        let c = all.removeValue(forKey: id)
        lock.unlock()
        c?.finish()
    }

    func yield(_ value: Element) {
        lock.lock()
        defer { lock.unlock() }
        for c in all.values { if case .dropped = c.yield(value) { replaced += 1 } }
    }

    func finishAll() {
        lock.lock()
        let cs = all.values
        all.removeAll()
        lock.unlock()
        for c in cs { c.finish() }
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return all.count
    }
    var replacedCount: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return replaced
    }
}
