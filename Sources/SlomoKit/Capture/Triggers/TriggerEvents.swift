import Foundation
import SlomoCore
import SlomoSystem

/// Where stdin and signal triggers come from: lines on standard input (`trigger`, `quit`; the end
/// of input is `quit`) or SIGUSR1, each stamped with CLOCK_MONOTONIC the moment it is read (a
/// signal: inside the application's handler, `ProcessSignals`, so none is lost or merged).
final class TriggerEvents: TriggerEventSource {
    /// `inputEnded`: standard input closed (a script's pipe ended) with no `quit`.
    /// `source`: what fired it, when not the session's own trigger kind (a server's rig takes
    /// triggers from its API and from a GPIO line or the network, each named in its shot).
    enum Event { case trigger(Rational, wall: Rational, source: String? = nil), quit, inputEnded }

    let kind: TriggerKind
    private var buffer: [UInt8] = []
    private var stdinOpen = true
    init(kind: TriggerKind) {
        self.kind = kind
        // events of an earlier session in this process are not this one's
        if kind == .signal { ProcessSignals.discardUserSignals() }
    }

    func close() {}

    /// CLOCK_REALTIME now: cheap to take at the event; formatted later (`iso8601`).
    static func wallClock() -> Rational { CaptureClock.now(Clock.realTime) }

    /// A wall-clock time as ISO 8601 with milliseconds (for people and logs; the exact time is the monotonic one).
    static func iso8601(_ t: Rational) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date(timeIntervalSince1970: t.doubleValue))
    }

    /// The next event, or nil when none came within the timeout.
    func next(timeoutMilliseconds: Int32) -> Event? {
        if kind == .signal {
            guard let t = ProcessSignals.nextUserSignal(milliseconds: timeoutMilliseconds) else { return nil }
            return .trigger(CaptureClock.time(seconds: t.seconds, nanoseconds: t.nanoseconds), wall: TriggerEvents.wallClock())
        }
        if let line = takeLine() { return event(line) }
        guard stdinOpen else { return .inputEnded }
        guard FileDescriptor.standardInput.waitForInput(milliseconds: timeoutMilliseconds) else { return nil }
        let now = CaptureClock.now()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = (try? chunk.withUnsafeMutableBytes { (b) throws(Errno) in try FileDescriptor.standardInput.read(into: b) }) ?? 0
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

/// Events pushed by another thread (one camera's share of a fan-out; the server's triggers), read
/// in order by a session.
final class TriggerQueue: TriggerEventSource, @unchecked Sendable {
    // Safe: `queue` under `cond`.
    private let cond = NSCondition()
    private var queue: [TriggerEvents.Event] = []
    func push(_ e: TriggerEvents.Event) {
        cond.lock()
        queue.append(e)
        cond.broadcast()
        cond.unlock()
    }
    func next(timeoutMilliseconds: Int32) -> TriggerEvents.Event? {
        cond.lock()
        defer { cond.unlock() }
        let deadline = Date(timeIntervalSinceNow: Double(timeoutMilliseconds) / 1000)
        while queue.isEmpty { if !cond.wait(until: deadline) { return nil } }
        return queue.removeFirst()
    }
    func close() {}
}

/// One event source read on one thread and handed to every camera: a `trigger` line or SIGUSR1
/// reaches each session with the same CLOCK_MONOTONIC stamp, so each selects its own first frame
/// at or after the same instant; `quit` (or the end of stdin) reaches them all.
final class TriggerFanOut: @unchecked Sendable {
    typealias Share = TriggerQueue

    let shares: [Share]
    private let source: TriggerEventSource
    private let lock = NSLock()
    private var stopped = false

    init(source: TriggerEventSource, cameras: Int) {
        self.source = source
        shares = (0..<cameras).map { _ in Share() }
        let t = Thread { [self] in
            while true {
                lock.lock()
                let stop = stopped
                lock.unlock()
                if stop { return }
                guard let e = self.source.next(timeoutMilliseconds: 50) else { continue }
                for s in shares { s.push(e) }
                if case .quit = e { return }
                if case .inputEnded = e { return }
            }
        }
        t.name = "slomo-triggers"
        t.start()
    }

    func close() {
        lock.lock()
        stopped = true
        lock.unlock()
        source.close()
    }
}
