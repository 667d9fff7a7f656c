import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

struct FormatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formats",
        abstract: "A device's (or a saved listing's) formats, sizes and frame intervals, and the max-fps mode.",
        discussion: """
        Selection: highest frame rate, then larger area, then H.264 > MJPEG > raw (--prefer reorders). \
        --apply sets the mode on the device (S_FMT, S_PARM, exposure controls) and prints what the driver really set.
        Examples: slomo formats /dev/video0 --json; slomo formats --listing cam.txt; slomo formats /dev/video0 --apply --min-size 1280x720
        """)

    @Argument(help: "Device (default /dev/video0).") var device: String?
    @Option(help: "Read a saved 'v4l2-ctl --list-formats-ext' text instead of a device.") var listing: String?
    @Option(help: "Only this pixel format (fourcc).") var format: String?
    @Option(help: "Only this size WxH.") var size: String?
    @Option(help: "At least this size WxH.") var minSize: String?
    @Option(help: "The mode whose rate is nearest at or above this.") var fps: String?
    @Option(help: "Tie-break order, e.g. mjpeg,h264,raw.") var prefer: String?
    @Flag(help: "Apply the selected mode to the device and read it back.") var apply = false
    @Flag(help: "Print JSON (always with \"maxFps\").") var json = false

    func run() throws {
        let request = try DeviceService.request(format: format, size: size, minSize: minSize, fps: fps, prefer: prefer)
        let report: FormatsReport
        if let listing {
            guard device == nil, !apply else { throw SimpleFailure("--listing takes no DEVICE and no --apply", .usage) }
            report = try DeviceService.formats(listing: listing, request: request)
        } else {
            report = try DeviceService.formats(device: device ?? "/dev/video0", request: request, apply: apply)
        }
        if json { try JSONOutput.print(report); return }
        if let d = report.device { Console.out("\(d.path): \(d.card) (\(d.driver), \(d.bus))") } else { Console.out("\(report.source):") }
        for f in report.catalog.formats {
            Console.out("  [\(f.index)] '\(f.fourcc)' \(f.description)\(f.compressed ? ", compressed" : "")\(f.emulated ? ", emulated" : "")")
            for s in f.sizes {
                let size: String
                switch s.size {
                case .discrete(let w, let h): size = "\(w)x\(h)"
                case .stepwise(let a, let b, let c, let d, let e, let g): size = "\(a)x\(b) - \(c)x\(d) step \(e)/\(g)"
                case .continuous(let a, let b, let c, let d): size = "\(a)x\(b) - \(c)x\(d) continuous"
                }
                let rates: String
                switch s.intervals {
                case .discrete(let l)?: rates = l.sorted().map { "\(Seconds(Rational.one / $0))" }.joined(separator: " ")
                case .stepwise(let mn, let mx, let st)?: rates = "\(Seconds(Rational.one / mx))-\(Seconds(Rational.one / mn)) fps, step \(st) s"
                case .continuous(let mn, let mx)?: rates = "\(Seconds(Rational.one / mx))-\(Seconds(Rational.one / mn)) fps (continuous)"
                case nil: rates = "(no intervals)"
                }
                Console.out("      \(size): \(rates)")
            }
        }
        if let m = report.maxFps {
            Console.out("max fps: \(m.pixelFormat) \(m.width)x\(m.height) @ \(m.frameDuration) s = \(m.fps) fps\(m.exceedsUSB2Budget ? " (raw; exceeds a USB 2.0 link budget)" : "")")
        } else {
            Console.out("max fps: none (no size with known frame intervals matches)")
        }
        if let a = report.applied {
            Console.out("applied: driver set \(a.pixelFormat) \(a.width)x\(a.height), frame duration \(a.frameDuration.map { "\($0) s (\(Seconds(Rational.one / $0)) fps)" } ?? "unknown")")
            if a.adjustments.isEmpty { Console.out("  exactly as requested") }
            for adj in a.adjustments { Console.out("  driver adjusted: \(adj)") }
            for (k, v) in a.controls.sorted(by: { $0.key < $1.key }) { Console.out("  \(k) = \(v)") }
        }
    }
}
