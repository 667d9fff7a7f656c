import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

/// `slomo trigger`: fires captures listening with `--trigger udp://…`, on this host or others.
struct TriggerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        abstract: "Fire network-triggered captures: one signed message naming an instant.",
        discussion: """
            Sends one UDP message to each URL, signed with the shared key (HMAC-SHA256) and naming an \
            instant on the wall clock (CLOCK_REALTIME, which NTP or PTP keeps in step across hosts). Every \
            capture listening there selects the frame of that instant, even when the message arrives late \
            (up to its pre-trigger length in the past) or names an instant up to 10 s ahead. Messages \
            outside a 10 s replay window, repeated, or wrongly signed are ignored with a warning.
            --at: now (default), -SECONDS (that long ago: the event a person reacted to), +SECONDS, or an \
            ISO 8601 instant (2026-11-26T10:15:00.250Z).
            Examples:
              slomo trigger udp://127.0.0.1:7000 --trigger-key rig.key
              slomo trigger udp://239.1.2.3:7000 --at -0.2 --trigger-key rig.key
            """)

    @Argument(help: "udp://ADDR:PORT of each capture (a multicast group reaches every rig in it).") var urls: [String]
    @Option(parsing: .unconditional, help: "The instant: now, -SECONDS, +SECONDS or ISO 8601.") var at = "now"
    @Option(help: "The shared key file (at least 16 bytes).", completion: .file()) var triggerKey: String
    @Flag(help: "Print JSON (stable keys, Docs/JSON.md).") var json = false

    func run() throws {
        guard !urls.isEmpty else { throw CommandLineError("give at least one udp://ADDR:PORT", .badRequest) }
        let endpoints = try urls.map { u throws(SettingError) in try NetworkTriggerAddress.parse(u, setting: .trigger) }
        let key = try TriggerKey.load(triggerKey)
        let instant = try Self.instant(at, now: TriggerSender.wallClockNow())
        let sent = try TriggerSender.send(to: endpoints, at: instant, key: key)
        if json {
            try JSONOutput.print(TriggerSender.Report(sent: sent))
            return
        }
        for s in sent {
            Console.out("sent to \(s.to): at \(Seconds(s.at, decimals: 6)) s (wall clock), \(Seconds(s.at - s.sentAt, decimals: 3)) s from sending")
        }
    }

    /// `--at` as CLOCK_REALTIME nanoseconds.
    static func instant(_ text: String, now: Int64) throws(SettingError) -> Int64 {
        if text == "now" { return now }
        if let first = text.first, first == "-" || first == "+" {
            let magnitude = try OptionValues.seconds(String(text.dropFirst()), option: .at, max: Rational(3600))
            let ns = (magnitude * Rational(1_000_000_000)).rounded(.nearest)
            return first == "-" ? now - ns : now + ns
        }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        guard let date = f.date(from: text) ?? plain.date(from: text) else {
            throw SettingError(.at, text, "expected now, -SECONDS, +SECONDS or an ISO 8601 instant such as 2026-11-26T10:15:00.250Z")
        }
        return Int64((date.timeIntervalSince1970 * 1e9).rounded())
    }
}
