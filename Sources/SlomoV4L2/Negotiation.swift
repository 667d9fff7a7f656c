internal import CV4L2
#if canImport(Glibc)
    import Glibc
#endif
import SlomoCore

/// Applying a mode — AVFoundation's `activeFormat` + `activeVideoMinFrameDuration` +
/// `activeVideoMaxFrameDuration`, done the V4L2 way, then read back.
///
/// 1. VIDIOC_S_FMT (pixel format, size), then VIDIOC_G_FMT: what the driver really set.
/// 2. VIDIOC_G_PARM; with V4L2_CAP_TIMEPERFRAME, VIDIOC_S_PARM timeperframe = the mode's frame
///    duration (the minimum duration; V4L2 has no separate maximum — the controls in 3 keep the
///    driver from stretching it), then VIDIOC_G_PARM again. Without the capability: noted, and
///    capture continues at the driver's rate. HDMI-style inputs also report their DV timings.
/// 3. Controls that lower the rate in low light: `exposure_auto_priority` (UVC's
///    "exposure_dynamic_framerate" in newer kernels; one control id) → 0; when the exposure time is
///    manual (exposure_auto = manual or shutter priority), `exposure_absolute` (100 µs units) is
///    clamped to at most the frame duration. Each is read back; refusals are reported, not fatal.
///
/// Every difference between request and read-back becomes one sentence in `adjustments`.
extension VideoDevice {
    /// `controls`: the user's control settings, planned against the device's controls once the
    /// rate is known (step 4) — refused before anything is written when the device cannot do them.
    public func apply(_ mode: CaptureMode, controls requests: ControlRequests = ControlRequests()) throws -> AppliedMode {
        var adjustments: [String] = []
        var got = try setFormat(mode)
        if got.fourcc != mode.pixelFormat { adjustments.append("pixel format \(mode.pixelFormat) requested, driver set \(got.fourcc)") }
        if got.width != mode.width || got.height != mode.height {
            adjustments.append("size \(mode.width)x\(mode.height) requested, driver set \(got.width)x\(got.height)")
        }
        // a measured rate (no advertised intervals) is the driver's own: read, never set
        let rate = mode.rateMeasured ? try readFrameDuration() : try setFrameDuration(mode.frameDuration, notes: &adjustments)
        var controls: [String: Int32] = [:]
        keepRateInLowLight(frameDuration: rate.duration ?? mode.frameDuration, controls: &controls, notes: &adjustments)
        var applied: (controls: [AppliedControl], crop: AppliedCrop?)?
        if !requests.isEmpty {
            let steps: [ControlStep]
            do { steps = try ControlPlanner.plan(requests, controls: try self.controls(), frameDuration: rate.duration ?? mode.frameDuration) } catch let e
                as ControlError
            {
                throw e.on(path)
            }
            applied = try carryOut(steps)
            if let crop = applied?.crop {
                let before = got
                got = try currentFormat()
                adjustments.append(
                    "--zoom \(crop.factor): sensor area cropped to \(crop.readBack) of \(crop.bounds)"
                        + (got.width == before.width && got.height == before.height
                            ? ", scaled by the driver to \(got.width)x\(got.height)" : "; frames are \(got.width)x\(got.height)"))
            }
        }
        var a = AppliedMode(
            requested: mode, pixelFormat: got.fourcc, width: got.width, height: got.height,
            bytesPerLine: got.bytesPerLine, frameDuration: rate.duration, dvTimingsFrameDuration: rate.dv,
            timePerFrameSupported: rate.timePerFrame, controls: controls, adjustments: adjustments)
        a.cameraControls = applied?.controls
        a.crop = applied?.crop
        return a
    }

    /// S_FMT then G_FMT (single- or multi-planar).
    func setFormat(_ mode: CaptureMode) throws(V4L2Error) -> (fourcc: FourCC, width: Int, height: Int, bytesPerLine: Int) {
        var f = v4l2_format()
        f.type = bufferType
        if info.isMultiplanar {
            f.fmt.pix_mp.width = UInt32(mode.width)
            f.fmt.pix_mp.height = UInt32(mode.height)
            f.fmt.pix_mp.pixelformat = VideoDevice.code(mode.pixelFormat)
            f.fmt.pix_mp.field = V4L2_FIELD_ANY.rawValue
            if let bpl = requestedBytesPerLine { f.fmt.pix_mp.plane_fmt.0.bytesperline = UInt32(bpl) }
        } else {
            f.fmt.pix.width = UInt32(mode.width)
            f.fmt.pix.height = UInt32(mode.height)
            f.fmt.pix.pixelformat = VideoDevice.code(mode.pixelFormat)
            f.fmt.pix.field = V4L2_FIELD_ANY.rawValue
            if let bpl = requestedBytesPerLine { f.fmt.pix.bytesperline = UInt32(bpl) }
        }
        try call(.sFmt, &f, detail: "\(mode.pixelFormat) \(mode.width)x\(mode.height)")
        return try currentFormat()
    }

    /// S_PARM with read-back. Returns the driver's frame duration (G_PARM; the DV timings' when
    /// G_PARM has none), the DV timings' duration, and whether TIMEPERFRAME is supported.
    func setFrameDuration(_ wanted: Rational, notes: inout [String]) throws(V4L2Error)
        -> (duration: Rational?, dv: Rational?, timePerFrame: Bool)
    {
        var p = v4l2_streamparm()
        p.type = bufferType
        var reported: Rational?
        var timePerFrame = false
        let grc = sys.ioctl(fd, .gParm, &p)
        if grc == 0 {
            timePerFrame = p.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0
            if timePerFrame {
                guard let n = UInt32(exactly: wanted.numerator), let d = UInt32(exactly: wanted.denominator) else {
                    throw V4L2Error(
                        device: path, request: V4L2Request.sParm.rawValue, errno: 0,
                        detail: "timeperframe \(wanted) does not fit v4l2_fract", code: .invalid)
                }
                var s = v4l2_streamparm()
                s.type = bufferType
                s.parm.capture = p.parm.capture
                s.parm.capture.timeperframe = v4l2_fract(numerator: n, denominator: d)
                try call(.sParm, &s, detail: "timeperframe \(wanted) s")
                p = v4l2_streamparm()
                p.type = bufferType
                try call(.gParm, &p)
            } else {
                notes.append("driver has no V4L2_CAP_TIMEPERFRAME: the rate cannot be set, capturing at the driver's rate")
            }
            reported = VideoDevice.fract(p.parm.capture.timeperframe).flatMap { $0.isPositive ? $0 : nil }
        } else if grc == ENOTTY || grc == EINVAL {
            notes.append(
                "driver does not report its frame interval (VIDIOC_G_PARM: \(V4L2Error.errnoName(grc))); "
                    + "the rate cannot be set, capturing at the driver's rate")
        } else {
            throw V4L2Error(device: path, request: V4L2Request.gParm.rawValue, errno: grc)
        }
        let dv = dvTimingsRate().map { Rational.one / $0 }
        if let dv, let r = reported, dv != r {
            notes.append("the DV timings give \(dv) s (\(DecimalText.fps(dv)) fps) while the driver reports \(r) s (\(DecimalText.fps(r)) fps)")
        }
        let duration = reported ?? dv
        if let d = duration, d != wanted {
            notes.append("frame duration \(wanted) s (\(DecimalText.fps(wanted)) fps) requested, driver runs at \(d) s (\(DecimalText.fps(d)) fps)")
        } else if duration == nil {
            notes.append("frame duration \(wanted) s requested; the driver's frame duration is unknown")
        }
        return (duration, dv, timePerFrame)
    }

    /// G_PARM's frame duration (the DV timings' when G_PARM has none), without setting anything.
    func readFrameDuration() throws(V4L2Error) -> (duration: Rational?, dv: Rational?, timePerFrame: Bool) {
        var p = v4l2_streamparm()
        p.type = bufferType
        let rc = sys.ioctl(fd, .gParm, &p)
        if rc != 0 && rc != ENOTTY && rc != EINVAL { throw V4L2Error(device: path, request: V4L2Request.gParm.rawValue, errno: rc) }
        let reported = rc == 0 ? VideoDevice.fract(p.parm.capture.timeperframe).flatMap { $0.isPositive ? $0 : nil } : nil
        let dv = dvTimingsRate().map { Rational.one / $0 }
        return (reported ?? dv, dv, rc == 0 && p.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0)
    }

    /// The current DV timings' frame rate (pixel clock / total frame size; ×1000/1001 with
    /// V4L2_DV_FL_REDUCED_FPS), for HDMI-style inputs. nil when the input has no DV timings.
    public func dvTimingsRate() -> Rational? {
        var t = v4l2_dv_timings()
        guard sys.ioctl(fd, .gDvTimings, &t) == 0, t.type == UInt32(V4L2_DV_BT_656_1120) else { return nil }
        let bt = t.bt
        let htotal = Int64(bt.width) + Int64(bt.hfrontporch) + Int64(bt.hsync) + Int64(bt.hbackporch)
        var vtotal = Int64(bt.height) + Int64(bt.vfrontporch) + Int64(bt.vsync) + Int64(bt.vbackporch)
        if bt.interlaced != 0 { vtotal += Int64(bt.il_vfrontporch) + Int64(bt.il_vsync) + Int64(bt.il_vbackporch) }
        guard htotal > 0, vtotal > 0, bt.pixelclock > 0, let clock = Int64(exactly: bt.pixelclock) else { return nil }
        var r = Rational(clock, htotal * vtotal)
        if bt.flags & UInt32(V4L2_DV_FL_REDUCED_FPS) != 0 { r = r * Rational(1000, 1001) }
        return r
    }

    /// Step 3 of the type's notes. Missing controls are skipped silently (most drivers have none).
    func keepRateInLowLight(frameDuration: Rational, controls: inout [String: Int32], notes: inout [String]) {
        if let now = readControl(CV4L2_CID_EXPOSURE_AUTO_PRIORITY) {
            let after = now == 0 ? now : writeControl(CV4L2_CID_EXPOSURE_AUTO_PRIORITY, 0, name: "exposure_auto_priority", notes: &notes)
            controls["exposure_auto_priority"] = after
        }
        guard let auto = readControl(CV4L2_CID_EXPOSURE_AUTO) else { return }
        controls["exposure_auto"] = auto
        let manualTime = auto == Int32(V4L2_EXPOSURE_MANUAL.rawValue) || auto == Int32(V4L2_EXPOSURE_SHUTTER_PRIORITY.rawValue)
        guard manualTime, let minimum = queryControl(CV4L2_CID_EXPOSURE_ABSOLUTE), let exposure = getControl(CV4L2_CID_EXPOSURE_ABSOLUTE) else { return }
        let limit = Int32(clamping: (frameDuration * Rational(10_000)).floor)  // 100 µs units
        var after = exposure
        if exposure > limit {
            let target = max(limit, minimum)
            // the two outcomes below say what happened; no separate "driver keeps" note
            after = writeControl(CV4L2_CID_EXPOSURE_ABSOLUTE, target, name: "exposure_absolute", noteIfAdjusted: false, notes: &notes)
            if after <= limit {
                notes.append("exposure_absolute \(exposure) clamped to \(after) (100 µs units) to fit the frame duration \(frameDuration) s")
            } else {
                notes.append(
                    "exposure_absolute is \(after) (100 µs units), longer than the frame duration \(frameDuration) s: "
                        + "the driver will lower the rate")
            }
        }
        controls["exposure_absolute"] = after
    }

    /// VIDIOC_QUERYCTRL: the control's minimum; nil when it does not exist or is disabled.
    func queryControl(_ id: UInt32) -> Int32? {
        var q = v4l2_queryctrl()
        q.id = id
        guard sys.ioctl(fd, .queryctrl, &q) == 0, q.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else { return nil }
        return q.minimum
    }

    /// VIDIOC_G_CTRL alone (the control is known to exist).
    func getControl(_ id: UInt32) -> Int32? {
        var c = v4l2_control(id: id, value: 0)
        return sys.ioctl(fd, .gCtrl, &c) == 0 ? c.value : nil
    }

    /// VIDIOC_QUERYCTRL then G_CTRL: the value of a control that exists.
    func readControl(_ id: UInt32) -> Int32? {
        queryControl(id) != nil ? getControl(id) : nil
    }

    /// VIDIOC_S_CTRL, then G_CTRL: the value read back. A refusal is one note, not a failure; a value
    /// the driver adjusted is noted too unless `noteIfAdjusted` is false (the caller says it better).
    func writeControl(_ id: UInt32, _ value: Int32, name: String, noteIfAdjusted: Bool = true, notes: inout [String]) -> Int32 {
        var c = v4l2_control(id: id, value: value)
        let rc = sys.ioctl(fd, .sCtrl, &c)
        let after = getControl(id) ?? value
        if rc != 0 {
            notes.append("\(name) could not be set to \(value) (VIDIOC_S_CTRL: \(V4L2Error.errnoText(rc)) (\(V4L2Error.errnoName(rc)))); it stays \(after)")
        } else if after != value && noteIfAdjusted {
            notes.append("\(name) set to \(value), driver keeps \(after)")
        }
        return after
    }
}
