import Testing
@testable import SlomoCore

/// The network trigger's message: its form, its signature, the replay window.
@Suite struct TriggerMessageTests {
    /// A stand-in MAC (the real one is HMAC-SHA256 by libavutil): 32 bytes that depend on every
    /// byte signed and on the key.
    static func mac(_ key: UInt8) -> ([UInt8]) -> [UInt8] {
        { data in (0..<32).map { i in data.enumerated().reduce(key &+ UInt8(i)) { $0 &* 31 &+ $1.element &+ UInt8(truncatingIfNeeded: $1.offset) } } }
    }

    @Test func aSignedMessageReadsBack() throws {
        let m = TriggerMessage(at: 1_795_666_623_656_882_000, sent: 1_795_666_623_856_882_000, nonce: 0xABCDEF)
        let bytes = m.encoded(mac: Self.mac(7))
        #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("slomo-trigger/1 at=1795666623656882000 sent=1795666623856882000 nonce=0000000000abcdef mac="))
        #expect(try TriggerMessage.verify(bytes, mac: Self.mac(7)) == m)
    }

    @Test func aWrongKeyOrAChangedByteIsRefused() {
        let bytes = TriggerMessage(at: 10, sent: 10, nonce: 1).encoded(mac: Self.mac(7))
        #expect(throws: TriggerMessage.Refusal.badSignature) { try TriggerMessage.verify(bytes, mac: Self.mac(8)) }
        var changed = bytes
        changed[20] = UInt8(ascii: "9")  // a digit of `at`
        #expect(throws: TriggerMessage.Refusal.badSignature) { try TriggerMessage.verify(changed, mac: Self.mac(7)) }
    }

    @Test(arguments: [
        "", "hello", "slomo-trigger/1 at=1 sent=1 nonce=0000000000000001",
        "slomo-trigger/2 at=1 sent=1 nonce=0000000000000001 mac=" + String(repeating: "0", count: 64),
        "slomo-trigger/1 at=x sent=1 nonce=0000000000000001 mac=" + String(repeating: "0", count: 64),
        "slomo-trigger/1 at=1 at=1 nonce=0000000000000001 mac=" + String(repeating: "0", count: 64),
        "slomo-trigger/1 at=1 sent=1 nonce=0000000000000001 mac=zz",
    ])
    func malformedMessagesAreSaidToBe(text: String) {
        #expect {
            try TriggerMessage.verify(Array(text.utf8), mac: Self.mac(7))
        } throws: { e in
            if case .malformed = e as? TriggerMessage.Refusal { return true } else { return false }
        }
    }

    @Test func theReplayWindowTakesEachMessageOnce() throws {
        var g = TriggerReplayGuard(window: Rational(10))
        let now: Int64 = 1_000_000_000_000
        let m = TriggerMessage(at: now - 200_000_000, sent: now - 5_000_000, nonce: 42)
        try g.take(m, now: now)
        #expect(throws: TriggerMessage.Refusal.replayed) { try g.take(m, now: now + 1_000_000) }
        // sent 11 s ago, or 11 s ahead of this clock: outside the window
        #expect { try g.take(TriggerMessage(at: now, sent: now - 11_000_000_000, nonce: 1), now: now) } throws: { e in
            if case .outsideWindow = e as? TriggerMessage.Refusal { return true } else { return false }
        }
        #expect { try g.take(TriggerMessage(at: now, sent: now + 11_000_000_000, nonce: 2), now: now) } throws: { _ in true }
        // an instant up to the window ahead is taken (a scheduled trigger), further is not
        try g.take(TriggerMessage(at: now + 9_000_000_000, sent: now, nonce: 3), now: now)
        #expect { try g.take(TriggerMessage(at: now + 11_000_000_000, sent: now, nonce: 4), now: now) } throws: { _ in true }
        // the same nonce long after its window is a new message
        try g.take(TriggerMessage(at: now + 30_000_000_000, sent: now + 30_000_000_000, nonce: 42), now: now + 30_000_000_000)
    }

    /// Found writing fuzz-trigger, confirmed through it: a signed message whose times lie at 64 bits'
    /// edges trapped the receiver (`now − sent` overflowed); it is outside the window, in exact seconds.
    @Test func timesAtSixtyFourBitsEdgesAreOutsideTheWindow() throws {
        var g = TriggerReplayGuard(window: Rational(10))
        let now: Int64 = 1_795_000_000_000_000_000
        for (at, sent) in [(now, Int64.min), (Int64.min, now), (now, Int64.max), (Int64.max, now)] {
            #expect {
                try g.take(TriggerMessage(at: at, sent: sent, nonce: 7), now: now)
            } throws: { e in
                guard case .outsideWindow(let s) = e as? TriggerMessage.Refusal else { return false }
                let other = sent == now ? at : sent
                return s == Rational(now / 1_000_000_000 - other / 1_000_000_000) + Rational(now % 1_000_000_000 - other % 1_000_000_000, 1_000_000_000)
                    && s.magnitude > Rational(7_000_000_000) && "\(e)".contains(".855 s from this host's clock")
            }
        }
    }
}
