import ArgumentParser
import SlomoCore
import SlomoKit

/// What fires a shot besides the command's own way, and the options every event trigger shares:
/// declared once, for `capture` (where it is the trigger) and `serve` (where a GPIO line or the
/// network fires shots beside the API).
struct TriggerOptions: ParsableArguments {
    @Option(
        help:
            "stdin ('trigger' / 'quit' lines), signal (SIGUSR1), motion[=THRESHOLD] (mean brightness change, 8-bit, default 10), sound[=LEVEL] (a sound on --audio louder than LEVEL dBFS, default -20), gpio:CHIP:LINE[:rising|falling|both] (an edge on a GPIO line, at the kernel's timestamp) or udp://[ADDR]:PORT (signed messages from 'slomo trigger'; a multicast group too). serve: gpio:… or udp://…, beside its API."
    ) var trigger: String?
    @Option(parsing: .unconditional, help: "Sound, GPIO and network triggers: no second trigger this many seconds after one (default 0.5).") var triggerHoldoff:
        String?
    @Option(parsing: .unconditional, help: "GPIO triggers: the kernel's debounce period in seconds (default 0: none).") var triggerDebounce: String?
    @Option(help: "The shared key file network triggers are signed with (at least 16 bytes).", completion: .file()) var triggerKey: String?
    @Option(help: "gpio:CHIP:LINE[,pulse=MS]: raise this GPIO line when a shot fires, for MS milliseconds (default 10).") var triggerOut: String?

    /// Which of these options were given (each needs --trigger).
    var given: [(Setting, Bool)] {
        [
            (.triggerKey, triggerKey != nil), (.triggerHoldoff, triggerHoldoff != nil), (.triggerDebounce, triggerDebounce != nil),
            (.triggerOut, triggerOut != nil),
        ]
    }

    /// The key, holdoff, debounce and output line into `t`, each checked against `t.kind`.
    func apply(to t: inout TriggerSettings) throws {
        if triggerKey != nil, case .network = t.kind {
        } else if triggerKey != nil {
            throw CommandLineError("\(Setting.triggerKey) is for \(Setting.trigger) udp://…", .badRequest)
        }
        if let triggerKey { t.key = try TriggerKey.load(triggerKey) }
        if let triggerHoldoff { t.holdoff = try OptionValues.seconds(triggerHoldoff, option: .triggerHoldoff, max: Rational(60)) }
        if let triggerDebounce {
            guard case .gpio = t.kind else { throw CommandLineError("\(Setting.triggerDebounce) is for \(Setting.trigger) gpio:…", .badRequest) }
            t.debounce = try OptionValues.seconds(triggerDebounce, option: .triggerDebounce, max: Rational(1))
        }
        if let triggerOut { t.output = try TriggerOutputLine.parse(triggerOut) }
    }
}
