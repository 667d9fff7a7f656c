import Foundation
import SlomoAravis
import SlomoCore

public typealias GenICamDeviceInfo = SlomoAravis.GenICamDeviceInfo
public typealias GenICamError = SlomoAravis.GenICamError

/// GenICam cameras (`genicam:ID`) for `slomo devices`, `formats`, `controls` and `capture`: the
/// same use cases V4L2 nodes have, through Aravis (SlomoAravis).
public enum GenICamService {
    public static let prefix = "genicam:"

    /// Whether a device argument names a GenICam camera.
    public static func isGenICam(_ device: String) -> Bool { device.hasPrefix(prefix) }

    /// `genicam:ID` → ID (exit 64 when empty).
    public static func id(of device: String) throws -> String {
        let id = String(device.dropFirst(prefix.count))
        guard !id.isEmpty else {
            throw SettingError(Setting("device"), device, "give the camera after genicam: (its id, serial or IP address; see 'slomo devices')")
        }
        return id
    }

    /// Every GenICam camera on the interfaces searched (`SLOMO_GENICAM_INTERFACES`).
    public static func devices() -> [GenICamDeviceInfo] { GenICamSystem.list() }

    /// The interfaces searched, for messages.
    public static var interfaces: [String] { GenICamSystem.interfaces() }

    /// The capture request's mode and controls as Aravis's.
    static func request(_ r: DeviceCaptureRequest, fpsAtMost: Bool = false) throws -> GenICamRequest {
        var g = GenICamRequest()
        g.pixelFormat = r.format
        if let s = r.size {
            let p = try OptionValues.size(s, option: .size)
            g.size = (Int64(p.width), Int64(p.height))
        }
        if r.minSize != nil { throw SettingError(.minSize, r.minSize!, "GenICam cameras take an exact --size WxH (a region of the sensor)") }
        if let o = r.offset {
            let parts = o.split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], x >= 0, y >= 0 else { throw SettingError(.offset, o, "expected X,Y in pixels") }
            g.offset = (x, y)
        }
        if let f = r.fps { g.fps = try OptionValues.rational(f, option: .fps) }
        g.controls = r.controls
        if let t = r.cameraTrigger { g.cameraTrigger = try CameraTrigger(parsing: t) }
        if g.cameraTrigger == .software && g.fps == nil {
            throw SettingError(.cameraTrigger, "software", "slomo sends the software triggers at --fps N: give the rate")
        }
        g.buffers = max(r.buffers, 64)
        return g
    }

    /// `slomo capture genicam:ID`: the camera opened, its region, format, controls, rate and
    /// trigger set in that order and read back; streaming starts with the capture.
    public static func openCapture(_ r: DeviceCaptureRequest) throws -> CaptureSource {
        let g = try request(r)
        let camera = try GenICamCamera(id: try id(of: r.device))
        return try GenICamSource(camera: camera, request: g)
    }

    /// `slomo formats genicam:ID [--format …] [--size …]`: the camera's modes and the frame-rate
    /// bounds for the asked region and format (set on the camera to ask; nothing streams).
    /// With `measure`, the mode streams that long and the frames received are counted.
    public static func formats(device: String, format: String?, size: String?, offset: String?, measure seconds: Rational?) throws -> GenICamFormats {
        var r = DeviceCaptureRequest(device: device)
        r.format = format
        r.size = size
        r.offset = offset
        let g = try request(r)
        let camera = try GenICamCamera(id: try id(of: device))
        let asked = format != nil || size != nil || offset != nil || seconds != nil
        var f = try camera.formats(for: asked ? g : nil)
        if let seconds {
            let source = try GenICamSource(camera: camera, request: g)
            var stats = CaptureStats()
            var damaged: Int64 = 0
            try source.start()
            let deadline = CaptureClock.now() + seconds + Rational(2)
            while stats.duration < seconds && CaptureClock.now() < deadline {
                let end = try source.next { frame in
                    stats.record(sequence: frame.sequence, timestamp: frame.timestamp, counter: source.frameCounter)
                    if frame.damage != nil { damaged += 1 }
                }
                if case .disconnected(let why)? = end {
                    source.stop()
                    throw GenICamError(camera: camera.id, operation: "measure", reason: why, kind: .ioFailed)
                }
            }
            source.stop()
            f.measuredFrames = stats.framesCaptured
            f.measuredDamaged = damaged
            if stats.framesCaptured > 1, stats.duration.isPositive {
                f.measuredFps = (Rational(stats.framesCaptured - 1) / stats.duration).doubleValue
            }
        }
        return f
    }

    /// `slomo controls genicam:ID`: every feature with its type, range, entries, access and unit.
    public static func controls(device: String) throws -> [GenICamFeature] {
        try GenICamCamera(id: try id(of: device)).features()
    }
}
