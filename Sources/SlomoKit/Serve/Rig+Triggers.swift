import Foundation
import SlomoCore

/// The rig's triggers beside the API: a GPIO line or a UDP port (`config.trigger`), read on their
/// own thread for the rig's whole life; each event goes through `trigger(at:wall:source:)`, so it is
/// taken only while armed, as the API's are.
extension Rig {
    /// Opens `config.trigger`'s GPIO line or network port (refused now, before the camera streams,
    /// when it cannot be had) and reads it on its own thread for the rig's whole life: a window
    /// change reopens the camera, not the line.
    func startPhysicalTrigger() throws {
        guard let t = config.trigger else { return }
        let source: TriggerEventSource, name = t.kind.name
        switch t.kind {
        case .gpio(let g): source = try GPIOTriggerSource(g, debounce: t.debounce, holdoff: t.holdoff)
        case .network(let e):
            guard let key = t.key else { throw RigRefusal(.badRequest, "udp://\(e): a network trigger needs its key") }
            source = try NetworkTriggerListener(endpoint: e, key: key, holdoff: t.holdoff, camera: "serve") { [weak self] e in
                if e.event == .ignored { self?.emit(.ignored, source: name, message: e.warning) }
            }
        default: throw RigRefusal(.badRequest, "serve takes triggers from its API, a GPIO line or the network, not \(t.kind.name)")
        }
        let done = DispatchSemaphore(value: 0)
        lock.lock(); physical = source; physicalDone = done; lock.unlock()
        let thread = Thread { [weak self] in
            defer { done.signal() }
            // ends once stopPhysicalTrigger lets go of the source (and waits for this thread to close it)
            while let self, let source = self.physicalSource {
                switch source.next(timeoutMilliseconds: 50) {
                case .trigger(let time, let wall, _)?: self.fired(name, at: time, wall: wall)
                case .quit?, .inputEnded?:
                    self.emit(.warning, source: name, message: "the \(name) trigger ended: shots come from the API only")
                    return
                case nil: continue
                }
            }
        }
        thread.name = "slomo-rig-trigger"
        thread.start()
    }

    private var physicalSource: TriggerEventSource? { lock.lock(); defer { lock.unlock() }; return physical }

    func stopPhysicalTrigger() {
        lock.lock(); let source = physical, done = physicalDone; physical = nil; lock.unlock()
        guard let source else { return }
        done.wait()
        source.close()
    }

    /// A shot fired by the GPIO line or the network: taken as the API's are, only while armed;
    /// otherwise an `ignored` event says why.
    private func fired(_ source: String, at time: Rational, wall: Rational) {
        do { _ = try trigger(at: time, wall: wall, source: source) } catch {
            emit(.ignored, source: source, message: "a \(source) trigger at \(TriggerEvents.iso8601(wall)) fired no shot: \(error.message)")
        }
    }
}
