import Foundation
import SlomoCore
import SlomoSystem

/// Which edges of a GPIO line fire.
public enum GPIOEdges: String, Sendable, Equatable, CaseIterable {
    case rising, falling, both
}

/// `gpio:CHIP:LINE[:rising|falling|both]`: a light gate, a pressure switch, a camera's sync output.
public struct GPIOTriggerLine: Sendable, Equatable, CustomStringConvertible {
    /// `/dev/gpiochipN`, `gpiochipN` or the chip's label.
    public var chip: String
    /// The line's number or name.
    public var line: String
    public var edges: GPIOEdges

    public static func parse(_ text: String) throws(SettingError) -> GPIOTriggerLine {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 || parts.count == 4, parts[0] == "gpio", !parts[1].isEmpty, !parts[2].isEmpty else {
            throw SettingError(.trigger, text, "expected gpio:CHIP:LINE[:rising|falling|both] (CHIP: /dev/gpiochipN, gpiochipN or its label)")
        }
        let edges = parts.count == 4 ? GPIOEdges(rawValue: parts[3]) : .rising
        guard let edges else { throw SettingError(.trigger, text, "the edge is rising, falling or both") }
        return GPIOTriggerLine(chip: parts[1], line: parts[2], edges: edges)
    }

    public var description: String { "gpio:\(chip):\(line):\(edges.rawValue)" }
}

/// Edges of a GPIO line as trigger events, each at the instant the kernel stamped in its interrupt
/// handler (CLOCK_MONOTONIC, the clock frames are stamped on), not when slomo read it. The kernel
/// debounces (`--trigger-debounce`); edges within the holdoff of the last one are left out.
final class GPIOTriggerSource: TriggerEventSource {
    let spec: GPIOTriggerLine
    private let chip: GPIOChip
    private let line: GPIOEdgeLine
    private let holdoff: Rational
    private var last: Rational?

    /// Requests the line now (before the camera streams): a missing chip or line, or one another
    /// program holds, is refused up front.
    init(_ spec: GPIOTriggerLine, debounce: Rational, holdoff: Rational) throws {
        self.spec = spec
        self.holdoff = holdoff
        do throws(GPIOError) {
            chip = try GPIOChip.open(spec.chip)
            let offset = try chip.line(spec.line)
            let us = UInt32(clamping: (debounce * Rational(1_000_000)).rounded(.nearest))
            line = try chip.requestEdges(offset, rising: spec.edges != .falling, falling: spec.edges != .rising, debounceMicroseconds: us)
        } catch {
            throw CaptureError.gpio(spec.description, error)
        }
    }

    func next(timeoutMilliseconds: Int32) -> TriggerEvents.Event? {
        let edge: GPIOEdge?
        do { edge = try line.next(milliseconds: timeoutMilliseconds) } catch {
            // a chip that went away keeps failing at once: wait out the timeout rather than spin
            CurrentProcess.sleep(microseconds: Int(timeoutMilliseconds) * 1000)
            return nil
        }
        guard let edge else { return nil }
        let time = Rational(edge.nanoseconds / 1000, 1_000_000)  // to the microsecond, as frames are
        if let l = last, time - l < holdoff { return nil }
        last = time
        return .trigger(time, wall: CaptureClock.wallTime(ofMonotonic: time))
    }

    func close() {
        line.close()
        chip.close()
    }
}
