/// What a capture asks of a GenICam camera (`slomo capture genicam:ID …`).
public struct GenICamRequest: Sendable {
    /// A GenICam PixelFormat name (`Mono8`); nil: the current one if slomo stores it, else the first stored one.
    public var pixelFormat: String?
    public var size: (Int64, Int64)?
    /// Nil: the region centred on the sensor.
    public var offset: (Int64, Int64)?
    /// Nil: the fastest the camera allows for the region and format.
    public var fps: Rational?
    public var controls = ControlRequests()
    public var cameraTrigger: CameraTrigger?
    /// Stream buffers Aravis fills (at least 2).
    public var buffers = 64
    /// GigE Vision: the receive socket buffer (bytes; nil: room for 4 frames, at least 4 MiB) and
    /// the packet size (nil: negotiated).
    public var socketBufferBytes: Int?
    public var packetSize: Int?
    public init() {}
}

/// What a GenICam camera reports before anything is written (acquisition stopped): what the
/// set-up plan is made against.
public struct GenICamCameraState: Sendable, Equatable {
    /// PixelFormat's entries, and its value now.
    public var pixelFormats: [String]
    public var pixelFormat: String
    /// Which of `GenICamSetupPlanner.consulted` the camera has (available now).
    public var features: Set<String>
    /// TriggerSource's entries (empty: no trigger).
    public var triggerSources: [String]
    public init(pixelFormats: [String], pixelFormat: String, features: Set<String>, triggerSources: [String]) {
        self.pixelFormats = pixelFormats
        self.pixelFormat = pixelFormat
        self.features = features
        self.triggerSources = triggerSources
    }
}

/// One step of a GenICam camera's set-up, in the order the camera needs them. Steps whose values
/// depend on what the camera reports after the steps before (the region's grid, the rate's and the
/// exposure's bounds) carry the request; the executor (`GenICamCamera.apply`) reads the camera then.
public enum GenICamStep: Sendable, Equatable {
    /// PixelFormat (only when it is not the camera's already).
    case pixelFormat(String)
    /// OffsetX or OffsetY to 0, before the region (Width's maximum is what OffsetX leaves of the
    /// sensor); a refusal is ignored.
    case zeroOffset(String)
    /// The region `size` (nil: the sensor) at `offset` (nil: centred), on the grid the camera
    /// reports once the offsets are 0 (`GenICamRegion.plan`).
    case region(size: Pair?, offset: Pair?)
    /// Every trigger off: the camera runs free until the FrameStart trigger (the last step).
    case clearTriggers
    /// A feature set from text by its type, and read back (`GenICamCamera.set`).
    case set(String, String)
    /// The exposure time (`--shutter`), checked against the bounds the camera gives now.
    case exposureTime(feature: String, seconds: Rational)
    /// AcquisitionFrameRate: `fps` (nil: the highest), within the bounds the format, region and
    /// exposure leave; read back.
    case frameRate(Rational?)
    /// `--shutter-angle`: the exposure time as a share of the rate read back, ExposureAuto off
    /// first when the camera has it.
    case shutterAngle(feature: String, degrees: Rational, exposureAutoOff: Bool)
    /// The FrameStart trigger from `source`, TriggerMode On (after the rate: Aravis's frame-rate
    /// call switches triggers off, aravis#628).
    case frameStartTrigger(String)
    /// What the report lists for the steps before: `feature` read back now, for `option`.
    case report(feature: String, option: String, requested: String)

    /// Two integers: a size (width, height) or an offset (x, y).
    public struct Pair: Sendable, Equatable {
        public var first: Int64, second: Int64
        public init(_ first: Int64, _ second: Int64) {
            self.first = first
            self.second = second
        }
    }
}

/// A set-up planned: the pixel format chosen and the steps.
public struct GenICamSetupPlan: Sendable, Equatable {
    public var pixelFormat: String
    public var steps: [GenICamStep]
}

/// A request a camera cannot take, refused before anything is written.
public struct GenICamRefusal: Error, Sendable, Equatable {
    /// The option or feature (`--gain`, `PixelFormat Mono12`) and why.
    public var operation: String
    public var reason: String
    public var kind: FailureKind
    public init(_ operation: String, _ reason: String, _ kind: FailureKind) {
        self.operation = operation
        self.reason = reason
        self.kind = kind
    }
}

/// The order GenICam cameras need, as a pure function of the request and what the camera reports
/// (V4L2's is `ControlPlanner`): the format and region (the mode); triggers off (free-running);
/// exposure, gain and white balance (they bound the rate); the frame rate; `--shutter-angle` once
/// the rate is known; `--control`s in the order given; the FrameStart trigger last. Refuses
/// before anything is written: a format not offered or not stored, a feature the camera lacks,
/// kelvin, focus or zoom (no standard feature), a trigger source it has not.
public enum GenICamSetupPlanner {
    /// The features whose presence changes the plan (what `GenICamCameraState.features` holds).
    public static let consulted = [
        "OffsetX", "OffsetY", "TriggerMode", "ExposureAuto", "ExposureTime", "ExposureTimeAbs", "GainAuto", "Gain", "GainRaw", "GainAbs",
        "BalanceWhiteAuto",
    ]

    /// The plan for `r`; `modeOnly`: the format and region only (`slomo formats` with constraints).
    public static func plan(_ r: GenICamRequest, camera: GenICamCameraState, modeOnly: Bool = false) throws(GenICamRefusal) -> GenICamSetupPlan {
        var p = GenICamPlanning(camera: camera)
        let format = try pixelFormat(r.pixelFormat, offered: camera.pixelFormats, current: camera.pixelFormat)
        if format != camera.pixelFormat { p.steps.append(.pixelFormat(format)) }
        for offset in ["OffsetX", "OffsetY"] where p.has(offset) { p.steps.append(.zeroOffset(offset)) }
        p.steps.append(.region(size: r.size.map { .init($0.0, $0.1) }, offset: r.offset.map { .init($0.0, $0.1) }))
        if !modeOnly {
            if p.has("TriggerMode") { p.steps.append(.clearTriggers) }
            try p.exposure(r.controls)
            p.steps.append(.frameRate(r.fps))
            try p.afterRate(r)
        }
        return GenICamSetupPlan(pixelFormat: format, steps: p.steps)
    }

    /// The format asked (offered and stored), else the current one if slomo stores it, else the
    /// first stored one the camera offers.
    public static func pixelFormat(_ asked: String?, offered: [String], current: String) throws(GenICamRefusal) -> String {
        if let asked {
            guard offered.contains(asked) else {
                throw GenICamRefusal("PixelFormat \(asked)", "not offered (the camera offers \(offered.joined(separator: ", ")))", .badRequest)
            }
            guard GenICamPixelFormat.isStored(asked) else {
                let stored = offered.filter(GenICamPixelFormat.isStored).joined(separator: ", ")
                throw GenICamRefusal("PixelFormat \(asked)", "slomo does not store this format yet (it stores \(stored))", .badRequest)
            }
            return asked
        }
        if GenICamPixelFormat.isStored(current) { return current }
        if let first = offered.first(where: GenICamPixelFormat.isStored) { return first }
        throw GenICamRefusal(
            "PixelFormat", "none of the camera's formats is one slomo stores (\(offered.joined(separator: ", ")))", .badRequest)
    }
}

/// The planner's working state: the steps so far against what the camera has.
struct GenICamPlanning {
    let camera: GenICamCameraState
    var steps: [GenICamStep] = []

    func has(_ feature: String) -> Bool { camera.features.contains(feature) }

    var exposureFeature: String? { ["ExposureTime", "ExposureTimeAbs"].first(where: has) }

    /// `feature`, or a refusal naming `option` when the camera has none.
    func need(_ feature: String?, _ option: String) throws(GenICamRefusal) -> String {
        guard let feature else { throw GenICamRefusal(option, "the camera has no such feature", .unavailable) }
        return feature
    }

    mutating func report(_ feature: String, _ option: String, _ requested: String) {
        steps.append(.report(feature: feature, option: option, requested: requested))
    }

    /// An automatic mode (`auto`: Continuous; `lock`: Off, the value it settled on kept) with its
    /// manual feature (a value: the mode off first).
    mutating func automatic(_ feature: String, _ value: ControlRequests.Value, option: String, manual: String?) throws(GenICamRefusal) {
        switch value {
        case .auto:
            steps.append(.set(try need(has(feature) ? feature : nil, option), "Continuous"))
            report(feature, option, "auto")
        case .lock:
            if has(feature) {
                steps.append(.set(feature, "Off"))
                report(feature, option, "lock")
            }
            if let m = manual { report(m, option, "lock") }
        case .value(let v):
            let m = try need(manual, option)
            if has(feature) { steps.append(.set(feature, "Off")) }
            steps.append(.set(m, String(v)))
            report(m, option, String(v))
        }
    }

    /// Exposure (auto or lock, or a shutter in seconds), gain and white balance: before the rate,
    /// which they bound.
    mutating func exposure(_ c: ControlRequests) throws(GenICamRefusal) {
        if let ex = c.exposure { try automatic("ExposureAuto", ex, option: "--exposure", manual: nil) }
        if case .seconds(let s)? = c.shutter {
            let f = try need(exposureFeature, "--shutter")
            if has("ExposureAuto") { steps.append(.set("ExposureAuto", "Off")) }
            steps.append(.exposureTime(feature: f, seconds: s))
            report(f, "--shutter", "\(Seconds(s)) s")
        }
        if let g = c.gain { try automatic("GainAuto", g, option: "--gain", manual: ["Gain", "GainRaw", "GainAbs"].first(where: has)) }
        if let wb = c.whiteBalance {
            let f = has("BalanceWhiteAuto") ? "BalanceWhiteAuto" : nil
            switch wb {
            case .auto: steps.append(.set(try need(f, "--white-balance"), "Continuous"))
            case .lock: steps.append(.set(try need(f, "--white-balance"), "Off"))
            case .value:
                throw GenICamRefusal("--white-balance", "GenICam cameras take auto or lock (kelvin has no standard feature)", .badRequest)
            }
            report("BalanceWhiteAuto", "--white-balance", wb.description)
        }
        if c.focus != nil || c.zoom != nil {
            throw GenICamRefusal(c.focus != nil ? "--focus" : "--zoom", "GenICam has no standard feature for it: use --control NAME=VALUE", .unavailable)
        }
    }

    /// Once the rate is known: `--shutter-angle`, the `--control`s, then the FrameStart trigger.
    mutating func afterRate(_ r: GenICamRequest) throws(GenICamRefusal) {
        if case .angle(let degrees)? = r.controls.shutter {
            let f = try need(exposureFeature, "--shutter-angle")
            steps.append(.shutterAngle(feature: f, degrees: degrees, exposureAutoOff: has("ExposureAuto")))
            report(f, "--shutter-angle", "\(Seconds(degrees))°")
        }
        for (name, value) in r.controls.named {
            steps.append(.set(name, value))
            report(name, "--control", value)
        }
        if let t = r.cameraTrigger {
            let sources = camera.triggerSources
            guard sources.contains(t.source) else {
                throw GenICamRefusal(
                    "--camera-trigger \(t)",
                    sources.isEmpty ? "the camera has no trigger" : "the camera's trigger sources are \(sources.joined(separator: ", "))",
                    sources.isEmpty ? .unavailable : .badRequest)
            }
            steps.append(.frameStartTrigger(t.source))
            report("TriggerSource", "--camera-trigger", t.source)
            report("TriggerMode", "--camera-trigger", "On")
        }
    }
}
