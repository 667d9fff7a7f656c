/// What VIDIOC_QUERYCAP says about a node.
public struct DeviceInfo: Sendable, Codable, Equatable {
    public var path: String
    public var driver: String
    public var card: String
    public var bus: String
    public var capabilities: UInt32
    public var deviceCaps: UInt32
    public var isCapture: Bool
    public var isMultiplanar: Bool
    public var isMetadata: Bool
    public var canStream: Bool
    public var hasTimePerFrame: Bool?
    public var capabilityNames: [String]

    public init(path: String, driver: String, card: String, bus: String, capabilities: UInt32, deviceCaps: UInt32, isCapture: Bool,
                isMultiplanar: Bool, isMetadata: Bool, canStream: Bool, hasTimePerFrame: Bool?, capabilityNames: [String]) {
        self.path = path; self.driver = driver; self.card = card; self.bus = bus; self.capabilities = capabilities
        self.deviceCaps = deviceCaps; self.isCapture = isCapture; self.isMultiplanar = isMultiplanar; self.isMetadata = isMetadata
        self.canStream = canStream; self.hasTimePerFrame = hasTimePerFrame; self.capabilityNames = capabilityNames
    }
}

/// What the driver really set after `apply`, read back with G_FMT / G_PARM / G_CTRL.
public struct AppliedMode: Sendable, Codable, Equatable {
    public var requested: CaptureMode
    public var pixelFormat: FourCC
    public var width: Int
    public var height: Int
    public var bytesPerLine: Int
    public var frameDuration: Rational?
    public var timePerFrameSupported: Bool
    /// Controls that could lower the rate in low light, and what they are now.
    public var controls: [String: Int32]
    /// One sentence per difference between what was asked and what the driver did.
    public var adjustments: [String]

    public init(requested: CaptureMode, pixelFormat: FourCC, width: Int, height: Int, bytesPerLine: Int, frameDuration: Rational?,
                timePerFrameSupported: Bool, controls: [String: Int32], adjustments: [String]) {
        self.requested = requested; self.pixelFormat = pixelFormat; self.width = width; self.height = height
        self.bytesPerLine = bytesPerLine; self.frameDuration = frameDuration; self.timePerFrameSupported = timePerFrameSupported
        self.controls = controls; self.adjustments = adjustments
    }
}

