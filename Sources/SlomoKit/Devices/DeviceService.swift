import Foundation
import SlomoCore
import SlomoV4L2

/// `"maxFps"` in `slomo formats --json`.
public struct MaxFpsMode: Codable, Sendable, Equatable {
    public var pixelFormat: String
    public var width: Int
    public var height: Int
    public var frameDuration: Rational
    public var fps: Double
    public var compressed: Bool
    public var exceedsUSB2Budget: Bool

    init(_ m: CaptureMode) {
        pixelFormat = m.pixelFormat; width = m.width; height = m.height; frameDuration = m.frameDuration
        fps = (m.fps.doubleValue * 1000).rounded() / 1000; compressed = m.compressed; exceedsUSB2Budget = m.exceedsUSB2Budget
    }
}

public struct FormatsReport: Codable, Sendable {
    public var source: String
    public var device: DeviceInfo?
    public var catalog: DeviceCatalog
    public var maxFps: MaxFpsMode?
    public var applied: AppliedMode?

    enum CodingKeys: String, CodingKey { case source, device, catalog, maxFps, applied }
    /// `maxFps` is always present (null when nothing is selectable).
    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source, forKey: .source)
        try c.encodeIfPresent(device, forKey: .device)
        try c.encode(catalog, forKey: .catalog)
        try c.encode(maxFps, forKey: .maxFps)
        try c.encodeIfPresent(applied, forKey: .applied)
    }
}

/// Devices and formats use cases (`slomo devices`, `slomo formats`, capture's device opening).
public enum DeviceService {
    nonisolated(unsafe) public static var syscalls: V4L2Syscalls = LiveV4L2Syscalls()

    /// Every /dev/video* node with its QUERYCAP answer, in numeric order; nodes that cannot be
    /// opened are reported as errors in `problems`.
    public static func devices() -> (devices: [DeviceInfo], problems: [String]) {
        var out: [DeviceInfo] = [], problems: [String] = []
        for path in syscalls.listDevices() {
            do { out.append(try VideoDevice(path: path, syscalls: syscalls, requireCapture: false).info) } catch { problems.append(error.description) }
        }
        return (out, problems)
    }

    public static func formats(device path: String, request: ModeRequest, apply: Bool) throws -> FormatsReport {
        let dev = try VideoDevice(path: path, syscalls: syscalls)
        let catalog = try dev.catalog()
        var request = request
        request.stepwiseSize = dev.currentSize()
        let best = FormatSelection.best(in: catalog, for: request)
        var report = FormatsReport(source: path, device: dev.info, catalog: catalog, maxFps: best.map(MaxFpsMode.init))
        if apply {
            guard let best else { throw SimpleFailure("\(path): no selectable mode matches the constraints", .unavailable) }
            report.applied = try dev.apply(best)
        }
        return report
    }

    public static func formats(listing path: String, request: ModeRequest) throws -> FormatsReport {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue,
              let data = FileManager.default.contents(atPath: path) else {
            throw SimpleFailure("\(path): cannot read listing: \(isDir.boolValue ? "it is a directory" : "no such file")", .noInput)
        }
        let catalog: DeviceCatalog
        do { catalog = try ListingParser.parse(String(decoding: data, as: UTF8.self)) } catch {
            throw SimpleFailure("\(path): \(error)", .dataError)
        }
        return FormatsReport(source: path, device: nil, catalog: catalog, maxFps: FormatSelection.best(in: catalog, for: request).map(MaxFpsMode.init))
    }

    /// Parses the CLI's constraint options.
    public static func request(format: String?, size: String?, minSize: String?, fps: String?, prefer: String?) throws(SimpleFailure) -> ModeRequest {
        func wh(_ t: String, _ o: String) throws(SimpleFailure) -> (Int, Int) {
            let p = t.lowercased().split(separator: "x").compactMap { Int($0) }
            guard p.count == 2, p[0] > 0, p[1] > 0 else { throw SimpleFailure("\(o) '\(t)': expected WIDTHxHEIGHT", .usage) }
            return (p[0], p[1])
        }
        var r = ModeRequest()
        if let format {
            guard (1...4).contains(format.count) else { throw SimpleFailure("--format '\(format)': expected a fourcc like MJPG", .usage) }
            r.format = format.uppercased()
        }
        if let size { r.size = try wh(size, "--size") }
        if let minSize { r.minSize = try wh(minSize, "--min-size") }
        if let fps {
            do { r.fps = try Rational(parsing: fps) } catch { throw SimpleFailure("--fps '\(fps)': \(error)", .usage) }
            guard r.fps!.isPositive else { throw SimpleFailure("--fps '\(fps)': must be > 0", .usage) }
        }
        if let prefer {
            let list = prefer.lowercased().split(separator: ",").map(String.init)
            guard !list.isEmpty, list.allSatisfy({ ["h264", "mjpeg", "raw"].contains($0) }) else {
                throw SimpleFailure("--prefer '\(prefer)': expected a list of h264, mjpeg, raw", .usage)
            }
            r.prefer = list
        }
        return r
    }

    /// Capture's device opener: best mode under the constraints, applied, streaming with mmap.
    static func openCapture(_ r: DeviceCaptureRequest) throws -> CaptureSource {
        let dev = try VideoDevice(path: r.device, syscalls: syscalls)
        guard dev.info.canStream else {
            throw SimpleFailure("\(r.device): the driver cannot stream (no V4L2_CAP_STREAMING)", .unavailable)
        }
        var request = try request(format: r.format, size: r.size, minSize: r.minSize, fps: r.fps, prefer: nil)
        request.stepwiseSize = dev.currentSize()
        guard let mode = FormatSelection.best(in: try dev.catalog(), for: request) else {
            throw SimpleFailure("\(r.device): no capture mode matches the constraints", .unavailable)
        }
        return try V4L2StreamingSource(device: dev, mode: mode, buffers: r.buffers)
    }
}
