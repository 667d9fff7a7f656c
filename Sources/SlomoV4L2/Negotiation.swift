internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif
import SlomoCore

extension VideoDevice {
    /// Applies `mode` like AVFoundation's activeFormat + min/max frame duration: S_FMT, then S_PARM with
    /// timeperframe = the mode's frame duration (when the driver has V4L2_CAP_TIMEPERFRAME), then the
    /// controls that would otherwise lower the rate in low light (exposure auto priority off; with
    /// manual exposure, the absolute exposure clamped to the frame duration). Everything is read back:
    /// the result says what the driver really set.
    public func apply(_ mode: CaptureMode) throws(V4L2Error) -> AppliedMode {
        var adjustments: [String] = []
        guard !info.isMultiplanar else {
            throw V4L2Error(device: path, request: "VIDIOC_S_FMT", errno: 0, detail: "multi-planar capture is not supported yet", code: .unsupported)
        }
        var f = v4l2_format()
        f.type = bufferType
        f.fmt.pix.width = UInt32(mode.width)
        f.fmt.pix.height = UInt32(mode.height)
        f.fmt.pix.pixelformat = VideoDevice.code(mode.pixelFormat)
        f.fmt.pix.field = V4L2_FIELD_ANY.rawValue
        try call(.sFmt, &f, detail: "\(mode.pixelFormat) \(mode.width)x\(mode.height)")
        var g = v4l2_format()
        g.type = bufferType
        try call(.gFmt, &g)
        let gotFourcc = VideoDevice.fourcc(g.fmt.pix.pixelformat)
        let (w, h) = (Int(g.fmt.pix.width), Int(g.fmt.pix.height))
        if gotFourcc != mode.pixelFormat { adjustments.append("pixel format \(mode.pixelFormat) requested, driver set \(gotFourcc)") }
        if w != mode.width || h != mode.height { adjustments.append("size \(mode.width)x\(mode.height) requested, driver set \(w)x\(h)") }

        var p = v4l2_streamparm()
        p.type = bufferType
        var duration: Rational?
        var timePerFrame = false
        let grc = sys.ioctl(fd, .gParm, &p)
        if grc == 0 {
            timePerFrame = p.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0
            if timePerFrame {
                p.parm.capture.timeperframe = v4l2_fract(numerator: UInt32(mode.frameDuration.numerator), denominator: UInt32(mode.frameDuration.denominator))
                try call(.sParm, &p, detail: "timeperframe \(mode.frameDuration)")
                var q = v4l2_streamparm()
                q.type = bufferType
                try call(.gParm, &q)
                p = q
            } else {
                adjustments.append("driver has no V4L2_CAP_TIMEPERFRAME: the rate cannot be set, capturing at the driver's rate")
            }
            duration = VideoDevice.fract(p.parm.capture.timeperframe).flatMap { $0.isPositive ? $0 : nil }
        } else if grc != ENOTTY && grc != EINVAL {
            throw V4L2Error(device: path, request: "VIDIOC_G_PARM", errno: grc)
        } else {
            adjustments.append("driver does not report its frame interval (VIDIOC_G_PARM: \(V4L2Error.errnoName(grc)))")
        }
        // HDMI-style inputs: the rate comes from the DV timings.
        if let dv = dvTimingsRate() {
            if duration == nil || duration != Rational.one / dv { duration = Rational.one / dv }
        }
        if let d = duration, d != mode.frameDuration {
            adjustments.append("frame duration \(mode.frameDuration) s (\(Seconds(mode.fps)) fps) requested, driver runs at \(d) s (\(Seconds(Rational.one / d)) fps)")
        }
        var controls: [String: Int32] = [:]
        if let v = setControlIfPresent(CV4L2_CID_EXPOSURE_AUTO_PRIORITY, to: 0) { controls["exposure_auto_priority"] = v }
        if let auto = getControl(CV4L2_CID_EXPOSURE_AUTO) {
            controls["exposure_auto"] = auto
            if auto == Int32(V4L2_EXPOSURE_MANUAL.rawValue), let d = duration ?? Optional(mode.frameDuration),
               let exp = getControl(CV4L2_CID_EXPOSURE_ABSOLUTE) {
                let limit = Int32(clamping: (d * Rational(10_000)).floor)     // 100 µs units
                if exp > limit, let v = setControlIfPresent(CV4L2_CID_EXPOSURE_ABSOLUTE, to: limit) {
                    adjustments.append("exposure_absolute \(exp) clamped to \(v) (100 µs units) to fit the frame duration")
                }
                controls["exposure_absolute"] = getControl(CV4L2_CID_EXPOSURE_ABSOLUTE)
            }
        }
        return AppliedMode(requested: mode, pixelFormat: gotFourcc, width: w, height: h, bytesPerLine: Int(g.fmt.pix.bytesperline),
                           frameDuration: duration, timePerFrameSupported: timePerFrame, controls: controls, adjustments: adjustments)
    }

    /// The current DV timings' frame rate (pixel clock / total frame size), for HDMI-style inputs.
    public func dvTimingsRate() -> Rational? {
        var t = v4l2_dv_timings()
        guard sys.ioctl(fd, .gDvTimings, &t) == 0, t.type == UInt32(V4L2_DV_BT_656_1120) else { return nil }
        let bt = t.bt
        let htotal = Int64(bt.width + bt.hfrontporch + bt.hsync + bt.hbackporch)
        var vtotal = Int64(bt.height + bt.vfrontporch + bt.vsync + bt.vbackporch)
        if bt.interlaced != 0 { vtotal += Int64(bt.il_vfrontporch + bt.il_vsync + bt.il_vbackporch) }
        guard htotal > 0, vtotal > 0, bt.pixelclock > 0, let clock = Int64(exactly: bt.pixelclock) else { return nil }
        var r = Rational(clock, htotal * vtotal)
        if bt.flags & UInt32(V4L2_DV_FL_REDUCED_FPS) != 0 { r = r * Rational(1000, 1001) }
        return r
    }

    func getControl(_ id: UInt32) -> Int32? {
        var q = v4l2_queryctrl()
        q.id = id
        guard sys.ioctl(fd, .queryctrl, &q) == 0, q.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0 else { return nil }
        var c = v4l2_control(id: id, value: 0)
        return sys.ioctl(fd, .gCtrl, &c) == 0 ? c.value : nil
    }

    /// Sets a control that exists and is writable; returns the value read back.
    func setControlIfPresent(_ id: UInt32, to value: Int32) -> Int32? {
        var q = v4l2_queryctrl()
        q.id = id
        guard sys.ioctl(fd, .queryctrl, &q) == 0, q.flags & UInt32(V4L2_CTRL_FLAG_DISABLED | V4L2_CTRL_FLAG_READ_ONLY) == 0 else { return nil }
        var c = v4l2_control(id: id, value: value)
        _ = sys.ioctl(fd, .sCtrl, &c)
        return getControl(id)
    }
}
