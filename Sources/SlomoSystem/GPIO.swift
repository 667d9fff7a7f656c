import CPOSIX
import Glibc

/// Why a GPIO chip or line cannot be used.
public enum GPIOError: Error, Equatable, Sendable {
    /// No chip with this path, name or label; the chips there are.
    case noSuchChip(String, available: [String])
    /// The chip has no line of this number or name.
    case noSuchLine(chip: String, line: String, lines: Int)
    /// Another consumer holds the line (EBUSY).
    case lineBusy(chip: String, line: UInt32, consumer: String)
    /// A call failed.
    case system(String, Errno)
}

/// A GPIO chip of the character device (`/dev/gpiochipN`, uAPI v2, Linux ≥ 5.10), found by path,
/// by name (`gpiochip0`) or by label (what its driver calls it: `gpio-sim.0-node0`, a board's name).
/// slomo calls the uAPI itself rather than link libgpiod: Debian 12 has libgpiod 1.6 (the v1 uAPI:
/// no debounce, no sequence numbers) and Debian 13 an incompatible 2.x; the v2 ioctls are the same on both.
public struct GPIOChip: Sendable {
    public let path: String
    public let name: String
    public let label: String
    public let lines: Int
    let descriptor: FileDescriptor

    public static func open(_ spec: String) throws(GPIOError) -> GPIOChip {
        let candidates = spec.hasPrefix("/") ? [spec] : chipPaths()
        var seen: [String] = []
        for path in candidates {
            let fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else {
                if spec.hasPrefix("/") { throw errno == ENOENT ? .noSuchChip(spec, available: chipPaths()) : .system("open \(path)", .current) }
                continue
            }
            var name = [CChar](repeating: 0, count: 32), label = [CChar](repeating: 0, count: 32)
            var count: UInt32 = 0
            let rc = cposix_gpio_chip_info(fd, &name, &label, &count)
            guard rc == 0 else {
                _ = Glibc.close(fd)
                if spec.hasPrefix("/") { throw .system("GPIO_GET_CHIPINFO_IOCTL \(path)", Errno(-rc)) }
                continue
            }
            let chip = GPIOChip(
                path: path, name: cText(name), label: cText(label), lines: Int(count),
                descriptor: FileDescriptor(rawValue: fd))
            if spec.hasPrefix("/") || chip.name == spec || chip.label == spec { return chip }
            seen.append("\(chip.name) (\(chip.label))")
            chip.close()
        }
        throw .noSuchChip(spec, available: seen)
    }

    /// `/dev/gpiochip*`, in order.
    static func chipPaths() -> [String] { Files.numberedDevices("gpiochip") }

    /// A line by its number, or by the name its driver gives it.
    public func line(_ spec: String) throws(GPIOError) -> UInt32 {
        if let n = UInt32(spec) {
            guard n < lines else { throw .noSuchLine(chip: name, line: spec, lines: lines) }
            return n
        }
        for k in 0..<UInt32(lines) where (try? info(k))?.name == spec { return k }
        throw .noSuchLine(chip: name, line: spec, lines: lines)
    }

    /// A line's name, who holds it (empty: nobody), and whether it is in use.
    public func info(_ offset: UInt32) throws(GPIOError) -> (name: String, consumer: String, used: Bool) {
        var n = [CChar](repeating: 0, count: 32), c = [CChar](repeating: 0, count: 32)
        var used: Int32 = 0
        let rc = cposix_gpio_line_info(descriptor.rawValue, offset, &n, &c, &used)
        guard rc == 0 else { throw .system("GPIO_V2_GET_LINEINFO_IOCTL \(name) line \(offset)", Errno(-rc)) }
        return (cText(n), cText(c), used != 0)
    }

    /// The line as an input reporting edges, stamped by the kernel on CLOCK_MONOTONIC in its interrupt
    /// handler; `debounce`: the kernel's debounce period (0: none).
    public func requestEdges(
        _ offset: UInt32, rising: Bool, falling: Bool, debounceMicroseconds: UInt32,
        consumer: String = "slomo"
    ) throws(GPIOError) -> GPIOEdgeLine {
        let fd = cposix_gpio_request_edges(descriptor.rawValue, offset, rising ? 1 : 0, falling ? 1 : 0, debounceMicroseconds, consumer)
        guard fd >= 0 else { throw refusal(offset, Errno(-fd)) }
        return GPIOEdgeLine(descriptor: FileDescriptor(rawValue: fd))
    }

    /// The line as an output, set to `value` now.
    public func requestOutput(_ offset: UInt32, value: Bool, consumer: String = "slomo") throws(GPIOError) -> GPIOOutputLine {
        let fd = cposix_gpio_request_output(descriptor.rawValue, offset, value ? 1 : 0, consumer)
        guard fd >= 0 else { throw refusal(offset, Errno(-fd)) }
        return GPIOOutputLine(descriptor: FileDescriptor(rawValue: fd))
    }

    private func refusal(_ offset: UInt32, _ e: Errno) -> GPIOError {
        if e == Errno(EBUSY) { return .lineBusy(chip: name, line: offset, consumer: (try? info(offset).consumer) ?? "") }
        return .system("GPIO_V2_GET_LINE_IOCTL \(name) line \(offset)", e)
    }

    public func close() { descriptor.close() }
}

/// One edge on a line: the kernel's CLOCK_MONOTONIC time of it, its direction, the line's count of edges.
public struct GPIOEdge: Sendable, Equatable {
    public let nanoseconds: Int64
    public let rising: Bool
    public let sequence: UInt32
}

/// A line requested for edge events.
public struct GPIOEdgeLine: Sendable {
    let descriptor: FileDescriptor

    /// The next edge, waiting up to `milliseconds`; nil when none came.
    public func next(milliseconds: Int32) throws(Errno) -> GPIOEdge? {
        guard descriptor.waitForInput(milliseconds: milliseconds) else { return nil }
        var ns: UInt64 = 0, rising: Int32 = 0, seq: UInt32 = 0
        let rc = cposix_gpio_read_event(descriptor.rawValue, &ns, &rising, &seq)
        guard rc > 0 else { throw Errno(-rc) }
        return GPIOEdge(nanoseconds: Int64(ns), rising: rising != 0, sequence: seq)
    }

    public func close() { descriptor.close() }
}

/// A line requested as an output.
public struct GPIOOutputLine: Sendable {
    let descriptor: FileDescriptor
    public func set(_ value: Bool) throws(Errno) {
        let rc = cposix_gpio_set_value(descriptor.rawValue, value ? 1 : 0)
        guard rc == 0 else { throw Errno(-rc) }
    }
    public func close() { descriptor.close() }
}

/// A NUL-terminated C string held in a `[CChar]` buffer, as text (up to its first NUL).
func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
