import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

/// `slomo controls [DEVICE] [--listing FILE] [--json]`.
struct ControlsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controls",
        abstract: "A device's (or a saved listing's) controls: type, range, default, value, flags, menus.",
        discussion: """
            Grouped camera, user, then the driver's own (vendor). Names are v4l2-ctl's, as 'capture --control \
            NAME=VALUE' takes them. Flags: inactive (another control's automatic mode governs it), read-only, \
            volatile (the driver changes it), write-only (a button). JSON: Docs/JSON.md.
            Exit: 65 not a listing, 66 no such device/file or not a V4L2 device, 69 busy, 77 permission denied.
            Examples:
              slomo controls /dev/video0
              slomo controls --listing camera-controls.txt --json
            """)

    @Argument(help: "Device (default /dev/video0).", completion: .file()) var device: String?
    @Option(help: "Read a saved 'v4l2-ctl --list-ctrls-menus' text instead of a device.", completion: .file()) var listing: String?
    @Flag(help: "Print JSON.") var json = false

    /// Combinations and ranges, refused in the command line's words before anything opens.
    func check() throws {
        if listing != nil && device != nil { throw CommandLineError("\(Setting.listing) takes no DEVICE", .badRequest) }
    }

    func run() throws {
        try check()
        if let d = device, GenICamService.isGenICam(d) {
            let features = try GenICamService.controls(device: d)
            if json {
                try JSONOutput.print(GenICamControlsReport(camera: d, features: features))
                return
            }
            Console.out("\(d): \(features.count) features")
            for f in features { Console.out(ControlsTable.line(f)) }
            return
        }
        let report = try listing.map { try DeviceService.controls(listing: $0) } ?? DeviceService.controls(device: device ?? "/dev/video0")
        if json {
            try JSONOutput.print(report)
            return
        }
        if let d = report.device { Console.out("\(d.path): \(d.card) (\(d.driver), \(d.bus))") } else { Console.out("\(report.source):") }
        if report.controls.isEmpty { Console.out("  no controls") }
        for (group, list) in report.grouped {
            Console.out("\(group) controls:")
            for c in list { for line in ControlsTable.lines(c) { Console.out(line) } }
        }
    }
}

/// `slomo controls genicam:ID --json`.
struct GenICamControlsReport: Encodable {
    var camera: String
    var features: [GenICamFeature]
}

/// The human lines of one control.
enum ControlsTable {
    /// One GenICam feature: name, type, range or entries, unit, access, value.
    static func line(_ f: GenICamFeature) -> String {
        var parts = [f.type, f.access]
        func n(_ v: Double) -> String { f.type == "integer" && abs(v) < 9e18 ? String(Int64(v)) : String(format: "%g", v) }
        if let lo = f.min, let hi = f.max { parts.append("\(n(lo))...\(n(hi))" + (f.increment.map { $0 != 1 ? " step \(n($0))" : "" } ?? "")) }
        if let u = f.unit { parts.append(u) }
        if let e = f.entries { parts.append("{" + e.joined(separator: ", ") + "}") }
        var head = "  \(f.name.padding(toLength: max(f.name.count, 28), withPad: " ", startingAt: 0)) \(parts.joined(separator: ", "))"
        if let v = f.value { head += ": \(v)" }
        return head
    }

    static func lines(_ c: ControlEntry) -> [String] {
        var parts: [String] = [c.type]
        switch c.type {
        case "integer", "integer64":
            parts.append("\(c.minimum ?? 0)...\(c.maximum ?? 0)" + ((c.step ?? 1) > 1 ? " step \(c.step ?? 1)" : ""))
            parts.append("default \(c.default ?? 0)")
        case "boolean", "menu", "integer-menu": parts.append("default \(c.default ?? 0)")
        case "bitmask": parts.append("mask 0x\(String(UInt64(bitPattern: c.maximum ?? 0), radix: 16))")
        default: break
        }
        let value = c.type == "string" ? c.valueText.map { "'\($0)'" } : c.valueText
        var head = "  \(c.name.padding(toLength: max(c.name.count, 28), withPad: " ", startingAt: 0)) \(parts.joined(separator: ", "))"
        if let value { head += ": \(value)" }
        if !c.flags.isEmpty { head += " [\(c.flags.joined(separator: ", "))]" }
        var out = [head]
        for m in c.menu ?? [] { out.append("      \(m.index): \(m.name ?? m.value.map(String.init) ?? "")") }
        return out
    }
}

extension ControlsTable {
    /// `gain = 30 (--gain lock: locked at 30, …)`.
    static func applied(_ c: AppliedControl) -> String {
        var s = "\(c.name) = \(c.readBackText ?? c.readBack.map(String.init) ?? c.written.map(String.init) ?? "?") (\(c.option)"
        if let n = c.note { s += ": \(n)" }
        s += ")"
        if let e = c.atEnd, e != c.readBack { s += ", \(e) at the end" }
        return s
    }
}
