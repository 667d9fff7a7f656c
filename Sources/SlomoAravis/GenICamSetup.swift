internal import CAravis
import SlomoCore

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

/// A GenICam camera set up for capture: everything read back.
public struct GenICamApplied: Sendable {
    public var pixelFormat: String
    public var fourcc: String
    public var region: GenICamRegion
    /// AcquisitionFrameRate read back (ResultingFrameRate where the camera has it).
    public var fps: Double?
    public var controls: [AppliedControl] = []
    public var adjustments: [String] = []
}

extension GenICamCamera {
    /// The modes: pixel formats, sensor, region steps, binning, and the bounds of rate, exposure
    /// and gain for `request`'s region and format (set on the camera first when given; nothing is
    /// set otherwise).
    public func formats(for request: GenICamRequest? = nil) throws(GenICamError) -> GenICamFormats {
        if let request { _ = try applyModeOnly(request) }
        var sw: gint = 0, sh: gint = 0
        try call("SensorWidth/SensorHeight") { arv_camera_get_sensor_size(camera, &sw, &sh, $0) }
        var x: gint = 0, y: gint = 0, w: gint = 0, h: gint = 0
        try call("region") { arv_camera_get_region(camera, &x, &y, &w, &h, $0) }
        let names = enumerationEntries("PixelFormat")
        var f = GenICamFormats(
            camera: "genicam:\(id)", vendor: info.vendor, model: info.model, serial: info.serial, protocol: info.protocol,
            pixelFormats: names.map { .init(name: $0, storedAs: GenICamPixelFormat.fourccs[$0]) },
            pixelFormat: (try? string("PixelFormat")) ?? "",
            sensorWidth: Int64(sw), sensorHeight: Int64(sh),
            width: try integerRange("Width"), height: try integerRange("Height"),
            offsetX: (try? integerRange("OffsetX")) ?? GenICamRange(min: 0, max: 0),
            offsetY: (try? integerRange("OffsetY")) ?? GenICamRange(min: 0, max: 0),
            region: GenICamRegion(x: Int64(x), y: Int64(y), width: Int64(w), height: Int64(h)),
            triggerSources: [])
        if isAvailable("BinningHorizontal") { f.binningHorizontal = try? integerRange("BinningHorizontal") }
        if isAvailable("BinningVertical") { f.binningVertical = try? integerRange("BinningVertical") }
        var lo = 0.0, hi = 0.0
        if (try? call("frame rate bounds") { arv_camera_get_frame_rate_bounds(camera, &lo, &hi, $0) }) != nil { f.frameRateMin = lo; f.frameRateMax = hi }
        if (try? call("exposure bounds") { arv_camera_get_exposure_time_bounds(camera, &lo, &hi, $0) }) != nil { f.exposureMin = lo; f.exposureMax = hi }
        if (try? call("gain bounds") { arv_camera_get_gain_bounds(camera, &lo, &hi, $0) }) != nil { f.gainMin = lo; f.gainMax = hi }
        f.triggerSources = isAvailable("TriggerSource") ? enumerationEntries("TriggerSource") : []
        return f
    }

    /// An exposure time the camera takes (Aravis would clamp it silently).
    func checkExposure(_ us: Double, option: String) throws(GenICamError) {
        var lo = 0.0, hi = 0.0
        try call("exposure bounds", kind: .unavailable) { arv_camera_get_exposure_time_bounds(camera, &lo, &hi, $0) }
        guard us >= lo, us <= hi else {
            throw GenICamError(camera: id, operation: option, reason: "the camera exposes \(lo)...\(hi) µs", kind: .badRequest)
        }
    }

    /// Format and region only (for `formats` with constraints and for `apply`).
    func applyModeOnly(_ r: GenICamRequest) throws(GenICamError) -> (String, GenICamRegion) {
        var e: UnsafeMutablePointer<GError>?
        arv_camera_stop_acquisition(camera, &e); _ = takeError(&e)
        let offered = enumerationEntries("PixelFormat")
        let current = (try? string("PixelFormat")) ?? ""
        let format: String
        if let asked = r.pixelFormat {
            guard offered.contains(asked) else {
                throw GenICamError(
                    camera: id, operation: "PixelFormat \(asked)", reason: "not offered (the camera offers \(offered.joined(separator: ", ")))",
                    kind: .badRequest)
            }
            guard GenICamPixelFormat.isStored(asked) else {
                throw GenICamError(
                    camera: id, operation: "PixelFormat \(asked)",
                    reason: "slomo does not store this format yet (it stores \(offered.filter(GenICamPixelFormat.isStored).joined(separator: ", ")))",
                    kind: .badRequest)
            }
            format = asked
        } else if GenICamPixelFormat.isStored(current) {
            format = current
        } else if let first = offered.first(where: GenICamPixelFormat.isStored) {
            format = first
        } else {
            throw GenICamError(
                camera: id, operation: "PixelFormat", reason: "none of the camera's formats is one slomo stores (\(offered.joined(separator: ", ")))",
                kind: .badRequest)
        }
        if format != current { try call("PixelFormat \(format)", kind: .badRequest) { arv_camera_set_pixel_format_from_string(camera, format, $0) } }
        // the offsets to 0 first: Width's maximum is what is left of the sensor after OffsetX
        if isAvailable("OffsetX") { try? call("OffsetX 0") { arv_camera_set_integer(camera, "OffsetX", 0, $0) } }
        if isAvailable("OffsetY") { try? call("OffsetY 0") { arv_camera_set_integer(camera, "OffsetY", 0, $0) } }
        let width = try integerRange("Width"), height = try integerRange("Height")
        let offX = (try? integerRange("OffsetX")) ?? GenICamRange(min: 0, max: 0), offY = (try? integerRange("OffsetY")) ?? GenICamRange(min: 0, max: 0)
        let region: GenICamRegion
        do {
            region = try GenICamRegion.plan(
                size: r.size, offset: r.offset, sensor: (width.max, height.max), width: width, height: height, offsetX: offX, offsetY: offY)
        } catch {
            throw GenICamError(camera: id, operation: "region", reason: error.description, kind: .badRequest)
        }
        try call("region \(region)", kind: .badRequest) {
            arv_camera_set_region(camera, gint(region.x), gint(region.y), gint(region.width), gint(region.height), $0)
        }
        return (format, region)
    }

    /// Sets the camera up for `r`, in the order GenICam cameras need: acquisition stopped; format
    /// and region; triggers off (free-running); exposure and gain (they bound the rate); the frame
    /// rate (its maximum without `fps`); `--shutter-angle` once the rate is known; `--control`s;
    /// the FrameStart trigger last (Aravis's frame-rate call switches triggers off: aravis#628).
    /// Everything is read back.
    public func apply(_ r: GenICamRequest) throws(GenICamError) -> GenICamApplied {
        let (format, _) = try applyModeOnly(r)
        var e: UnsafeMutablePointer<GError>?
        if isAvailable("TriggerMode") { arv_camera_clear_triggers(camera, &e); _ = takeError(&e) }
        var controls: [AppliedControl] = [], notes: [String] = []
        try applyExposure(r.controls, into: &controls)
        // the rate, after what bounds it
        let fps = try applyRate(r.fps, format: format, notes: &notes)
        try applyAfterRate(r, fps: fps, into: &controls)
        var x: gint = 0, y: gint = 0, w: gint = 0, h: gint = 0
        try call("read region") { arv_camera_get_region(camera, &x, &y, &w, &h, $0) }
        let read = (try? string("PixelFormat")) ?? format
        guard GenICamPixelFormat.isStored(read) else {
            // a --control changed it to one slomo cannot lay out
            throw GenICamError(
                camera: id, operation: "PixelFormat \(read)",
                reason:
                    "slomo does not store this format (set by --control?); it stores \(enumerationEntries("PixelFormat").filter(GenICamPixelFormat.isStored).joined(separator: ", "))",
                kind: .badRequest)
        }
        return GenICamApplied(
            pixelFormat: read, fourcc: GenICamPixelFormat.fourccs[read]!,
            region: GenICamRegion(x: Int64(x), y: Int64(y), width: Int64(w), height: Int64(h)),
            fps: fps, controls: controls, adjustments: notes)
    }

    /// A feature as set, with what the camera reads back now.
    private func applied(_ feature: String, option: String, requested: String) -> AppliedControl {
        AppliedControl(name: feature, option: option, requested: requested, written: nil, readBack: nil, readBackText: text(feature))
    }

    /// `feature`, or a refusal naming `option` when the camera has none.
    private func need(_ feature: String?, _ option: String) throws(GenICamError) -> String {
        guard let feature else { throw GenICamError(camera: id, operation: option, reason: "the camera has no such feature", kind: .unavailable) }
        return feature
    }

    private var exposureFeature: String? { ["ExposureTime", "ExposureTimeAbs"].first(where: isAvailable) }

    /// Exposure (auto, or a shutter in seconds), gain and white balance: before the rate, which they bound.
    private func applyExposure(_ c: ControlRequests, into controls: inout [AppliedControl]) throws(GenICamError) {
        func setAuto(_ feature: String, _ value: ControlRequests.Value, option: String, manual: String?) throws(GenICamError) {
            switch value {
            case .auto:
                try set(try need(isAvailable(feature) ? feature : nil, option), "Continuous");
                controls.append(applied(feature, option: option, requested: "auto"))
            case .lock:
                // the value automatic mode settled on, made manual
                if isAvailable(feature) { try set(feature, "Off"); controls.append(applied(feature, option: option, requested: "lock")) }
                if let m = manual { controls.append(applied(m, option: option, requested: "lock")) }
            case .value(let v):
                if isAvailable(feature) { try set(feature, "Off") }
                try set(try need(manual, option), String(v)); controls.append(applied(manual!, option: option, requested: String(v)))
            }
        }
        if let ex = c.exposure { try setAuto("ExposureAuto", ex, option: "--exposure", manual: nil) }
        if case .seconds(let s)? = c.shutter {
            let f = try need(exposureFeature, "--shutter")
            if isAvailable("ExposureAuto") { try set("ExposureAuto", "Off") }
            let us = (s * Rational(1_000_000)).doubleValue
            try checkExposure(us, option: "--shutter \(Seconds(s))")
            try call("\(f) \(us) µs", kind: .badRequest) { arv_camera_set_exposure_time(camera, us, $0) }
            controls.append(applied(f, option: "--shutter", requested: "\(Seconds(s)) s"))
        }
        if let g = c.gain { try setAuto("GainAuto", g, option: "--gain", manual: ["Gain", "GainRaw", "GainAbs"].first(where: isAvailable)) }
        if let wb = c.whiteBalance {
            switch wb {
            case .auto: try set(try need(isAvailable("BalanceWhiteAuto") ? "BalanceWhiteAuto" : nil, "--white-balance"), "Continuous")
            case .lock: try set(try need(isAvailable("BalanceWhiteAuto") ? "BalanceWhiteAuto" : nil, "--white-balance"), "Off")
            case .value:
                throw GenICamError(
                    camera: id, operation: "--white-balance", reason: "GenICam cameras take auto or lock (kelvin has no standard feature)", kind: .badRequest)
            }
            controls.append(applied("BalanceWhiteAuto", option: "--white-balance", requested: wb.description))
        }
        if c.focus != nil || c.zoom != nil {
            throw GenICamError(
                camera: id, operation: c.focus != nil ? "--focus" : "--zoom", reason: "GenICam has no standard feature for it: use --control NAME=VALUE",
                kind: .unavailable)
        }
    }

    /// The frame rate asked (its maximum when nil), within the bounds the format, region and
    /// exposure leave; what the camera then runs at (its ResultingFrameRate where it has one).
    private func applyRate(_ wanted: Rational?, format: String, notes: inout [String]) throws(GenICamError) -> Double? {
        var lo = 0.0, hi = 0.0
        try call("frame rate bounds", kind: .unavailable) { arv_camera_get_frame_rate_bounds(camera, &lo, &hi, $0) }
        let asked = wanted?.doubleValue ?? hi
        guard asked >= lo * 0.999_999, asked <= hi * 1.000_001 else {
            throw GenICamError(
                camera: id, operation: "--fps \(Seconds(wanted ?? .zero))", reason: "the camera takes \(lo)...\(hi) fps at \(format) in this region",
                kind: .badRequest)
        }
        try call("AcquisitionFrameRate \(asked)", kind: .badRequest) { arv_camera_set_frame_rate(camera, Swift.min(Swift.max(asked, lo), hi), $0) }
        var fps = try? call("read AcquisitionFrameRate") { arv_camera_get_frame_rate(camera, $0) }
        if isAvailable("ResultingFrameRate"), let rf = try? float("ResultingFrameRate") { fps = rf }
        if let f = fps, abs(f - asked) > asked * 1e-4 { notes.append("asked \(asked) fps, the camera runs \(f) fps") }
        return fps
    }

    /// Once the rate is known: `--shutter-angle`, the `--control`s, then the FrameStart trigger last
    /// (Aravis's frame-rate call switches triggers off: aravis#628).
    private func applyAfterRate(_ r: GenICamRequest, fps: Double?, into controls: inout [AppliedControl]) throws(GenICamError) {
        if case .angle(let degrees)? = r.controls.shutter {
            let f = try need(exposureFeature, "--shutter-angle")
            guard let rate = fps, rate > 0 else {
                throw GenICamError(camera: id, operation: "--shutter-angle", reason: "the frame rate is unknown", kind: .unavailable)
            }
            if isAvailable("ExposureAuto") { try set("ExposureAuto", "Off") }
            let us = (degrees / Rational(360)).doubleValue / rate * 1e6
            try checkExposure(us, option: "--shutter-angle \(Seconds(degrees))")
            try call("\(f) \(us) µs", kind: .badRequest) { arv_camera_set_exposure_time(camera, us, $0) }
            controls.append(applied(f, option: "--shutter-angle", requested: "\(Seconds(degrees))°"))
        }
        for (name, value) in r.controls.named {
            try set(name, value)
            controls.append(applied(name, option: "--control", requested: value))
        }
        if let t = r.cameraTrigger {
            let sources = isAvailable("TriggerSource") ? enumerationEntries("TriggerSource") : []
            guard sources.contains(t.source) else {
                throw GenICamError(
                    camera: id, operation: "--camera-trigger \(t)",
                    reason: sources.isEmpty ? "the camera has no trigger" : "the camera's trigger sources are \(sources.joined(separator: ", "))",
                    kind: sources.isEmpty ? .unavailable : .badRequest)
            }
            try call("FrameStart trigger from \(t.source)", kind: .badRequest) { arv_camera_set_trigger(camera, t.source, $0) }
            controls.append(applied("TriggerSource", option: "--camera-trigger", requested: t.source))
            controls.append(applied("TriggerMode", option: "--camera-trigger", requested: "On"))
        }
    }
}
