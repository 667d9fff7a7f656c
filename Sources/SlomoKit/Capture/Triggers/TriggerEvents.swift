import Foundation
import SlomoCore

/// Where stdin and signal triggers come from: lines on standard input (`trigger`, `quit`; the end
/// of input is `quit`) or SIGUSR1, each stamped with CLOCK_MONOTONIC the moment it is read (a
/// signal: inside the handler, which writes the time into a pipe, so none is lost or merged).
final class TriggerEvents: TriggerEventSource {
    /// `inputEnded`: standard input closed (a script's pipe ended) with no `quit`.
    enum Event { case trigger(Rational, wall: Rational), quit, inputEnded }

    let kind: TriggerKind
    private var buffer: [UInt8] = []
    private var stdinOpen = true
    /// One pipe for the process's life: a handler still running on another thread never writes
    /// into a closed (or reused) descriptor.
    nonisolated(unsafe) static var pipeWrite: Int32 = -1
    nonisolated(unsafe) static var pipeReadEnd: Int32 = -1
    private var pipeRead: Int32 { TriggerEvents.pipeReadEnd }

    init(kind: TriggerKind) {
        self.kind = kind
        if kind == .signal {
            var fds: [Int32] = [0, 0]
            if TriggerEvents.pipeReadEnd < 0, pipe(&fds) == 0 {
                TriggerEvents.pipeReadEnd = fds[0]
                TriggerEvents.pipeWrite = fds[1]
                _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
                _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
            }
            // events of an earlier session in this process are not this one's
            var stale = timespec()
            while withUnsafeMutableBytes(of: &stale, { read(pipeRead, $0.baseAddress, $0.count) }) > 0 {}
            let handler: @convention(c) (Int32) -> Void = { _ in
                var ts = timespec()
                clock_gettime(CLOCK_MONOTONIC, &ts)
                _ = withUnsafeBytes(of: &ts) { write(TriggerEvents.pipeWrite, $0.baseAddress, $0.count) }
            }
            signal(SIGUSR1, handler)
        }
    }

    func close() {
        if kind == .signal {
            signal(SIGUSR1, SIG_IGN)
        }
    }

    /// CLOCK_REALTIME now: cheap to take at the event; formatted later (`iso8601`).
    static func wallClock() -> Rational { CaptureClock.now(CLOCK_REALTIME) }

    /// A wall-clock time as ISO 8601 with milliseconds (for people and logs; the exact time is the monotonic one).
    static func iso8601(_ t: Rational) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date(timeIntervalSince1970: t.doubleValue))
    }

    /// The next event, or nil when none came within the timeout.
    func next(timeoutMilliseconds: Int32) -> Event? {
        if kind == .signal {
            var p = pollfd(fd: pipeRead, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, timeoutMilliseconds) > 0 else { return nil }
            var ts = timespec()
            let n = withUnsafeMutableBytes(of: &ts) { read(pipeRead, $0.baseAddress, $0.count) }
            guard n == MemoryLayout<timespec>.size else { return nil }
            return .trigger(CaptureClock.time(ts), wall: TriggerEvents.wallClock())
        }
        if let line = takeLine() { return event(line) }
        guard stdinOpen else { return .inputEnded }
        var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, timeoutMilliseconds) > 0 else { return nil }
        let now = CaptureClock.now()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n <= 0 {
            stdinOpen = false
            let rest = String(decoding: buffer, as: UTF8.self)
            buffer.removeAll()
            return rest.isEmpty ? .inputEnded : event(rest, at: now)
        }
        buffer += chunk[0..<n]
        stamped = now
        return takeLine().map { event($0, at: now) } ?? nil
    }

    /// The time the bytes now in the buffer were read.
    private var stamped = Rational.zero

    private func takeLine() -> String? {
        guard let i = buffer.firstIndex(of: 10) else { return nil }
        let line = String(decoding: buffer[..<i], as: UTF8.self)
        buffer.removeSubrange(...i)
        return line
    }

    private func event(_ line: String, at time: Rational? = nil) -> Event? {
        switch line.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "": return nil
        case "trigger", "t": return .trigger(time ?? stamped, wall: TriggerEvents.wallClock())
        case "quit", "q": return .quit
        default:
            FileHandle.standardError.write(Data("slomo: stdin: '\(line)' ignored (expected 'trigger' or 'quit')\n".utf8))
            return nil
        }
    }
}


/// Where a session takes its stdin/signal events from: its own `TriggerEvents`, or one camera's
/// share of a `TriggerFanOut` when several cameras wait for the same event.
protocol TriggerEventSource: AnyObject {
    /// The next event, or nil when none came within the timeout.
    func next(timeoutMilliseconds: Int32) -> TriggerEvents.Event?
    func close()
}

/// One event source read on one thread and handed to every camera: a `trigger` line or SIGUSR1
/// reaches each session with the same CLOCK_MONOTONIC stamp, so each selects its own first frame
/// at or after the same instant; `quit` (or the end of stdin) reaches them all.
final class TriggerFanOut: @unchecked Sendable {
    final class Share: TriggerEventSource {
        private let cond = NSCondition()
        private var queue: [TriggerEvents.Event] = []
        fileprivate func push(_ e: TriggerEvents.Event) { cond.lock(); queue.append(e); cond.broadcast(); cond.unlock() }
        func next(timeoutMilliseconds: Int32) -> TriggerEvents.Event? {
            cond.lock(); defer { cond.unlock() }
            let deadline = Date(timeIntervalSinceNow: Double(timeoutMilliseconds) / 1000)
            while queue.isEmpty { if !cond.wait(until: deadline) { return nil } }
            return queue.removeFirst()
        }
        func close() {}
    }

    let shares: [Share]
    private let source: TriggerEvents
    private let lock = NSLock()
    private var stopped = false

    init(kind: TriggerKind, cameras: Int) {
        source = TriggerEvents(kind: kind)
        shares = (0..<cameras).map { _ in Share() }
        let t = Thread { [self] in
            while true {
                lock.lock(); let stop = stopped; lock.unlock()
                if stop { return }
                guard let e = source.next(timeoutMilliseconds: 50) else { continue }
                for s in shares { s.push(e) }
                if case .quit = e { return }
                if case .inputEnded = e { return }
            }
        }
        t.name = "slomo-triggers"
        t.start()
    }

    func close() {
        lock.lock(); stopped = true; lock.unlock()
        source.close()
    }
}
