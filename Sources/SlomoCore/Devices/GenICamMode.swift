/// GenICam cameras have no list of discrete modes: the rate follows the pixel format, the region
/// (Width, Height, OffsetX, OffsetY), binning, exposure and the link. These are the pure parts of
/// choosing one: the pixel formats slomo can store, and the region a request asks for, aligned to
/// the camera's increments (GenICam SFNC names throughout).
public enum GenICamPixelFormat {
    /// The GenICam PixelFormat names slomo stores, with the V4L2 fourcc the ring and the writer use
    /// for the same memory layout (unpacked samples, little-endian): the capture pixel-format table's.
    public static let fourccs: [String: String] = Dictionary(
        uniqueKeysWithValues: CapturePixelFormat.table.flatMap { row in row.genicam.map { ($0, row.fourcc) } })

    /// Bytes per pixel of a stored format (nil: not stored).
    public static func bytesPerPixel(_ name: String) -> Int? { CapturePixelFormat.genicam(name)?.bytesPerPixel }

    /// Whether slomo can store frames of this format.
    public static func isStored(_ name: String) -> Bool { CapturePixelFormat.genicam(name) != nil }
}

/// An integer feature's range and step, as the camera reports them.
public struct GenICamRange: Sendable, Equatable, Codable {
    public var min: Int64
    public var max: Int64
    public var increment: Int64
    public init(min: Int64, max: Int64, increment: Int64 = 1) {
        self.min = min
        self.max = max
        self.increment = Swift.max(1, increment)
    }

    /// The nearest value at or below `v` on the grid min + k·increment, within the range (in 128
    /// bits: a feature without a minimum reports Int64.min).
    public func floor(_ v: Int64) -> Int64 {
        let c = Int128(Swift.min(Swift.max(v, min), max)), lo = Int128(min), inc = Int128(increment)
        return Int64(lo + (c - lo) / inc * inc)
    }
    public func contains(_ v: Int64) -> Bool { v >= min && v <= max && (Int128(v) - Int128(min)) % Int128(increment) == 0 }
}

/// A region of the sensor: the size first, then where it lies.
public struct GenICamRegion: Sendable, Equatable, Codable, CustomStringConvertible {
    public var x: Int64, y: Int64, width: Int64, height: Int64
    public init(x: Int64, y: Int64, width: Int64, height: Int64) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// The region `size` (nil: the whole sensor at this binning) at `offset` (nil: centred),
    /// on the camera's grid. The size must be offered exactly (a request never silently shrinks);
    /// a centred offset is rounded down onto the offset grid.
    /// - Parameters: `sensor`: the largest width and height at the current binning.
    public static func plan(
        size: (Int64, Int64)?, offset: (Int64, Int64)?, sensor: (Int64, Int64),
        width: GenICamRange, height: GenICamRange, offsetX: GenICamRange, offsetY: GenICamRange
    ) throws(SettingError) -> GenICamRegion {
        let w = size?.0 ?? width.floor(sensor.0), h = size?.1 ?? height.floor(sensor.1)
        guard width.contains(w), height.contains(h), w <= sensor.0, h <= sensor.1 else {
            throw SettingError(
                .size, "\(w)x\(h)",
                "the camera takes widths \(width.min)...\(Swift.min(width.max, sensor.0)) in steps of \(width.increment) and heights \(height.min)...\(Swift.min(height.max, sensor.1)) in steps of \(height.increment)"
            )
        }
        let x: Int64, y: Int64
        if let o = offset {
            // on the offsets' grid (their maximum follows the region, not yet set)
            func onGrid(_ v: Int64, _ r: GenICamRange) -> Bool { (Int128(v) - Int128(r.min)) % Int128(r.increment) == 0 }
            guard o.0 >= 0, o.1 >= 0, o.0 <= sensor.0 - w, o.1 <= sensor.1 - h, onGrid(o.0, offsetX), onGrid(o.1, offsetY) else {
                throw SettingError(
                    .offset, "\(o.0),\(o.1)",
                    "a \(w)x\(h) region fits at x 0...\(sensor.0 - w) in steps of \(offsetX.increment), y 0...\(sensor.1 - h) in steps of \(offsetY.increment)")
            }
            (x, y) = o
        } else {
            x = offsetX.floor((sensor.0 - w) / 2)
            y = offsetY.floor((sensor.1 - h) / 2)
        }
        return GenICamRegion(x: x, y: y, width: w, height: h)
    }
}

/// What `--camera-trigger` asks: every frame exposed on a FrameStart trigger from a line or from
/// slomo's software trigger.
public enum CameraTrigger: Sendable, Equatable, CustomStringConvertible {
    case line(String)
    case software

    public init(parsing text: String) throws(SettingError) {
        switch text.lowercased() {
        case "software": self = .software
        case let l where l.hasPrefix("line") && Int(l.dropFirst(4)) != nil: self = .line("Line" + l.dropFirst(4))
        default: throw SettingError(.cameraTrigger, text, "expected line0, line1… or software")
        }
    }
    /// The TriggerSource value.
    public var source: String {
        switch self {
        case .line(let l): l
        case .software: "Software"
        }
    }
    public var description: String { source }
}

/// A GenICam camera's modes, as `slomo formats genicam:ID` shows them.
public struct GenICamFormats: Sendable, Codable, Equatable {
    public var camera: String
    public var vendor: String
    public var model: String
    public var serial: String
    public var `protocol`: String
    public struct PixelFormat: Sendable, Codable, Equatable {
        public var name: String
        /// The fourcc slomo stores it as; nil: offered by the camera, not stored by slomo.
        public var storedAs: String?
        public init(name: String, storedAs: String?) {
            self.name = name
            self.storedAs = storedAs
        }
    }
    public var pixelFormats: [PixelFormat]
    public var pixelFormat: String
    public var sensorWidth: Int64
    public var sensorHeight: Int64
    public var width: GenICamRange
    public var height: GenICamRange
    public var offsetX: GenICamRange
    public var offsetY: GenICamRange
    public var binningHorizontal: GenICamRange?
    public var binningVertical: GenICamRange?
    /// The region asked (or the current one): the frame-rate bounds are for it.
    public var region: GenICamRegion
    public var frameRateMin: Double?
    public var frameRateMax: Double?
    /// Microseconds.
    public var exposureMin: Double?
    public var exposureMax: Double?
    public var gainMin: Double?
    public var gainMax: Double?
    /// TriggerSource values for `--camera-trigger`.
    public var triggerSources: [String]
    /// `formats --measure`: frames per second received in the asked region and format.
    public var measuredFps: Double?
    public var measuredFrames: Int64?
    public var measuredDamaged: Int64?
    public init(
        camera: String, vendor: String, model: String, serial: String, protocol: String, pixelFormats: [PixelFormat], pixelFormat: String,
        sensorWidth: Int64, sensorHeight: Int64, width: GenICamRange, height: GenICamRange, offsetX: GenICamRange, offsetY: GenICamRange,
        region: GenICamRegion, triggerSources: [String]
    ) {
        self.camera = camera
        self.vendor = vendor
        self.model = model
        self.serial = serial
        self.protocol = `protocol`
        self.pixelFormats = pixelFormats
        self.pixelFormat = pixelFormat
        self.sensorWidth = sensorWidth
        self.sensorHeight = sensorHeight
        self.width = width
        self.height = height
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.region = region
        self.triggerSources = triggerSources
    }
}

/// One GenICam feature as `slomo controls genicam:ID` lists it.
public struct GenICamFeature: Sendable, Codable, Equatable {
    public var name: String
    /// integer, float, enumeration, boolean, command, string.
    public var type: String
    /// RO, WO, RW (or NA/NI: not available, not implemented now).
    public var access: String
    public var value: String?
    public var min: Double?
    public var max: Double?
    public var increment: Double?
    public var unit: String?
    public var entries: [String]?
    public init(name: String, type: String, access: String) {
        self.name = name
        self.type = type
        self.access = access
    }
}

/// A GenICam stream's transport as the report gives it: buffers, packet size, socket buffer, and
/// the stream statistics Aravis counted; the device clock against CLOCK_MONOTONIC.
public struct TransportReport: Sendable, Codable, Equatable {
    public var `protocol`: String
    public var buffers: Int
    public var packetSize: Int?
    /// The receive socket buffer asked, and the kernel's cap on it (`net.core.rmem_max`).
    public var socketBufferBytes: Int?
    public var socketBufferCap: Int?
    public var completed: UInt64 = 0
    public var failures: UInt64 = 0
    public var underruns: UInt64 = 0
    /// Aravis's stream counters by name (GigE Vision: n_missing_packets, n_resent_packets…).
    public var counters: [String: UInt64] = [:]
    /// Frame ids the camera numbered but slomo never received (ranges, first and last; at most 256).
    public var missingFrameIds: [[UInt64]] = []
    /// Frames that arrived damaged, by Aravis's buffer status.
    public var damagedByStatus: [String: Int64] = [:]
    /// The first and last frame id received, and the wraps of a 16-bit counter between them.
    public var firstFrameId: UInt64?
    public var lastFrameId: UInt64?
    public var frameIdWraps: Int64 = 0
    /// The camera's clock fitted to the host's arrival times: its rate error and the residuals.
    public var deviceClockPpm: Double?
    public var clockResidualP50Micros: Int64?
    public var clockResidualMaxMicros: Int64?
    /// `--camera-trigger`: the source, the pulses counted (software) and their rate from the frames.
    public var cameraTrigger: String?
    public var softwareTriggersSent: Int64?
    public init(protocol: String, buffers: Int) {
        self.protocol = `protocol`
        self.buffers = buffers
    }
}
