internal import CAravis
import SlomoCore

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
        if let request { _ = try execute(try plan(request, modeOnly: true)) }
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
        if (try? call("frame rate bounds") { arv_camera_get_frame_rate_bounds(camera, &lo, &hi, $0) }) != nil {
            f.frameRateMin = lo
            f.frameRateMax = hi
        }
        if (try? call("exposure bounds") { arv_camera_get_exposure_time_bounds(camera, &lo, &hi, $0) }) != nil {
            f.exposureMin = lo
            f.exposureMax = hi
        }
        if (try? call("gain bounds") { arv_camera_get_gain_bounds(camera, &lo, &hi, $0) }) != nil {
            f.gainMin = lo
            f.gainMax = hi
        }
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

    /// Stops acquisition, reads what the planner needs and plans `r` (`GenICamSetupPlanner`).
    func plan(_ r: GenICamRequest, modeOnly: Bool) throws(GenICamError) -> GenICamSetupPlan {
        var e: UnsafeMutablePointer<GError>?
        arv_camera_stop_acquisition(camera, &e)
        _ = takeError(&e)
        let state = GenICamCameraState(
            pixelFormats: enumerationEntries("PixelFormat"), pixelFormat: (try? string("PixelFormat")) ?? "",
            features: Set(GenICamSetupPlanner.consulted.filter(isAvailable)),
            triggerSources: isAvailable("TriggerSource") ? enumerationEntries("TriggerSource") : [])
        do {
            return try GenICamSetupPlanner.plan(r, camera: state, modeOnly: modeOnly)
        } catch {
            throw GenICamError(camera: id, operation: error.operation, reason: error.reason, kind: error.kind)
        }
    }

    /// Sets the camera up for `r` in the planner's order (`GenICamSetupPlanner`: the mode, triggers
    /// off, exposure and gain, the rate, `--shutter-angle`, `--control`s, the FrameStart trigger
    /// last). Everything is read back.
    public func apply(_ r: GenICamRequest) throws(GenICamError) -> GenICamApplied {
        let plan = try plan(r, modeOnly: false)
        let done = try execute(plan)
        var x: gint = 0, y: gint = 0, w: gint = 0, h: gint = 0
        try call("read region") { arv_camera_get_region(camera, &x, &y, &w, &h, $0) }
        let read = (try? string("PixelFormat")) ?? plan.pixelFormat
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
            fps: done.fps, controls: done.controls, adjustments: done.notes)
    }

    /// What the steps so far did: the rate read back, the features as the report lists them, notes.
    struct SetupRun {
        var fps: Double?
        var controls: [AppliedControl] = []
        var notes: [String] = []
    }

    /// Runs `plan`'s steps in order.
    func execute(_ plan: GenICamSetupPlan) throws(GenICamError) -> SetupRun {
        var done = SetupRun()
        for step in plan.steps { try run(step, format: plan.pixelFormat, into: &done) }
        return done
    }

    /// One step of the plan on the camera.
    func run(_ step: GenICamStep, format: String, into done: inout SetupRun) throws(GenICamError) {
        switch step {
        case .pixelFormat(let f):
            try call("PixelFormat \(f)", kind: .badRequest) { arv_camera_set_pixel_format_from_string(camera, f, $0) }
        case .zeroOffset(let feature):
            try? call("\(feature) 0") { arv_camera_set_integer(camera, feature, 0, $0) }
        case .region(let size, let offset):
            try setRegion(size: size.map { ($0.first, $0.second) }, offset: offset.map { ($0.first, $0.second) })
        case .clearTriggers:
            var e: UnsafeMutablePointer<GError>?
            arv_camera_clear_triggers(camera, &e)
            _ = takeError(&e)
        case .set(let feature, let value):
            try set(feature, value)
        case .exposureTime(let feature, let seconds):
            let us = (seconds * Rational(1_000_000)).doubleValue
            try checkExposure(us, option: "--shutter \(Seconds(seconds))")
            try call("\(feature) \(us) µs", kind: .badRequest) { arv_camera_set_exposure_time(camera, us, $0) }
        case .frameRate(let fps):
            done.fps = try applyRate(fps, format: format, notes: &done.notes)
        case .shutterAngle(let feature, let degrees, let exposureAutoOff):
            guard let rate = done.fps, rate > 0 else {
                throw GenICamError(camera: id, operation: "--shutter-angle", reason: "the frame rate is unknown", kind: .unavailable)
            }
            if exposureAutoOff { try set("ExposureAuto", "Off") }
            let us = (degrees / Rational(360)).doubleValue / rate * 1e6
            try checkExposure(us, option: "--shutter-angle \(Seconds(degrees))")
            try call("\(feature) \(us) µs", kind: .badRequest) { arv_camera_set_exposure_time(camera, us, $0) }
        case .frameStartTrigger(let source):
            try call("FrameStart trigger from \(source)", kind: .badRequest) { arv_camera_set_trigger(camera, source, $0) }
        case .report(let feature, let option, let requested):
            done.controls.append(
                AppliedControl(name: feature, option: option, requested: requested, written: nil, readBack: nil, readBackText: text(feature)))
        }
    }

    /// The region on the grid the camera reports now (the offsets at 0: Width's maximum is the sensor's).
    private func setRegion(size: (Int64, Int64)?, offset: (Int64, Int64)?) throws(GenICamError) {
        let width = try integerRange("Width"), height = try integerRange("Height")
        let offX = (try? integerRange("OffsetX")) ?? GenICamRange(min: 0, max: 0), offY = (try? integerRange("OffsetY")) ?? GenICamRange(min: 0, max: 0)
        let region: GenICamRegion
        do {
            region = try GenICamRegion.plan(
                size: size, offset: offset, sensor: (width.max, height.max), width: width, height: height, offsetX: offX, offsetY: offY)
        } catch {
            throw GenICamError(camera: id, operation: "region", reason: error.description, kind: .badRequest)
        }
        try call("region \(region)", kind: .badRequest) {
            arv_camera_set_region(camera, gint(region.x), gint(region.y), gint(region.width), gint(region.height), $0)
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
}
