/// The network trigger's message: one UDP datagram of one line of ASCII,
///
///     slomo-trigger/1 at=<ns> sent=<ns> nonce=<16 hex> mac=<64 hex>
///
/// `at` is the event's instant and `sent` the sender's clock when it sent, both nanoseconds on
/// CLOCK_REALTIME (which NTP or PTP keeps in step across hosts); `nonce` makes each message unique;
/// `mac` is HMAC-SHA256 under the shared key of everything before ` mac=`. Docs/Capture.md,
/// "Network trigger", is the specification.
public struct TriggerMessage: Sendable, Equatable {
    public static let magic = "slomo-trigger/1"
    public var at: Int64
    public var sent: Int64
    public var nonce: UInt64

    public init(at: Int64, sent: Int64, nonce: UInt64) {
        self.at = at
        self.sent = sent
        self.nonce = nonce
    }

    /// The signed part: the line without ` mac=…`.
    public var signedText: String { "\(TriggerMessage.magic) at=\(at) sent=\(sent) nonce=\(TriggerMessage.hex(nonce))" }

    /// The datagram, signed by `mac` (HMAC-SHA256 of the signed text's bytes).
    public func encoded(mac: ([UInt8]) -> [UInt8]) -> [UInt8] {
        let signed = Array(signedText.utf8)
        return signed + Array(" mac=\(TriggerMessage.hex(mac(signed)))\n".utf8)
    }

    /// Why a datagram is not a trigger.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case malformed(String)
        case badSignature
        case outsideWindow(seconds: Rational)
        case replayed
        public var description: String {
            switch self {
            case .malformed(let why): return "not a slomo trigger message (\(why))"
            case .badSignature: return "its signature does not match the trigger key"
            case .outsideWindow(let s): return "it was sent \(Seconds(s, decimals: 3)) s from this host's clock, outside the replay window"
            case .replayed: return "it repeats a message already taken (same nonce)"
            }
        }
    }

    /// Reads and authenticates a datagram: the message, or why it is refused. `mac` computes the
    /// HMAC of the signed bytes; the comparison takes the same time wherever the bytes differ.
    public static func verify(_ bytes: [UInt8], mac: ([UInt8]) -> [UInt8]) throws(Refusal) -> TriggerMessage {
        guard bytes.count <= 512, let text = String(validating: bytes, as: UTF8.self) else { throw .malformed("not short ASCII text") }
        let line = Array((text.hasSuffix("\n") ? String(text.dropLast()) : text).utf8)
        let marker = Array(" mac=".utf8)
        guard line.count > marker.count,
            let cut = (0...(line.count - marker.count)).last(where: { Array(line[$0..<$0 + marker.count]) == marker })
        else {
            throw .malformed("no mac")
        }
        let signed = String(decoding: line[..<cut], as: UTF8.self), macText = String(decoding: line[(cut + marker.count)...], as: UTF8.self)
        let words = signed.split(separator: " ").map(String.init)
        guard words.first == magic else { throw .malformed("expected \(magic)") }
        var fields: [String: String] = [:]
        for w in words.dropFirst() {
            let kv = w.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, fields[kv[0]] == nil else { throw .malformed("field '\(w)'") }
            fields[kv[0]] = kv[1]
        }
        guard fields.count == 3, let at = fields["at"].flatMap({ Int64($0) }), let sent = fields["sent"].flatMap({ Int64($0) }),
            let nonceText = fields["nonce"], nonceText.count == 16, let nonce = UInt64(nonceText, radix: 16)
        else {
            throw .malformed("expected at, sent and nonce")
        }
        guard let given = bytesOfHex(macText), given.count == 32 else { throw .malformed("mac is not 64 hex digits") }
        let expected = mac(Array(signed.utf8))
        var diff: UInt8 = expected.count == 32 ? 0 : 1
        for i in 0..<32 { diff |= given[i] ^ (i < expected.count ? expected[i] : 0) }
        guard diff == 0 else { throw .badSignature }
        return TriggerMessage(at: at, sent: sent, nonce: nonce)
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    static func bytesOfHex(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return nil
            }
        }
        var out: [UInt8] = []
        for i in stride(from: 0, to: chars.count, by: 2) {
            guard let a = nibble(chars[i]), let b = nibble(chars[i + 1]) else { return nil }
            out.append(a << 4 | b)
        }
        return out
    }
}

/// The receiver's rules beyond the signature: a message is taken when it was sent within `window`
/// of this host's clock (either way: clocks differ a little) and its nonce has not been taken in
/// that time; its event may lie up to `window` ahead (a trigger scheduled for an instant).
public struct TriggerReplayGuard: Sendable {
    public let window: Rational
    private var seen: [(nonce: UInt64, sent: Int64)] = []

    public init(window: Rational = Rational(10)) { self.window = window }

    /// Takes `m` at this host's CLOCK_REALTIME `now` (ns), or says why not.
    public mutating func take(_ m: TriggerMessage, now: Int64) throws(TriggerMessage.Refusal) {
        let windowNs = (window * Rational(1_000_000_000)).floor
        // a signed message may carry any 64-bit times: a difference past 64 bits is outside any window
        // (`sent=-9223372036854775808` trapped the receiver: Tests/Fuzz/Regressions/fuzz-trigger-crash-*)
        let (age, ageOverflow) = now.subtractingReportingOverflow(m.sent)
        guard !ageOverflow, age.magnitude <= windowNs.magnitude else { throw .outsideWindow(seconds: Self.seconds(now, m.sent)) }
        let (ahead, aheadOverflow) = m.at.subtractingReportingOverflow(now)
        guard !aheadOverflow, ahead <= windowNs else { throw .outsideWindow(seconds: Self.seconds(now, m.at)) }
        seen.removeAll {
            let (d, overflow) = now.subtractingReportingOverflow($0.sent)
            return overflow || d.magnitude > 2 * windowNs.magnitude
        }
        guard !seen.contains(where: { $0.nonce == m.nonce }) else { throw .replayed }
        seen.append((m.nonce, m.sent))
    }

    /// `a − b` nanoseconds in seconds, exact even where the difference does not fit 64 bits.
    static func seconds(_ a: Int64, _ b: Int64) -> Rational {
        Rational(a / 1_000_000_000 - b / 1_000_000_000) + Rational(a % 1_000_000_000 - b % 1_000_000_000, 1_000_000_000)
    }
}
