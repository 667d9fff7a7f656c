import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

/// `slomo formats [DEVICE] [--listing FILE] [constraints] [--apply] [--json]`.
struct FormatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formats",
        abstract: "A device's (or a saved listing's) formats, sizes and frame intervals, and the max-fps mode.",
        discussion: """
            Selection: highest frame rate, then larger area, then H.264 > MJPEG > raw (--prefer reorders). \
            Raw modes over a USB 2.0 budget (24 MB/s) are flagged and the best mode within it is shown too. \
            --apply sets the mode on the device (S_FMT, S_PARM, exposure controls) and prints what the driver \
            really set; with camera controls (as capture takes them), those too, each read back. JSON always has "maxFps" (null when nothing is selectable).
            Exit: 65 not a listing, 66 no such device/file or not a V4L2 device, 69 not a capture device or \
            busy or nothing selectable, 74 device I/O error, 77 permission denied.
            GenICam cameras (genicam:ID) have no list of modes: their rate follows the pixel format, the \
            region (--size, centred unless --offset X,Y), binning and exposure. They show their pixel \
            formats, sensor, region steps, binning, exposure and gain ranges, trigger sources, and the \
            frame-rate bounds for the asked region and format (which are set on the camera to ask it); \
            --measure streams that mode for --measure-seconds.
            Examples:
              slomo formats /dev/video0 --json
              slomo formats --listing camera-listing.txt
              slomo formats /dev/video0 --apply --min-size 1280x720
              slomo formats /dev/video0 --measure --format YUYV --measure-limit 2
              slomo formats genicam:192.168.1.20 --format Mono8 --size 640x480 --json
            """)

    @Argument(help: "Device (default /dev/video0).", completion: .file()) var device: String?
    @Option(help: "Read a saved 'v4l2-ctl --list-formats-ext' text instead of a device.", completion: .file()) var listing: String?
    @Option(help: "Only this pixel format (fourcc).") var format: String?
    @Option(help: "Only this size WxH.") var size: String?
    @Option(help: "At least this size WxH.") var minSize: String?
    @Option(help: "GenICam cameras: the region's top-left corner X,Y (default: centred).") var offset: String?
    @Option(parsing: .unconditional, help: "The mode whose rate is nearest at or above this (e.g. 120, 30000/1001).") var fps: String?
    @Option(help: "Tie-break order, e.g. mjpeg,h264,raw.") var prefer: String?
    @Flag(help: "Apply the selected mode to the device and read it back.") var apply = false
    @Flag(help: "Print JSON (always with \"maxFps\").") var json = false
    @Flag(help: "Stream each candidate mode briefly: achieved rate and drops beside the advertised rate.") var measure = false
    @Option(parsing: .unconditional, help: "Seconds of frames per measured mode (timestamps).") var measureSeconds = "1"
    @Option(help: "Most modes measured (unadvertised sizes first, then fastest).") var measureLimit = 12
    @OptionGroup(title: "Camera controls (with --apply)") var cameraControls: ControlOptions

    /// Combinations and ranges, refused in the command line's words before anything opens.
    func check() throws {
        if listing != nil && (device != nil || apply || measure) {
            throw CommandLineError("\(Setting.listing) takes no DEVICE, \(Setting.apply) or \(Setting.measure)", .badRequest)
        }
        if measure && apply { throw CommandLineError("\(Setting.measure) and \(Setting.apply) are separate runs", .badRequest) }
        if !(1...200).contains(measureLimit) { throw SettingError(.measureLimit, String(measureLimit), "must be in 1...200", quoted: false) }
    }

    func run() throws {
        try check()
        if let d = device, GenICamService.isGenICam(d) {
            try genicam(d)
            return
        }
        if offset != nil { throw CommandLineError("\(Setting.offset) is for GenICam cameras (genicam:ID)", .badRequest) }
        let request = try DeviceService.request(format: format, size: size, minSize: minSize, fps: fps, prefer: prefer)
        let controls = try cameraControls.requests()
        if !controls.isEmpty && !apply {
            throw CommandLineError("camera controls (\(Setting.shutter), \(Setting.gain), \(Setting.control)…) are set with \(Setting.apply)", .badRequest)
        }
        let report: FormatsReport
        if let listing {
            report = try DeviceService.formats(listing: listing, request: request)
        } else if measure {
            let seconds = try OptionValues.rational(measureSeconds, option: .measureSeconds)
            guard seconds.isPositive, seconds <= Rational(60) else {
                throw SettingError(.measureSeconds, measureSeconds, "must be > 0 and at most 60")
            }
            report = try DeviceService.formats(device: device ?? "/dev/video0", request: request, measure: seconds, limit: measureLimit)
        } else {
            report = try DeviceService.formats(device: device ?? "/dev/video0", request: request, apply: apply, controls: controls)
        }
        if json {
            try JSONOutput.print(report)
            return
        }
        for line in FormatsTable.lines(report) { Console.out(line) }
    }
}

extension FormatsCommand {
    /// `slomo formats genicam:ID`: the camera's modes, the bounds for the asked region and format.
    func genicam(_ device: String) throws {
        if apply || fps != nil || prefer != nil || minSize != nil {
            throw CommandLineError(
                "\(device): a GenICam camera has no list of modes to pick from: give \(Setting.format) and \(Setting.size) (and \(Setting.offset)) to see that mode's rate bounds",
                .badRequest)
        }
        let seconds: Rational? = measure ? try OptionValues.rational(measureSeconds, option: .measureSeconds) : nil
        if let s = seconds, !(s.isPositive && s <= Rational(60)) { throw SettingError(.measureSeconds, measureSeconds, "must be > 0 and at most 60") }
        let f = try GenICamService.formats(device: device, format: format, size: size, offset: offset, measure: seconds)
        if json {
            try JSONOutput.print(f)
            return
        }
        func r(_ x: GenICamRange) -> String { "\(x.min)...\(x.max)" + (x.increment > 1 ? " step \(x.increment)" : "") }
        func d(_ v: Double?) -> String { v.map { String(format: "%g", $0) } ?? "?" }
        Console.out("\(f.camera): \(f.vendor) \(f.model) (serial \(f.serial), \(f.protocol))")
        Console.out(
            "  pixel formats: " + f.pixelFormats.map { $0.storedAs == nil ? "\($0.name) (not stored)" : $0.name }.joined(separator: ", ")
                + "; now \(f.pixelFormat)")
        Console.out("  sensor \(f.sensorWidth)x\(f.sensorHeight); width \(r(f.width)), height \(r(f.height)); offset x \(r(f.offsetX)), y \(r(f.offsetY))")
        if let h = f.binningHorizontal, let v = f.binningVertical { Console.out("  binning horizontal \(r(h)), vertical \(r(v))") }
        Console.out("  region \(f.region): \(d(f.frameRateMin))...\(d(f.frameRateMax)) fps")
        Console.out("  exposure \(d(f.exposureMin))...\(d(f.exposureMax)) µs; gain \(d(f.gainMin))...\(d(f.gainMax))")
        if !f.triggerSources.isEmpty { Console.out("  trigger sources: \(f.triggerSources.joined(separator: ", "))") }
        if let m = f.measuredFps {
            Console.out("  measured: \(String(format: "%.2f", m)) fps (\(f.measuredFrames ?? 0) frames, \(f.measuredDamaged ?? 0) damaged)")
        }
    }
}

/// The human table of `slomo formats`.
enum FormatsTable {
    static func lines(_ report: FormatsReport) -> [String] {
        var out: [String] = []
        if let d = report.device {
            let rate = d.hasTimePerFrame == false ? ", fixed rate: no V4L2_CAP_TIMEPERFRAME" : ""
            out.append("\(d.path): \(d.card) (\(d.driver), \(d.bus)\(d.isMultiplanar ? ", multi-planar" : "")\(rate))")
        } else {
            out.append("\(report.source):")
        }
        for f in report.catalog.formats {
            let flags = (f.compressed ? ", compressed" : "") + (f.emulated ? ", emulated" : "")
            out.append("  [\(f.index)] '\(f.fourcc)' \(f.description)\(flags)")
            for s in f.sizes { out.append("      \(size(s)): \(rates(s))") }
        }
        if let m = report.maxFps {
            out.append("max fps: \(mode(m))\(m.exceedsUSB2Budget ? " (raw; exceeds a USB 2.0 link budget of 24 MB/s)" : "")")
            if m.exceedsUSB2Budget {
                out.append("  within a USB 2.0 budget: \(report.maxFpsWithinUSB2Budget.map(mode) ?? "none")")
            }
        } else {
            out.append("max fps: none (no size with known frame intervals matches)")
        }
        if let list = report.measured {
            out.append(
                "measured (\(list.count) mode\(list.count == 1 ? "" : "s")\(report.notMeasured.map { $0 > 0 ? ", \($0) more not measured" : "" } ?? "")):")
            for m in list { out.append("  " + measured(m)) }
        }
        if let a = report.applied {
            out.append("applied: \(a.summary)")
            for adj in a.adjustments { out.append("  note: \(adj)") }
            for (k, v) in a.controls.sorted(by: { $0.key < $1.key }) { out.append("  \(k) = \(v)") }
            for c in a.cameraControls ?? [] { out.append("  " + ControlsTable.applied(c)) }
        }
        return out
    }

    static func mode(_ m: MaxFpsMode) -> String {
        "\(m.pixelFormat) \(m.width)x\(m.height) @ \(m.frameDuration) s = \(DecimalText.fps(m.frameDuration)) fps"
    }

    /// `YUYV 320x180: advertised 60 fps, achieved 59.9 fps (60 frames in 1.002 s), 0 drops`.
    static func measured(_ m: ModeMeasurement) -> String {
        let head =
            "\(m.pixelFormat) \(m.width)x\(m.height): advertised "
            + (m.advertisedFrameDuration.map { "\(DecimalText.fps($0)) fps" } ?? "none")
        if let e = m.error, m.frames < 2 { return head + ", not measured: \(e)" }
        var text =
            head + ", achieved " + (m.achievedFrameRate.map { "\(Seconds($0, decimals: 2)) fps" } ?? "?")
            + " (\(m.frames) frames in \(Seconds(m.seconds, decimals: 3)) s), \(m.drops) drop\(m.drops == 1 ? "" : "s")"
        if m.drops > 0, let r = m.sequenceRate { text += " (runs at \(Seconds(r, decimals: 2)) fps by sequence numbers)" }
        if m.damaged > 0 { text += ", \(m.damaged) damaged" }
        if m.shortFrames > 0 { text += ", \(m.shortFrames) short" }
        if let f = m.deliveredFraction, f < Rational(99, 100) { text += " — below what it advertises" }
        if let e = m.error { text += " (stopped: \(e))" }
        return text
    }

    static func size(_ s: SizeEntry) -> String {
        switch s.size {
        case .discrete(let w, let h): return "\(w)x\(h)"
        case .stepwise(let a, let b, let c, let d, let e, let g):
            return "\(a)x\(b) - \(c)x\(d) step \(e)/\(g)" + (s.intervalsSize.map { " (rates at \($0))" } ?? "")
        case .continuous(let a, let b, let c, let d):
            return "\(a)x\(b) - \(c)x\(d) continuous" + (s.intervalsSize.map { " (rates at \($0))" } ?? "")
        }
    }

    /// Frame rates in fps, fastest first; ranges as MIN-MAX.
    static func rates(_ s: SizeEntry) -> String {
        switch s.intervals {
        case .discrete(let l)?: return l.sorted().map { DecimalText.fps($0) }.joined(separator: " ") + " fps"
        case .stepwise(let mn, let mx, let st)?: return "\(DecimalText.fps(mx))-\(DecimalText.fps(mn)) fps (interval step \(st) s)"
        case .continuous(let mn, let mx)?: return "\(DecimalText.fps(mx))-\(DecimalText.fps(mn)) fps (continuous)"
        case nil: return "(no frame intervals: not selectable)"
        }
    }
}
