import Foundation
import SlomoCore
import SlomoSystem
import SlomoFFmpeg

/// `udp://[ADDR]:PORT`: where a network trigger listens or is sent (IPv4; a multicast group too).
public enum NetworkTriggerAddress {
    /// The endpoint of `udp://ADDR:PORT` (`udp://:PORT`: every address of this host).
    public static func parse(_ text: String, setting: Setting = .trigger) throws(SettingError) -> IPv4Endpoint {
        guard text.hasPrefix("udp://") else { throw SettingError(setting, text, "expected udp://[ADDR]:PORT") }
        let rest = text.dropFirst(6)
        guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0 else {
            throw SettingError(setting, text, "expected udp://[ADDR]:PORT with a port in 1...65535")
        }
        let host = rest[..<colon].isEmpty ? "0.0.0.0" : String(rest[..<colon])
        guard let e = IPv4Endpoint(host: host, port: port) else {
            throw SettingError(setting, text, "'\(host)' is not an IPv4 address (a dotted quad; names are not looked up)")
        }
        return e
    }
}

/// The shared secret of network triggers: the bytes of a file (a final newline is not part of it),
/// at least 16 of them (`head -c 32 /dev/urandom | base64 > trigger.key`).
public enum TriggerKey {
    public static func load(_ path: String) throws -> [UInt8] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { throw InputError(path, .key, .missing) }
        guard !isDir.boolValue else { throw InputError(path, .key, .isDirectory) }
        guard let data = FileManager.default.contents(atPath: path) else { throw InputError(path, .key, .notReadable) }
        var bytes = [UInt8](data)
        while let last = bytes.last, last == 10 || last == 13 { bytes.removeLast() }
        guard bytes.count >= 16 else {
            throw SettingError(.triggerKey, path, "a trigger key needs at least 16 bytes (this one has \(bytes.count))")
        }
        return bytes
    }
}

/// Listens for signed trigger messages (`TriggerMessage`) and gives each as an event at its own
/// instant: the message's CLOCK_REALTIME `at`, put on CLOCK_MONOTONIC through this host's two clocks
/// read back to back when it arrives. A message that is malformed, wrongly signed, outside the
/// replay window or repeated is ignored with one warning (`onIgnored`), never fired.
final class NetworkTriggerListener: TriggerEventSource {
    let endpoint: IPv4Endpoint
    private let socket: UDPSocket
    private let key: [UInt8]
    private var replay = TriggerReplayGuard()
    /// Told of each ignored message (a `CaptureEvent` of kind `ignored`).
    private let onEvent: (CaptureEvent) -> Void
    private let camera: String
    private(set) var ignored = 0
    /// No second event this soon after one (the same trigger sent twice, by two routes).
    private let holdoff: Rational
    private var lastEvent: Rational?

    /// Binds now (before the camera streams), so a port in use is refused up front.
    init(endpoint: IPv4Endpoint, key: [UInt8], holdoff: Rational, camera: String, onEvent: @escaping (CaptureEvent) -> Void) throws {
        self.endpoint = endpoint
        self.key = key
        self.holdoff = holdoff
        self.camera = camera
        self.onEvent = onEvent
        do { socket = try UDPSocket.listening(on: endpoint) } catch {
            throw CaptureError.triggerPortUnavailable(endpoint: endpoint.description, errno: error.rawValue)
        }
    }

    func next(timeoutMilliseconds: Int32) -> TriggerEvents.Event? {
        guard let (bytes, from) = try? socket.receive(milliseconds: timeoutMilliseconds) else { return nil }
        let now = Clock.now(Clock.realTime), mono = Clock.now(Clock.monotonic)
        let nowNs = now.seconds * 1_000_000_000 + now.nanoseconds
        do throws(TriggerMessage.Refusal) {
            let m = try TriggerMessage.verify(bytes) { HMAC.sha256(key: key, data: $0) }
            try replay.take(m, now: nowNs)
            let eventMono = Self.eventTime(m, realTimeNs: nowNs, monotonicNs: mono.seconds * 1_000_000_000 + mono.nanoseconds)
            if let last = lastEvent, eventMono - last < holdoff, last - eventMono < holdoff {
                ignored += 1
                onEvent(
                    .ignored(
                        camera: camera,
                        "udp://\(endpoint): a message from \(from.host) ignored: its instant is within --trigger-holdoff \(Seconds(holdoff)) s of the last trigger"
                    ))
                return nil
            }
            lastEvent = eventMono
            return .trigger(eventMono, wall: Rational(m.at / 1000, 1_000_000))
        } catch {
            ignored += 1
            onEvent(.ignored(camera: camera, "udp://\(endpoint): a message from \(from.host) ignored: \(error)"))
            return nil
        }
    }

    func close() { socket.close() }

    /// The event's instant on this host's monotonic clock, to the microsecond as frames are stamped,
    /// from the message's CLOCK_REALTIME `at` and both clocks read when it came.
    static func eventTime(_ m: TriggerMessage, realTimeNs: Int64, monotonicNs: Int64) -> Rational {
        Rational(m.at / 1000 - (realTimeNs - monotonicNs) / 1000, 1_000_000)
    }
}

/// `slomo trigger`: one signed message to each endpoint naming the instant `at` (CLOCK_REALTIME ns).
public enum TriggerSender {
    /// One message sent: where, the instant it names and when it left (CLOCK_REALTIME seconds).
    public struct Sent: Codable, Sendable {
        public var to: String
        public var at: Rational
        public var sentAt: Rational
    }

    /// `slomo trigger --json`: every message sent.
    public struct Report: Codable, Sendable {
        public var sent: [Sent]
        public init(sent: [Sent]) { self.sent = sent }
    }

    /// CLOCK_REALTIME now, in nanoseconds.
    public static func wallClockNow() -> Int64 {
        let t = Clock.now(Clock.realTime)
        return t.seconds * 1_000_000_000 + t.nanoseconds
    }

    public static func send(to endpoints: [IPv4Endpoint], at: Int64, key: [UInt8]) throws -> [Sent] {
        let socket: UDPSocket
        do { socket = try UDPSocket.sender() } catch { throw CaptureError.triggerSendFailed(endpoint: "udp", errno: error.rawValue) }
        defer { socket.close() }
        var out: [Sent] = []
        for e in endpoints {
            let sent = wallClockNow()
            let m = TriggerMessage(at: at, sent: sent, nonce: UInt64.random(in: 0...UInt64.max))
            do throws(Errno) { try socket.send(m.encoded { HMAC.sha256(key: key, data: $0) }, to: e) } catch {
                throw CaptureError.triggerSendFailed(endpoint: e.description, errno: error.rawValue)
            }
            out.append(Sent(to: "udp://\(e)", at: Rational(at, 1_000_000_000), sentAt: Rational(sent, 1_000_000_000)))
        }
        return out
    }
}
