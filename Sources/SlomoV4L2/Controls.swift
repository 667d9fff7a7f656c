internal import CV4L2
#if canImport(Glibc)
    import Glibc
#endif
import SlomoCore

/// Controls the V4L2 way: enumerated with VIDIOC_QUERY_EXT_CTRL (NEXT_CTRL | NEXT_COMPOUND; the
/// old QUERYCTRL walk when a driver lacks it), menus with QUERYMENU, values with G_EXT_CTRLS (one
/// control per call: a control another one makes inactive still reads), writes with S_EXT_CTRLS,
/// each read back. Zoom by cropping uses the selection API (G/S_SELECTION, CROP_BOUNDS/CROP).
extension VideoDevice {
    static let nextControl: UInt32 = 0x8000_0000 | 0x4000_0000  // V4L2_CTRL_FLAG_NEXT_CTRL | NEXT_COMPOUND

    /// Every control the driver offers (class headings left out), in the driver's order.
    public func controls() throws(V4L2Error) -> [CameraControl] {
        var out: [CameraControl] = []
        var id = VideoDevice.nextControl
        while true {
            var q = v4l2_query_ext_ctrl()
            q.id = id
            let rc = sys.ioctl(fd, .queryExtCtrl, &q)
            if rc == EINVAL { break }  // past the last control
            if rc == ENOTTY && out.isEmpty { return try legacyControls() }
            if rc != 0 {
                throw V4L2Error(
                    device: path, request: V4L2Request.queryExtCtrl.rawValue, errno: rc, detail: "after id 0x\(String(id & 0x0FFF_FFFF, radix: 16))")
            }
            id = q.id | VideoDevice.nextControl
            guard q.type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue else { continue }
            out.append(describe(q))
        }
        return out
    }

    /// One QUERY_EXT_CTRL answer, with its menu and current value.
    func describe(_ q: v4l2_query_ext_ctrl) -> CameraControl {
        let label = VideoDevice.text(q.name)
        let kind = VideoDevice.kind(q.type, dims: q.nr_of_dims)
        var c = CameraControl(
            id: q.id, name: CameraControl.key(label), label: label, kind: kind, minimum: q.minimum,
            maximum: q.maximum, step: Int64(clamping: q.step), defaultValue: q.default_value,
            flags: CameraControl.Flags(rawValue: q.flags))
        if kind == .menu || kind == .integerMenu { c.menu = menu(c) }
        if kind == .string { c.text = readText(q.id, size: Int(q.elem_size)) }
        if ![.button, .compound, .string].contains(kind) && !c.flags.contains(.writeOnly) { c.value = readValue(q.id, type: q.type) }
        return c
    }

    static func kind(_ type: UInt32, dims: UInt32) -> CameraControl.Kind {
        if dims > 0 { return .compound }
        switch type {
        case V4L2_CTRL_TYPE_INTEGER.rawValue: return .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: return .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: return .menu
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: return .integerMenu
        case V4L2_CTRL_TYPE_BUTTON.rawValue: return .button
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: return .integer64
        case V4L2_CTRL_TYPE_STRING.rawValue: return .string
        case V4L2_CTRL_TYPE_BITMASK.rawValue: return .bitmask
        default: return .compound
        }
    }

    /// QUERYMENU for every index in range; the driver skips some (EINVAL).
    func menu(_ c: CameraControl) -> [CameraControl.MenuItem] {
        guard c.minimum >= 0, c.maximum >= c.minimum, c.maximum - c.minimum < 1024 else { return [] }
        var items: [CameraControl.MenuItem] = []
        for i in c.minimum...c.maximum {
            var m = v4l2_querymenu()
            m.id = c.id
            m.index = UInt32(i)
            guard sys.ioctl(fd, .querymenu, &m) == 0 else { continue }
            items.append(c.kind == .integerMenu ? .init(index: i, value: m.value) : .init(index: i, name: VideoDevice.text(m.name)))
        }
        return items
    }

    /// G_EXT_CTRLS of one control: its current value; nil when the driver will not say.
    /// `type`: the control's V4L2_CTRL_TYPE when the caller has it (else one QUERY_EXT_CTRL asks).
    public func readValue(_ id: UInt32, type known: UInt32? = nil) -> Int64? {
        var c = v4l2_ext_control()
        c.id = id
        let rc = withUnsafeMutablePointer(to: &c) { p in
            var e = v4l2_ext_controls()
            e.which = 0  // V4L2_CTRL_WHICH_CUR_VAL
            e.count = 1
            e.controls = p
            return sys.ioctl(fd, .gExtCtrls, &e)
        }
        guard rc == 0 else { return nil }
        // 64-bit controls fill value64; the rest fill the 32-bit value (bitmasks unsigned)
        switch known ?? controlType(id) {
        case V4L2_CTRL_TYPE_INTEGER64.rawValue: return c.value64
        case V4L2_CTRL_TYPE_BITMASK.rawValue: return Int64(UInt32(bitPattern: c.value))
        default: return Int64(c.value)
        }
    }

    /// The control's V4L2_CTRL_TYPE (QUERY_EXT_CTRL); nil when it cannot be asked.
    func controlType(_ id: UInt32) -> UInt32? {
        var q = v4l2_query_ext_ctrl()
        q.id = id
        return sys.ioctl(fd, .queryExtCtrl, &q) == 0 ? q.type : nil
    }

    /// The V4L2_CTRL_TYPE a value read needs, from a control already described.
    static func type(of c: CameraControl) -> UInt32 {
        c.kind == .integer64 ? V4L2_CTRL_TYPE_INTEGER64.rawValue : c.kind == .bitmask ? V4L2_CTRL_TYPE_BITMASK.rawValue : V4L2_CTRL_TYPE_INTEGER.rawValue
    }

    func controlIs64Bit(_ id: UInt32) -> Bool { controlType(id) == V4L2_CTRL_TYPE_INTEGER64.rawValue }

    func readText(_ id: UInt32, size: Int) -> String? {
        guard size > 0, size < 65536 else { return nil }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: 0, count: size)
        var c = v4l2_ext_control()
        c.id = id
        c.size = UInt32(size)
        c.string = buffer
        let rc = withUnsafeMutablePointer(to: &c) { p in
            var e = v4l2_ext_controls()
            e.count = 1
            e.controls = p
            return sys.ioctl(fd, .gExtCtrls, &e)
        }
        return rc == 0 ? String(cString: buffer) : nil
    }

    /// S_EXT_CTRLS of one value: 0 or the errno.
    /// `is64`: whether the control is 64 bits wide when the caller knows (else one QUERY_EXT_CTRL asks).
    public func writeValue(_ id: UInt32, _ value: Int64, is64 known: Bool? = nil) -> Int32 {
        var c = v4l2_ext_control()
        c.id = id
        if known ?? controlIs64Bit(id) { c.value64 = value } else { c.value = Int32(truncatingIfNeeded: value) }
        return withUnsafeMutablePointer(to: &c) { p in
            var e = v4l2_ext_controls()
            e.count = 1
            e.controls = p
            return sys.ioctl(fd, .sExtCtrls, &e)
        }
    }

    /// Drivers without QUERY_EXT_CTRL: the QUERYCTRL walk (32-bit ranges, G_CTRL values).
    func legacyControls() throws(V4L2Error) -> [CameraControl] {
        var out: [CameraControl] = []
        var id = UInt32(0x8000_0000)
        while true {
            var q = v4l2_queryctrl()
            q.id = id
            let rc = sys.ioctl(fd, .queryctrl, &q)
            if rc == EINVAL || rc == ENOTTY { break }
            if rc != 0 { throw V4L2Error(device: path, request: V4L2Request.queryctrl.rawValue, errno: rc) }
            id = q.id | 0x8000_0000
            guard q.type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue else { continue }
            let label = VideoDevice.text(q.name)
            var c = CameraControl(
                id: q.id, name: CameraControl.key(label), label: label, kind: VideoDevice.kind(q.type, dims: 0),
                minimum: Int64(q.minimum), maximum: Int64(q.maximum), step: Int64(q.step),
                defaultValue: Int64(q.default_value), flags: CameraControl.Flags(rawValue: q.flags))
            if c.kind == .menu || c.kind == .integerMenu { c.menu = menu(c) }
            if ![.button, .compound, .string].contains(c.kind) { c.value = getControl(q.id).map(Int64.init) }
            out.append(c)
        }
        return out
    }
}

extension VideoDevice {
    /// Carries out a control plan in order, each write read back. A write the driver refuses ends
    /// it (nothing is recorded after a refused setting); a value the driver adjusted is noted.
    public func carryOut(_ steps: [ControlStep]) throws(V4L2Error) -> (controls: [AppliedControl], crop: AppliedCrop?) {
        var out: [AppliedControl] = []
        var crop: AppliedCrop?
        for step in steps {
            switch step {
            case .set(let c, let v, let o):
                out.append(try write(c, v, o, note: o.note))
            case .lock(let manual, let auto, let off, let o):
                guard let settled = readValue(manual.id, type: VideoDevice.type(of: manual)) else {
                    throw V4L2Error(
                        device: path, request: V4L2Request.gExtCtrls.rawValue, errno: 0,
                        detail: "\(manual.name) (\(o.option)): the value to lock cannot be read", code: .unsupported)
                }
                out.append(try write(auto, off, .init(o.option, "manual"), note: "automatic mode off, holding \(manual.name) at \(settled)"))
                out.append(try write(manual, settled, o, note: "locked at \(settled), the value the automatic mode had settled on"))
            case .crop(let factor, let o):
                crop = try cropCentre(factor, o)
            }
        }
        return (out, crop)
    }

    func write(_ c: CameraControl, _ v: Int64, _ o: ControlStep.Origin, note: String?) throws(V4L2Error) -> AppliedControl {
        let rc = writeValue(c.id, v, is64: c.kind == .integer64)
        if rc != 0 {
            throw V4L2Error(device: path, request: V4L2Request.sExtCtrls.rawValue, errno: rc, detail: "\(c.name)=\(v) (\(o.option))")
        }
        let back = c.kind == .button || c.flags.contains(.writeOnly) ? nil : readValue(c.id, type: VideoDevice.type(of: c))
        var n = note
        if let back, back != v, !c.flags.contains(.volatile) {
            n = [note, "the driver keeps \(c.describe(back)) (asked \(v))"].compactMap { $0 }.joined(separator: "; ")
        }
        var a = AppliedControl(
            name: c.name, option: o.option, requested: o.requested, written: v, readBack: back,
            readBackText: back.map(c.describe), note: n)
        a.id = c.id
        return a
    }

    /// `--zoom` without a zoom control: the middle 1/factor of the crop bounds, read back.
    func cropCentre(_ factor: Rational, _ o: ControlStep.Origin) throws(V4L2Error) -> AppliedCrop {
        func selection(_ target: UInt32) -> (PixelRect?, Int32) {
            var s = v4l2_selection()
            s.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            s.target = target
            let rc = sys.ioctl(fd, .gSelection, &s)
            return (rc == 0 ? PixelRect(left: Int(s.r.left), top: Int(s.r.top), width: Int(s.r.width), height: Int(s.r.height)) : nil, rc)
        }
        let (bounds, rc) = selection(UInt32(V4L2_SEL_TGT_CROP_BOUNDS))
        guard let bounds else {
            throw V4L2Error(
                device: path, request: V4L2Request.gSelection.rawValue, errno: rc,
                detail: "crop bounds (\(o.option): no zoom_absolute control, and the device cannot crop)")
        }
        let want = bounds.centred(zoom: factor)
        var s = v4l2_selection()
        s.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        s.target = UInt32(V4L2_SEL_TGT_CROP)
        s.r = v4l2_rect(left: Int32(want.left), top: Int32(want.top), width: UInt32(want.width), height: UInt32(want.height))
        let src = sys.ioctl(fd, .sSelection, &s)
        if src != 0 { throw V4L2Error(device: path, request: V4L2Request.sSelection.rawValue, errno: src, detail: "crop \(want) (\(o.option))") }
        let (got, grc) = selection(UInt32(V4L2_SEL_TGT_CROP))
        guard let got else { throw V4L2Error(device: path, request: V4L2Request.gSelection.rawValue, errno: grc, detail: "crop (\(o.option))") }
        return AppliedCrop(factor: factor, bounds: bounds, requested: want, readBack: got)
    }

    /// Each applied control read again (the end of a capture): a locked value that moved shows.
    public func readAgain(_ applied: [AppliedControl]) -> [AppliedControl] {
        applied.map { a in
            var a = a
            if let id = a.id, a.readBack != nil { a.atEnd = readValue(id) }
            return a
        }
    }
}
