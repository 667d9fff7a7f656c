/// What VIDIOC_QUERYCAP says about a node (`slomo devices`).
public struct DeviceInfo: Sendable, Codable, Equatable {
    /// `/dev/videoN`
    public var path: String
    public var driver: String
    public var card: String
    public var bus: String
    /// The whole device's capabilities (`capabilities`).
    public var capabilities: UInt32
    /// This node's capabilities (`device_caps` when the driver fills it); the flags below come from it.
    public var deviceCaps: UInt32
    /// VIDEO_CAPTURE or VIDEO_CAPTURE_MPLANE: slomo can capture from it.
    public var isCapture: Bool
    /// Only VIDEO_CAPTURE_MPLANE: every ioctl uses the multi-planar buffer type.
    public var isMultiplanar: Bool
    /// A metadata-only node (UVC's second node per camera): listed and marked, never captured.
    public var isMetadata: Bool
    public var canStream: Bool
    /// V4L2_CAP_TIMEPERFRAME from VIDIOC_G_PARM (the rate can be set); nil when not asked or not answered.
    public var hasTimePerFrame: Bool?
    /// v4l2-ctl's names of the node's capabilities.
    public var capabilityNames: [String]

    public init(
        path: String, driver: String, card: String, bus: String, capabilities: UInt32, deviceCaps: UInt32, isCapture: Bool,
        isMultiplanar: Bool, isMetadata: Bool, canStream: Bool, hasTimePerFrame: Bool?, capabilityNames: [String]
    ) {
        self.path = path
        self.driver = driver
        self.card = card
        self.bus = bus
        self.capabilities = capabilities
        self.deviceCaps = deviceCaps
        self.isCapture = isCapture
        self.isMultiplanar = isMultiplanar
        self.isMetadata = isMetadata
        self.canStream = canStream
        self.hasTimePerFrame = hasTimePerFrame
        self.capabilityNames = capabilityNames
    }
}

/// What the driver really set after `apply`, read back with G_FMT / G_PARM / G_CTRL — never
/// the request echoed. `exact` and `summary` say in one place whether the driver changed anything.
public struct AppliedMode: Sendable, Codable, Equatable {
    public var requested: CaptureMode
    public var pixelFormat: FourCC
    public var width: Int
    public var height: Int
    public var bytesPerLine: Int
    /// The frame duration the driver reports (G_PARM), or, when it reports none, the DV timings' one.
    public var frameDuration: Rational?
    /// HDMI-style inputs: 1 / (pixel clock / total frame size) from VIDIOC_G_DV_TIMINGS.
    public var dvTimingsFrameDuration: Rational?
    /// Whether the driver has V4L2_CAP_TIMEPERFRAME (the rate can be set with S_PARM).
    public var timePerFrameSupported: Bool
    /// Controls that could lower the rate in low light, and their values read back after apply.
    public var controls: [String: Int32]
    /// One sentence per difference between what was asked and what the driver did, or what it refused.
    public var adjustments: [String]
    /// `--shutter`, `--gain`, `--control`…: each write, with what was asked and read back (nil: none asked).
    public var cameraControls: [AppliedControl]?
    /// `--zoom` on a camera without a zoom control: the sensor area cropped (selection API).
    public var crop: AppliedCrop?
    /// True when format, size and frame duration read back exactly as requested.
    public var exact: Bool
    /// One line for people: what runs now, and whether the driver changed the request.
    public var summary: String

    public init(
        requested: CaptureMode, pixelFormat: FourCC, width: Int, height: Int, bytesPerLine: Int, frameDuration: Rational?,
        dvTimingsFrameDuration: Rational? = nil, timePerFrameSupported: Bool, controls: [String: Int32], adjustments: [String]
    ) {
        self.requested = requested
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine
        self.frameDuration = frameDuration
        self.dvTimingsFrameDuration = dvTimingsFrameDuration
        self.timePerFrameSupported = timePerFrameSupported
        self.controls = controls
        self.adjustments = adjustments
        exact =
            pixelFormat == requested.pixelFormat && width == requested.width && height == requested.height
            && frameDuration == requested.frameDuration
        let rate = frameDuration.map { "\($0) s (\(DecimalText.fps($0)) fps)" } ?? "an unknown frame duration"
        let now = "\(pixelFormat) \(width)x\(height) at \(rate)"
        if exact {
            summary = "driver set \(now), exactly as requested"
        } else {
            let asked = "\(requested.pixelFormat) \(requested.width)x\(requested.height) at \(requested.frameDuration) s"
            summary = "driver set \(now), NOT as requested (\(asked), \(DecimalText.fps(requested.frameDuration)) fps)"
        }
    }
}

/// One control write of a capture or `formats --apply`, as the report and the recording's
/// metadata keep it: the option, what it asked, the value written, the value read back right
/// after and (capture) when the camera stopped — a locked value that moved shows here.
public struct AppliedControl: Sendable, Codable, Equatable {
    public var name: String
    /// The V4L2 control id (nil for a control known only by name).
    public var id: UInt32?
    /// `--gain lock`, `--control brightness=200`.
    public var option: String
    /// `lock`, `auto`, `manual`, `1/2000 s`, `200`.
    public var requested: String
    public var written: Int64?
    public var readBack: Int64?
    /// The value read back, as a person reads it (a menu entry's name, on/off).
    public var readBackText: String?
    /// Read again when the capture ended (nil until then, or when it could not be read).
    public var atEnd: Int64?
    public var note: String?

    public init(name: String, option: String, requested: String, written: Int64?, readBack: Int64?, readBackText: String? = nil, note: String? = nil) {
        self.name = name
        self.option = option
        self.requested = requested
        self.written = written
        self.readBack = readBack
        self.readBackText = readBackText
        self.note = note
    }
}

extension AppliedControl {
    /// The recording's `slomo_controls` tag: `gain_automatic=0 (--gain lock); gain=30 (--gain lock)`.
    public static func metadataText(_ list: [AppliedControl]) -> String {
        list.map { "\($0.name)=\($0.readBack.map(String.init) ?? $0.readBackText ?? $0.written.map(String.init) ?? "?") (\($0.option))" }.joined(
            separator: "; ")
    }

    /// A value that moved between the start and the end of the capture, as one warning.
    public var driftWarning: String? {
        guard let a = readBack, let b = atEnd, a != b else { return nil }
        return "\(name) moved during the capture: \(a) after \(option), \(b) at the end"
    }
}

/// A pixel rectangle (V4L2 selection).
public struct PixelRect: Sendable, Codable, Equatable, CustomStringConvertible {
    public var left: Int, top: Int, width: Int, height: Int
    public init(left: Int, top: Int, width: Int, height: Int) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height) at \(left),\(top)" }

    /// The middle 1/factor of `self`, sizes rounded down to even, centred on even offsets.
    public func centred(zoom factor: Rational) -> PixelRect {
        let w = max(2, (Rational(width) / factor).floor & ~1), h = max(2, (Rational(height) / factor).floor & ~1)
        return PixelRect(left: left + ((width - Int(w)) / 2) & ~1, top: top + ((height - Int(h)) / 2) & ~1, width: Int(w), height: Int(h))
    }
}

/// `--zoom` by cropping: the sensor area's bounds, the crop asked and the one read back.
public struct AppliedCrop: Sendable, Codable, Equatable {
    public var factor: Rational
    public var bounds: PixelRect
    public var requested: PixelRect
    public var readBack: PixelRect
    public init(factor: Rational, bounds: PixelRect, requested: PixelRect, readBack: PixelRect) {
        self.factor = factor
        self.bounds = bounds
        self.requested = requested
        self.readBack = readBack
    }
}

/// Rates as short decimals for people (`60`, `12.5`, `29.97`, `100.022`); JSON keeps the fraction.
public enum DecimalText {
    /// 1/`duration` with at most 3 decimals, trailing zeros dropped.
    public static func fps(_ duration: Rational) -> String {
        duration.isPositive ? Seconds(Rational.one / duration, decimals: 3).description : "?"
    }
}
