import SlomoCore
import SlomoV4L2

/// How `slomo capture DEVICE` picks and opens a camera.
public struct DeviceCaptureRequest: Sendable {
    public var device: String
    /// Constraints for the mode selection (same meaning as `slomo formats`).
    public var format: String?
    public var size: String?
    public var minSize: String?
    public var fps: String?
    public var buffers = 8
    /// Rows padded to this many bytes (raw formats; the driver may adjust it). Nil: the driver's choice.
    public var bytesPerLine: Int?
    /// GenICam cameras: where the `size` region lies on the sensor, `X,Y` (nil: centred).
    public var offset: String?
    /// GenICam cameras: every frame exposed on a FrameStart trigger (`line0`, `line1`…, `software`).
    public var cameraTrigger: String?
    /// `--shutter`, `--gain`, `--control`…: set after the mode, checked against the device first.
    public var controls = ControlRequests()
    public init(device: String) { self.device = device }

    /// The ranges the driver options take (`SettingError`, the same words for every front end).
    public func validate() throws(SettingError) {
        guard (2...64).contains(buffers) else { throw SettingError(.buffers, String(buffers), "must be in 2...64", quoted: false) }
        if let b = bytesPerLine, !(1...1 << 20).contains(b) { throw SettingError(.bytesPerLine, String(b), "must be in 1...1048576", quoted: false) }
    }
}

/// Opens capture sources: a V4L2 node (the mode picked, the rate locked and read back, the
/// controls set) or a GenICam camera, `genicam:ID` (`GenICamService`: region, format, controls, rate,
/// trigger, in that order, read back). `syscalls` is the kernel (tests pass a fake driver).
public enum DeviceCapture {
    public static func open(_ r: DeviceCaptureRequest, syscalls: V4L2Syscalls = LiveV4L2Syscalls()) throws -> CaptureSource {
        if GenICamService.isGenICam(r.device) { return try GenICamService.openCapture(r) }
        if r.offset != nil {
            throw SettingError(.offset, r.offset!, "is for GenICam cameras (genicam:ID); a V4L2 node's region is --size, or a crop with --zoom")
        }
        if r.cameraTrigger != nil { throw SettingError(.cameraTrigger, r.cameraTrigger!, "is for GenICam cameras (genicam:ID)") }
        return try DeviceService.openCapture(r, syscalls: syscalls)
    }
}
