import Foundation
import SlomoCore
import SlomoV4L2
import SlomoALSA

extension DeviceService {
    /// Every sound card's capture devices.
    public static func soundCaptureDevices() -> [SoundCaptureDevice] { SoundCards.captureDevices() }
}

/// The devices-and-formats use cases (`slomo devices`, `slomo formats`, capture's device opening).
/// Every function takes the syscall seam so tests can run it against a fake driver.
public enum DeviceService {
    /// Every /dev/video* node with its QUERYCAP answer; nodes that cannot be opened go to `problems`.
    public static func devices(syscalls: V4L2Syscalls = LiveV4L2Syscalls()) -> (devices: [DeviceInfo], problems: [String]) {
        var out: [DeviceInfo] = [], problems: [String] = []
        for path in syscalls.listDevices() {
            do { out.append(try VideoDevice(path: path, syscalls: syscalls, requireCapture: false).info) } catch {
                problems.append(error.description)
            }
        }
        return (out, problems)
    }

    /// The catalog of a capture node and the selection; with `apply`, the selected mode applied and read back.
    public static func formats(
        device path: String, request: ModeRequest, apply: Bool, controls: ControlRequests = ControlRequests(),
        syscalls: V4L2Syscalls = LiveV4L2Syscalls()
    ) throws -> FormatsReport {
        let dev = try VideoDevice(path: path, syscalls: syscalls)
        let (catalog, request, best) = try select(dev, request)
        var report = FormatsReport(source: path, device: dev.info, catalog: catalog, request: request, best: best)
        if apply {
            guard let best else {
                throw DeviceError.noSelectableMode(device: path)
            }
            report.applied = try dev.apply(best, controls: controls)
        }
        return report
    }

    /// `formats --measure`: the catalog, the selection and each candidate mode (under the
    /// constraints, at most `limit`, unadvertised sizes first) streamed for `seconds` of timestamps.
    /// When nothing is selectable from the advertised intervals, `maxFps` is the fastest measured mode.
    public static func formats(
        device path: String, request: ModeRequest, measure seconds: Rational, limit: Int,
        syscalls: V4L2Syscalls = LiveV4L2Syscalls()
    ) throws -> FormatsReport {
        let dev = try VideoDevice(path: path, syscalls: syscalls)
        guard dev.info.canStream else {
            throw DeviceError.cannotStream(device: path, measuring: true)
        }
        let (catalog, request, best) = try select(dev, request)
        var report = FormatsReport(source: path, device: dev.info, catalog: catalog, request: request, best: best)
        let candidates = FormatSelection.measurementCandidates(in: catalog, for: request)
        let measured = candidates.prefix(limit).map { measure(dev, $0, seconds: seconds) }
        report.measured = measured
        report.notMeasured = candidates.count - measured.count
        if best == nil, let m = FormatSelection.best(measured: measured, for: request) { report.maxFps = MaxFpsMode(m) }
        return report
    }

    /// Streams one candidate until its timestamps span `seconds` (or 2 s of wall time more pass,
    /// or the driver stops delivering) and counts what came. Never throws: a mode the driver
    /// refuses or that delivers nothing is a measurement with an `error`.
    static func measure(_ dev: VideoDevice, _ c: MeasurementCandidate, seconds: Rational, buffers: Int = 4) -> ModeMeasurement {
        var stats = CaptureStats()
        var short: Int64 = 0
        var failure: String?
        do {
            let source = try V4L2StreamingSource(device: dev, mode: c.mode(), buffers: buffers)
            defer { source.stop() }
            let f = source.format
            // a raw frame shorter than its first plane's rows is short whatever the plane layout
            let minimum = f.isCompressed ? 1 : max(1, (f.planes.first?.bytesPerLine ?? f.bytesPerLine) * f.height)
            try source.start()
            let deadline = CaptureClock.now() + seconds + Rational(2)
            while stats.duration < seconds && stats.framesCaptured < 100_000 {
                let end = try source.next { frame in
                    stats.record(sequence: frame.sequence, timestamp: frame.timestamp)
                    if let d = frame.damage { stats.damaged(d) } else if frame.byteCount < minimum { short += 1 }
                }
                if case .disconnected(let why)? = end {
                    failure = why
                    break
                }
                if (end != nil && end != .idle) || CaptureClock.now() > deadline { break }
            }
        } catch {
            failure = "\(error)"
        }
        return ModeMeasurement(c, stats: stats, shortFrames: short, error: failure)
    }

    /// `slomo controls DEVICE`: every control with its range, value, flags and menu.
    public static func controls(device path: String, syscalls: V4L2Syscalls = LiveV4L2Syscalls()) throws -> ControlsReport {
        let dev = try VideoDevice(path: path, syscalls: syscalls, requireCapture: false)
        return ControlsReport(source: path, device: dev.info, controls: try dev.controls())
    }

    /// `slomo controls --listing FILE`: a saved `v4l2-ctl --list-ctrls-menus` text.
    /// A missing or unreadable file is an `InputError`; not a listing, a `DeviceError.badListing`.
    public static func controls(listing path: String) throws -> ControlsReport {
        let text = try readListing(path)
        do { return ControlsReport(source: path, device: nil, controls: try ControlListing.parse(text)) } catch {
            throw DeviceError.badListing(path: path, "\(error)")
        }
    }

    static func readListing(_ path: String) throws -> String {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else {
            throw InputError(path, .listing, isDir.boolValue ? .isDirectory : .missing)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(path, .listing, .notReadable)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The catalog parsed from a saved `v4l2-ctl --list-formats-ext` text, and the selection.
    /// A missing or unreadable file is an `InputError`; not a listing, a `DeviceError.badListing`.
    public static func formats(listing path: String, request: ModeRequest) throws -> FormatsReport {
        let text = try readListing(path)
        let catalog: DeviceCatalog
        do { catalog = try ListingParser.parse(text) } catch {
            throw DeviceError.badListing(path: path, "\(error)")
        }
        return FormatsReport(
            source: path, device: nil, catalog: catalog, request: request,
            best: FormatSelection.best(in: catalog, for: request))
    }

    /// Parses the constraint options as text (a `SettingError` for a malformed value).
    public static func request(format: String?, size: String?, minSize: String?, fps: String?, prefer: String?) throws(SettingError) -> ModeRequest {
        var r = ModeRequest()
        if let format {
            guard (1...4).contains(format.count), format.allSatisfy({ $0.isASCII && !$0.isWhitespace || $0 == " " }) else {
                throw SettingError(.format, format, "expected a fourcc like MJPG")
            }
            r.format = format.uppercased()
        }
        if let size { r.size = try OptionValues.size(size, option: .size) }
        if let minSize { r.minSize = try OptionValues.size(minSize, option: .minSize) }
        if let fps {
            let value = try OptionValues.rational(fps, option: .fps)
            guard value.isPositive else { throw SettingError(.fps, fps, "must be > 0") }
            r.fps = value
        }
        if let prefer {
            let list = prefer.lowercased().split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            guard !list.isEmpty, list.allSatisfy({ ["h264", "mjpeg", "raw"].contains($0) }) else {
                throw SettingError(.prefer, prefer, "expected a comma-separated list of h264, mjpeg, raw")
            }
            r.prefer = list
        }
        return r
    }

    /// The device's catalog, probed at the size that matters (the requested size, else the current
    /// one, for stepwise/continuous sizes), the request completed with that current size, and the mode chosen.
    static func select(_ dev: VideoDevice, _ request: ModeRequest) throws -> (catalog: DeviceCatalog, request: ModeRequest, best: CaptureMode?) {
        var request = request
        request.stepwiseSize = dev.currentSize()
        let catalog = try dev.catalog(probeSize: request.size ?? request.stepwiseSize)
        return (catalog, request, FormatSelection.best(in: catalog, for: request))
    }

    /// Capture's device opener: best mode under the constraints, applied, streaming with mmap.
    static func openCapture(_ r: DeviceCaptureRequest, syscalls: V4L2Syscalls) throws -> CaptureSource {
        let dev = try VideoDevice(path: r.device, syscalls: syscalls)
        guard dev.info.canStream else {
            throw DeviceError.cannotStream(device: r.device, measuring: false)
        }
        let request = try request(format: r.format, size: r.size, minSize: r.minSize, fps: r.fps, prefer: nil)
        let (catalog, completed, best) = try select(dev, request)
        var notes: [String] = []
        var chosen = best
        if chosen == nil {
            // sizes without advertised intervals (some CSI drivers): time each for a second, take the fastest
            let candidates = FormatSelection.measurementCandidates(in: catalog, for: completed, onlyUnadvertised: true)
            let measured = candidates.prefix(8).map { measure(dev, $0, seconds: Rational(1)) }
            chosen = FormatSelection.best(measured: measured, for: completed)
            if let m = chosen, let got = measured.first(where: { $0.pixelFormat == m.pixelFormat && $0.width == m.width && $0.height == m.height }),
                let rate = got.achievedFrameRate
            {
                notes.append(
                    "no frame intervals advertised: \(measured.count) mode(s) measured by streaming; "
                        + "\(m.pixelFormat) \(m.width)x\(m.height) delivered \(Seconds(rate, decimals: 3)) fps over "
                        + "\(Seconds(got.seconds, decimals: 2)) s, taken as \(DecimalText.fps(m.frameDuration)) fps")
            }
        }
        guard let mode = chosen else {
            throw DeviceError.noModeMatches(device: r.device)
        }
        dev.requestedBytesPerLine = r.bytesPerLine
        let source = try V4L2StreamingSource(device: dev, mode: mode, buffers: r.buffers, controls: r.controls)
        source.notes = notes
        return source
    }
}
