import Foundation
import SlomoCore

/// The rig's trigger beside the API: `config.trigger`'s GPIO line or network port, opened at start
/// (refused then, before the camera streams, when it cannot be had) and read on its own thread for
/// the rig's whole life: a window change reopens the camera, not the line. Each event goes to
/// `fired`, which takes it only while armed, as the API's are.
final class RigTriggerLine: @unchecked Sendable {
    // Safe: `source` under `lock`; the thread ends once `close` lets go of it (and waits for it).
    private let lock = NSLock()
    private var source: TriggerEventSource?
    private let done = DispatchSemaphore(value: 0)

    /// nil when the rig takes triggers from its API only. `fired`: (source, instant, wall time);
    /// `said`: what the clients are told (an `ignored` message, the line's end).
    static func open(
        _ t: TriggerSettings?, fired: @escaping @Sendable (String, Rational, Rational) -> Void,
        said: @escaping @Sendable (RigEvent.Kind, String, String?) -> Void
    ) throws -> RigTriggerLine? {
        guard let t else { return nil }
        let source: TriggerEventSource, name = t.kind.name
        switch t.kind {
        case .gpio(let g): source = try GPIOTriggerSource(g, debounce: t.debounce, holdoff: t.holdoff)
        case .network(let e):
            guard let key = t.key else { throw RigRefusal(.badRequest, "udp://\(e): a network trigger needs its key") }
            source = try NetworkTriggerListener(endpoint: e, key: key, holdoff: t.holdoff, camera: "serve") { e in
                if e.event == .ignored { said(.ignored, name, e.warning) }
            }
        default: throw RigRefusal(.badRequest, "serve takes triggers from its API, a GPIO line or the network, not \(t.kind.name)")
        }
        let line = RigTriggerLine(source)
        let thread = Thread { [line] in
            defer { line.done.signal() }
            while let source = line.current {
                switch source.next(timeoutMilliseconds: 50) {
                case .trigger(let time, let wall, _)?: fired(name, time, wall)
                case .quit?, .inputEnded?:
                    said(.warning, name, "the \(name) trigger ended: shots come from the API only")
                    return
                case nil: continue
                }
            }
        }
        thread.name = "slomo-rig-trigger"
        thread.start()
        return line
    }

    private init(_ source: TriggerEventSource) { self.source = source }

    private var current: TriggerEventSource? {
        lock.lock()
        defer { lock.unlock() }
        return source
    }

    /// Lets go of the line or port once its thread has ended.
    func close() {
        lock.lock()
        let s = source
        source = nil
        lock.unlock()
        guard let s else { return }
        done.wait()
        s.close()
    }
}
