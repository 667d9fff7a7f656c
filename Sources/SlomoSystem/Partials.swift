import Glibc
import Synchronization

/// The partial outputs an interrupt removes, and the one line it writes about them. The handler only
/// reads C strings prepared here under a lock it never takes.
final class Partials: Sendable {
    static let shared = Partials()
    static let capacity = 64
    static let lineCapacity = 4096
    /// Exit status of an interrupted command (128 + SIGINT).
    static let interruptedStatus: Int32 = 130
    // The handler reads `table` and `message` without the lock; they are changed only under it.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let t = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        t.initialize(repeating: nil, count: capacity)
        return t
    }()
    /// The line points into one of two fixed buffers, written in turn: the line replaced stays
    /// whole for a handler that may be reading it on another thread, and nothing is allocated per output.
    nonisolated(unsafe) static var message: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static let lines = (
        UnsafeMutablePointer<CChar>.allocate(capacity: lineCapacity),
        UnsafeMutablePointer<CChar>.allocate(capacity: lineCapacity)
    )
    private struct State {
        var entries: [(path: String, name: String)] = []
        var nextLine = 0
    }
    private let state = Mutex(State())

    static func prepare() {
        _ = shared
        _ = table
        _ = lines
    }

    func register(_ path: String, _ name: String) {
        Partials.prepare()
        state.withLock { s in
            s.entries.append((path, name))
            publish(&s)
        }
    }

    func unregister(_ path: String) {
        state.withLock { s in
            if let i = s.entries.firstIndex(where: { $0.path == path }) { s.entries.remove(at: i) }
            publish(&s)
        }
    }

    /// In the handler: unlink, one line, exit 130.
    static func removeAllAndExit() -> Never {
        var i = 0
        while i < capacity {
            if let p = table[i] { unlink(p) }
            i += 1
        }
        if let m = message { _ = write(2, m, strlen(m)) }
        _exit(interruptedStatus)
    }

    private func publish(_ s: inout State) {
        let t = Partials.table
        for i in 0..<Partials.capacity {
            let old = t[i]
            t[i] = i < s.entries.count ? strdup(s.entries[i].path) : nil
            free(old)
        }
        let names = s.entries.map(\.name)
        guard !names.isEmpty else {
            Partials.message = nil
            return
        }
        var line = Array(
            "\nslomo: interrupted: \(names.joined(separator: ", ")) not written (the partial \(names.count == 1 ? "file" : "files") removed)\n".utf8CString)
        if line.count > Partials.lineCapacity {
            line = Array(line.prefix(Partials.lineCapacity - 5)) + Array("…\n".utf8CString)
        }
        let buffer = s.nextLine == 0 ? Partials.lines.0 : Partials.lines.1
        s.nextLine = 1 - s.nextLine
        line.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: $0.count) }
        Partials.message = buffer
    }
}
