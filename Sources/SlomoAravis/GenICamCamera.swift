internal import CAravis
import SlomoCore

/// One GenICam camera opened through Aravis (GigE Vision, USB3 Vision, or Aravis's in-process
/// fake). Not thread-safe (Aravis objects are not): one thread works it, except the stream's
/// buffer queue (`GenICamSource`).
public final class GenICamCamera {
    /// The id it was opened by (`genicam:ID` without the prefix).
    public let id: String
    let camera: UnsafeMutablePointer<ArvCamera>
    public let info: GenICamDeviceInfo

    /// Opens `id` (a device id, serial or IP address). No such camera: `.missing` (exit 66); a GigE
    /// camera another program controls: `.unavailable` (exit 69; the control channel is exclusive).
    public init(id: String) throws(GenICamError) {
        self.id = id
        var err: UnsafeMutablePointer<GError>?
        let interfaces = GenICamSystem.interfaces(for: id)
        guard !interfaces.isEmpty else {
            throw GenICamError(camera: id, operation: "open", reason: "no GenICam interface is searched (\(GenICamSystem.environmentKey)=none)", kind: .missing)
        }
        let cam = GenICamSystem.with(interfaces) { arv_camera_new(id, &err) }
        if let e = takeError(&err) {
            let kind = failureKind(domain: e.domain, code: e.code)
            throw GenICamError(
                camera: id, operation: "open",
                reason: e.text + (kind == .missing ? " (searched: \(interfaces.joined(separator: ", ")); see 'slomo devices')" : ""),
                kind: kind == .ioFailed ? .missing : kind)
        }
        guard let cam else {
            throw GenICamError(camera: id, operation: "open", reason: "no such camera (searched: \(interfaces.joined(separator: ", ")))", kind: .missing)
        }
        camera = cam
        if let gv = slomo_arv_gv_device(cam), arv_gv_device_is_controller(gv) == 0 {
            g_object_unref(cam)
            throw GenICamError(
                camera: id, operation: "open", reason: "another program controls this camera (GigE Vision gives one controller at a time): close it first",
                kind: .unavailable)
        }
        func s(_ f: (UnsafeMutablePointer<ArvCamera>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> UnsafePointer<CChar>?) -> String {
            var e: UnsafeMutablePointer<GError>?
            let r = f(cam, &e).map { String(cString: $0) } ?? ""
            _ = takeError(&e)
            return r
        }
        let proto = arv_camera_is_gv_device(cam) != 0 ? "GigEVision" : arv_camera_is_uv_device(cam) != 0 ? "USB3Vision" : "Fake"
        info = GenICamDeviceInfo(
            id: id, vendor: s(arv_camera_get_vendor_name), model: s(arv_camera_get_model_name),
            serial: s(arv_camera_get_device_serial_number), protocol: proto, address: id)
    }

    deinit { g_object_unref(camera) }

    /// `genicam:ID (vendor model)`.
    public var name: String { "genicam:\(id) (\(info.vendor) \(info.model))" }

    /// Runs one Aravis call that reports through a GError; its error becomes a `GenICamError`.
    @discardableResult
    func call<T>(
        _ operation: @autoclosure () -> String, kind: FailureKind? = nil,
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T
    ) throws(GenICamError) -> T {
        var err: UnsafeMutablePointer<GError>?
        let r = body(&err)
        if let e = takeError(&err) {
            throw GenICamError(camera: id, operation: operation(), reason: e.text, kind: kind ?? failureKind(domain: e.domain, code: e.code))
        }
        return r
    }

    // MARK: features by name

    public func isAvailable(_ feature: String) -> Bool {
        var e: UnsafeMutablePointer<GError>?
        let r = arv_camera_is_feature_available(camera, feature, &e) != 0
        _ = takeError(&e)
        return r
    }

    func node(_ feature: String) -> OpaquePointer? {
        guard let gc = slomo_arv_genicam(camera) else { return nil }
        return OpaquePointer(arv_gc_get_node(gc, feature))
    }

    /// 0 none, 1 category, 2 integer, 3 float, 4 enumeration, 5 boolean, 6 command, 7 string.
    func kind(_ feature: String) -> Int32 {
        guard let gc = slomo_arv_genicam(camera), let n = arv_gc_get_node(gc, feature) else { return 0 }
        return slomo_arv_node_kind(n)
    }

    public func integerRange(_ feature: String) throws(GenICamError) -> GenICamRange {
        var lo: gint64 = 0, hi: gint64 = 0
        try call("\(feature) bounds") { arv_camera_get_integer_bounds(camera, feature, &lo, &hi, $0) }
        let inc = (try? call("\(feature) increment") { arv_camera_get_integer_increment(camera, feature, $0) }) ?? 1
        return GenICamRange(min: Int64(lo), max: Int64(hi), increment: Int64(inc))
    }

    public func floatBounds(_ feature: String) throws(GenICamError) -> (Double, Double) {
        var lo = 0.0, hi = 0.0
        try call("\(feature) bounds") { arv_camera_get_float_bounds(camera, feature, &lo, &hi, $0) }
        return (lo, hi)
    }

    public func enumerationEntries(_ feature: String) -> [String] {
        var n: guint = 0
        var e: UnsafeMutablePointer<GError>?
        guard let list = arv_camera_dup_available_enumerations_as_strings(camera, feature, &n, &e) else {
            _ = takeError(&e)
            return []
        }
        defer { g_free(list) }
        return (0..<Int(n)).compactMap { list[$0].map { String(cString: $0) } }
    }

    public func integer(_ feature: String) throws(GenICamError) -> Int64 { Int64(try call("read \(feature)") { arv_camera_get_integer(camera, feature, $0) }) }
    public func float(_ feature: String) throws(GenICamError) -> Double { try call("read \(feature)") { arv_camera_get_float(camera, feature, $0) } }
    public func string(_ feature: String) throws(GenICamError) -> String {
        try call("read \(feature)") { arv_camera_get_string(camera, feature, $0) }.map { String(cString: $0) } ?? ""
    }

    /// A feature's value as text, whatever its type (nil: not readable now).
    public func text(_ feature: String) -> String? {
        guard let gc = slomo_arv_genicam(camera), let n = arv_gc_get_node(gc, feature), let f = slomo_arv_feature(n) else { return nil }
        var e: UnsafeMutablePointer<GError>?
        let v = arv_gc_feature_node_get_value_as_string(f, &e)
        if takeError(&e) != nil { return nil }
        return v.map { String(cString: $0) }
    }

    /// Sets `feature` from text by its type (integer, float, enumeration entry, boolean, string;
    /// a command runs when `value` is empty or `execute`) and reads it back. A feature the camera
    /// lacks: `.unavailable` (exit 69); a value it refuses: `.badRequest` (exit 64) naming what it takes.
    @discardableResult
    public func set(_ feature: String, _ value: String) throws(GenICamError) -> String {
        let k = kind(feature)
        guard k != 0, k != 1, isAvailable(feature) else {
            throw GenICamError(
                camera: id, operation: "set \(feature)", reason: "the camera has no such feature (see 'slomo controls genicam:\(id)')", kind: .unavailable)
        }
        func refuse(_ why: String) -> GenICamError { GenICamError(camera: id, operation: "set \(feature)=\(value)", reason: why, kind: .badRequest) }
        switch k {
        case 2:
            guard let v = Int64(value) else { throw refuse("expected an integer") }
            let r = try integerRange(feature)
            guard r.contains(v) else { throw refuse("takes \(r.min)...\(r.max) in steps of \(r.increment)") }
            try call("set \(feature)=\(value)", kind: .badRequest) { arv_camera_set_integer(camera, feature, gint64(v), $0) }
        case 3:
            guard let v = Double(value), v.isFinite else { throw refuse("expected a number") }
            let (lo, hi) = try floatBounds(feature)
            guard v >= lo, v <= hi else { throw refuse("takes \(lo)...\(hi)") }
            try call("set \(feature)=\(value)", kind: .badRequest) { arv_camera_set_float(camera, feature, v, $0) }
        case 4:
            let entries = enumerationEntries(feature)
            guard entries.contains(value) else { throw refuse("takes \(entries.joined(separator: ", "))") }
            try call("set \(feature)=\(value)", kind: .badRequest) { arv_camera_set_string(camera, feature, value, $0) }
        case 5:
            let on: Bool
            switch value.lowercased() {
            case "1", "true", "on": on = true
            case "0", "false", "off": on = false
            default: throw refuse("expected true or false")
            }
            try call("set \(feature)=\(value)", kind: .badRequest) { arv_camera_set_boolean(camera, feature, on ? 1 : 0, $0) }
        case 6:
            try call("execute \(feature)", kind: .badRequest) { arv_camera_execute_command(camera, feature, $0) }
            return "executed"
        default:
            try call("set \(feature)=\(value)", kind: .badRequest) { arv_camera_set_string(camera, feature, value, $0) }
        }
        return text(feature) ?? value
    }

    // MARK: the feature tree

    /// Every feature under the Root category, and those Aravis's helpers use that the tree does not
    /// reach (Debian's 0.8.26 fake leaves AcquisitionFrameRate, GainRaw and GainAuto out of it).
    public func features() -> [GenICamFeature] {
        guard let gc = slomo_arv_genicam(camera) else { return [] }
        var seen = Set<String>(), out: [GenICamFeature] = []
        func visit(_ name: String, depth: Int) {
            guard depth < 32, !seen.contains(name), let n = arv_gc_get_node(gc, name) else { return }
            seen.insert(name)
            let k = slomo_arv_node_kind(n)
            if k == 1 {
                var l = slomo_arv_category_features(n)
                while let item = l {
                    if let p = item.pointee.data { visit(String(cString: p.assumingMemoryBound(to: CChar.self)), depth: depth + 1) }
                    l = UnsafePointer(item.pointee.next)
                }
                return
            }
            if let f = describe(name, node: n, kind: k) { out.append(f) }
        }
        visit("Root", depth: 0)
        for extra in [
            "AcquisitionFrameRate", "AcquisitionFrameRateEnable", "ResultingFrameRate", "ExposureTime", "ExposureAuto",
            "Gain", "GainRaw", "GainAuto", "BalanceWhiteAuto", "DeviceLinkThroughputLimit", "GevSCPSPacketSize",
        ] {
            visit(extra, depth: 1)
        }
        return out
    }

    func describe(_ name: String, node n: UnsafeMutablePointer<ArvGcNode>, kind k: Int32) -> GenICamFeature? {
        guard let f = slomo_arv_feature(n) else { return nil }
        var e: UnsafeMutablePointer<GError>?
        let implemented = arv_gc_feature_node_is_implemented(f, &e) != 0
        _ = takeError(&e)
        let available = arv_gc_feature_node_is_available(f, &e) != 0
        _ = takeError(&e)
        let types = [2: "integer", 3: "float", 4: "enumeration", 5: "boolean", 6: "command", 7: "string"]
        var access: String
        switch arv_gc_feature_node_get_actual_access_mode(f) {
        case ARV_GC_ACCESS_MODE_RO: access = "RO"
        case ARV_GC_ACCESS_MODE_WO: access = "WO"
        case ARV_GC_ACCESS_MODE_RW: access = "RW"
        default: access = "?"
        }
        if !implemented { access = "NI" } else if !available { access = "NA" }
        var out = GenICamFeature(name: name, type: types[Int(k)] ?? "other", access: access)
        guard implemented && available else { return out }
        if k != 6 { out.value = text(name) }
        switch k {
        case 2:
            if let i = slomo_arv_integer(n) {
                out.min = Double(arv_gc_integer_get_min(i, &e))
                _ = takeError(&e)
                out.max = Double(arv_gc_integer_get_max(i, &e))
                _ = takeError(&e)
                out.increment = Double(arv_gc_integer_get_inc(i, &e))
                _ = takeError(&e)
                out.unit = arv_gc_integer_get_unit(i).map { String(cString: $0) }
            }
        case 3:
            if let x = slomo_arv_float(n) {
                out.min = arv_gc_float_get_min(x, &e)
                _ = takeError(&e)
                out.max = arv_gc_float_get_max(x, &e)
                _ = takeError(&e)
                let inc = arv_gc_float_get_inc(x, &e)
                _ = takeError(&e)
                if inc > 1e-12 && inc.isFinite && inc < 1e300 { out.increment = inc }  // Aravis gives DBL_MIN for none
                out.unit = arv_gc_float_get_unit(x).map { String(cString: $0) }
            }
        case 4:
            out.entries = enumerationEntries(name)
        default: break
        }
        if out.unit?.isEmpty == true { out.unit = nil }
        return out
    }
}
