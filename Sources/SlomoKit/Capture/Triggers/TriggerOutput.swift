import Foundation
import SlomoCore
import SlomoSystem

/// `--trigger-out gpio:CHIP:LINE[,pulse=MS]`: a GPIO line raised when a shot fires (a strobe, a
/// second device, an oscilloscope), low again after the pulse.
public struct TriggerOutputLine: Sendable, Equatable, CustomStringConvertible {
    /// `/dev/gpiochipN`, `gpiochipN` or the chip's label.
    public var chip: String
    /// The line's number or name.
    public var line: String
    /// How long the line stays high.
    public var pulse: Rational
    public static let defaultPulse = Rational(10, 1000)

    public static func parse(_ text: String) throws(SettingError) -> TriggerOutputLine {
        let expected: Wording = "expected gpio:CHIP:LINE[,pulse=MS] (CHIP: /dev/gpiochipN, gpiochipN or its label; MS: 1…10000, default 10)"
        var fields = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let parts = fields.removeFirst().split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == "gpio", !parts[1].isEmpty, !parts[2].isEmpty else {
            throw SettingError(.triggerOut, text, expected)
        }
        var out = TriggerOutputLine(chip: parts[1], line: parts[2], pulse: defaultPulse)
        for f in fields {
            guard f.hasPrefix("pulse="), let ms = Int(f.dropFirst(6)), (1...10_000).contains(ms) else {
                throw SettingError(.triggerOut, text, expected)
            }
            out.pulse = Rational(Int64(ms), 1000)
        }
        return out
    }

    public var description: String { "gpio:\(chip):\(line),pulse=\(Seconds(pulse * Rational(1000)))" }
}

/// When the trigger output went high for a shot, against the event that fired it.
public struct TriggerOutputReport: Codable, Sendable, Equatable {
    /// The line (`gpio:CHIP:LINE,pulse=MS`).
    public var line: String
    /// CLOCK_MONOTONIC read just after the kernel took the new value.
    public var raisedTime: Rational
    /// `raisedTime` − the event's time (includes the wait for a scheduled instant still ahead).
    public var afterEvent: Rational
    public var afterEventMs: Double
    public var pulseMs: Double
}

/// The line behind `--trigger-out`: raised once per event (several cameras on one event share it
/// and get the same report), lowered by its own thread when the pulse ends; a new event during a
/// pulse starts a new pulse. Low when closed.
final class TriggerOutput: @unchecked Sendable {
    // Safe: every field below `set` is touched under `cond`.
    let spec: TriggerOutputLine
    private let set: (Bool) throws -> Void
    private let release: () -> Void
    private let cond = NSCondition()
    private var lowAt: Rational?
    private var lastEvent: Rational?
    private var lastReport: TriggerOutputReport?
    private var closed = false
    private var failure: String?
    private let finished = DispatchSemaphore(value: 0)

    /// Requests the line as an output, low (a missing chip or line, or one another program holds, is refused now).
    convenience init(_ spec: TriggerOutputLine) throws {
        do {
            let chip = try GPIOChip.open(spec.chip)
            let line: GPIOOutputLine
            do { line = try chip.requestOutput(try chip.line(spec.line), value: false) } catch {
                chip.close()
                throw error
            }
            self.init(
                spec, set: { v in try line.set(v) },
                release: {
                    line.close()
                    chip.close()
                })
        } catch let e as GPIOError {
            throw CaptureError.gpio(spec.description, e)
        }
    }

    /// The seam: `set` drives the line (tests record it).
    init(_ spec: TriggerOutputLine, set: @escaping (Bool) throws -> Void, release: @escaping () -> Void = {}) {
        self.spec = spec
        self.set = set
        self.release = release
        let t = Thread { [unowned self] in
            lowering()
            finished.signal()
        }
        t.name = "slomo-trigger-out"
        t.start()
    }

    /// Raises the line for the event at `event` (once: a later call for the same event returns the
    /// first one's report); nil when the line could not be set (said once in `warning`).
    func fire(event: Rational) -> TriggerOutputReport? {
        cond.lock()
        defer { cond.unlock() }
        if let e = lastEvent, e == event { return lastReport }
        lastEvent = event
        do { try set(true) } catch {
            if failure == nil { failure = "\(spec): the line could not be raised: \(error)" }
            lastReport = nil
            return nil
        }
        let raised = CaptureClock.now()
        lowAt = raised + spec.pulse
        cond.broadcast()
        let after = raised - event
        lastReport = TriggerOutputReport(
            line: spec.description, raisedTime: raised, afterEvent: after,
            afterEventMs: (after.doubleValue * 1e6).rounded() / 1e3,
            pulseMs: (spec.pulse.doubleValue * 1e6).rounded() / 1e3)
        return lastReport
    }

    /// Why the line could not be raised, if it once could not.
    var warning: String? {
        cond.lock()
        defer { cond.unlock() }
        return failure
    }

    private func lowering() {
        cond.lock()
        defer { cond.unlock() }
        while !closed {
            guard let at = lowAt else {
                cond.wait()
                continue
            }
            let left = at - CaptureClock.now()
            if left > .zero {
                _ = cond.wait(until: Date(timeIntervalSinceNow: left.doubleValue))
                continue
            }
            try? set(false)
            lowAt = nil
        }
    }

    /// Ends the pulse now if one is on, lowers the line and gives it back.
    func close() {
        cond.lock()
        if closed {
            cond.unlock()
            return
        }
        closed = true
        cond.broadcast()
        cond.unlock()
        finished.wait()
        try? set(false)
        release()
    }
}
