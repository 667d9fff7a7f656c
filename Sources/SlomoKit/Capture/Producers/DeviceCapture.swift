import SlomoCore

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
    /// `--shutter`, `--gain`, `--control`…: set after the mode, checked against the device first.
    public var controls = ControlRequests()
    public init(device: String) { self.device = device }

    /// The ranges the driver options take (`SettingError`, the same words for every front end).
    public func validate() throws(SettingError) {
        guard (2...64).contains(buffers) else { throw SettingError(.buffers, String(buffers), "must be in 2...64", quoted: false) }
        if let b = bytesPerLine, !(1...1 << 20).contains(b) { throw SettingError(.bytesPerLine, String(b), "must be in 1...1048576", quoted: false) }
    }
}

/// Opens V4L2 capture sources. The V4L2 layer installs `opener`; without it, devices are unavailable.
public enum DeviceCapture {
    nonisolated(unsafe) public static var opener: ((DeviceCaptureRequest) throws -> CaptureSource)? = DeviceService.openCapture

    public static func open(_ r: DeviceCaptureRequest) throws -> CaptureSource {
        guard let opener else {
            throw CaptureError.noV4L2(device: r.device)
        }
        return try opener(r)
    }
}
