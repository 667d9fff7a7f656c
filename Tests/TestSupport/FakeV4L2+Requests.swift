import CV4L2
import Glibc
import SlomoCore
import SlomoV4L2

/// The fake driver's answers to the enumeration, format, rate, control, selection and timing
/// requests (the streaming ones are in `streamRequest`).
extension FakeV4L2 {
    func querycap(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        let c = arg.assumingMemoryBound(to: v4l2_capability.self)
        c.pointee.capabilities = caps | UInt32(V4L2_CAP_DEVICE_CAPS)
        c.pointee.device_caps = caps
        write("fake", to: &c.pointee.driver)
        write("Fake Camera", to: &c.pointee.card)
        write("usb-0000:00:14.0-1", to: &c.pointee.bus_info)
        return 0
    }

    func enumFmt(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        let d = arg.assumingMemoryBound(to: v4l2_fmtdesc.self)
        guard d.pointee.type == bufferType else { return EINVAL }
        let i = Int(d.pointee.index)
        if endlessFormats {
            d.pointee.pixelformat = VideoDevice.code("GREY")
            return 0
        }
        guard i < formats.count else { return EINVAL }
        d.pointee.pixelformat = VideoDevice.code(formats[i].fourcc)
        d.pointee.flags = formats[i].compressed ? UInt32(V4L2_FMT_FLAG_COMPRESSED) : 0
        write(formats[i].fourcc + " format", to: &d.pointee.description)
        return 0
    }

    func enumFramesizes(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        let s = arg.assumingMemoryBound(to: v4l2_frmsizeenum.self)
        guard let f = format(s.pointee.pixel_format) else { return EINVAL }
        switch f.sizes {
        case .discrete(let list):
            guard Int(s.pointee.index) < list.count else { return EINVAL }
            s.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
            s.pointee.discrete.width = UInt32(list[Int(s.pointee.index)].0)
            s.pointee.discrete.height = UInt32(list[Int(s.pointee.index)].1)
        case .stepwise(let mn, let mx, let st):
            guard s.pointee.index == 0 else { return EINVAL }
            s.pointee.type = V4L2_FRMSIZE_TYPE_STEPWISE.rawValue
            s.pointee.stepwise = v4l2_frmsize_stepwise(
                min_width: UInt32(mn.0), max_width: UInt32(mx.0), step_width: UInt32(st.0),
                min_height: UInt32(mn.1), max_height: UInt32(mx.1), step_height: UInt32(st.1))
        }
        return 0
    }

    func enumFrameintervals(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        let v = arg.assumingMemoryBound(to: v4l2_frmivalenum.self)
        guard let f = format(v.pointee.pixel_format) else { return EINVAL }
        let (w, h) = (Int(v.pointee.width), Int(v.pointee.height))
        switch f.sizes {
        case .discrete(let list):
            guard let size = list.first(where: { $0.0 == w && $0.1 == h }), Int(v.pointee.index) < size.2.count else { return EINVAL }
            v.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
            let (n, d) = size.2[Int(v.pointee.index)]
            v.pointee.discrete = v4l2_fract(numerator: n, denominator: d)
        case .stepwise:
            guard v.pointee.index == 0 else { return EINVAL }
            log.append("ENUM_FRAMEINTERVALS \(w)x\(h)")
            let a = intervalsAt(w, h)
            v.pointee.type = a.type
            v.pointee.stepwise.min = v4l2_fract(numerator: a.min.0, denominator: a.min.1)
            v.pointee.stepwise.max = v4l2_fract(numerator: a.max.0, denominator: a.max.1)
            v.pointee.stepwise.step = v4l2_fract(numerator: 1, denominator: 1000)
        }
        return 0
    }

    func formatRequest(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        let f = arg.assumingMemoryBound(to: v4l2_format.self)
        guard f.pointee.type == bufferType else { return EINVAL }
        let mplane = bufferType == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
        if r == .sFmt {
            let (fc, w, h) =
                mplane
                ? (f.pointee.fmt.pix_mp.pixelformat, Int(f.pointee.fmt.pix_mp.width), Int(f.pointee.fmt.pix_mp.height))
                : (f.pointee.fmt.pix.pixelformat, Int(f.pointee.fmt.pix.width), Int(f.pointee.fmt.pix.height))
            log.append("S_FMT \(VideoDevice.fourcc(fc)) \(w)x\(h)")
            let known = format(fc) != nil
            let (rw, rh) = roundSize((w, h))
            current = (known ? VideoDevice.fourcc(fc) : formats[0].fourcc, rw, rh)
        }
        f.pointee = v4l2_format()
        f.pointee.type = bufferType
        if mplane {
            f.pointee.fmt.pix_mp.pixelformat = VideoDevice.code(current.fourcc)
            f.pointee.fmt.pix_mp.width = UInt32(current.width)
            f.pointee.fmt.pix_mp.height = UInt32(current.height)
            f.pointee.fmt.pix_mp.num_planes = 1
            f.pointee.fmt.pix_mp.plane_fmt.0.bytesperline = UInt32(current.width * 2)
        } else {
            f.pointee.fmt.pix.pixelformat = VideoDevice.code(current.fourcc)
            f.pointee.fmt.pix.width = UInt32(current.width)
            f.pointee.fmt.pix.height = UInt32(current.height)
            f.pointee.fmt.pix.bytesperline = UInt32(current.width * 2)
            f.pointee.fmt.pix.sizeimage = UInt32(current.width * 2 * current.height)
        }
        return 0
    }

    func parmRequest(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        let p = arg.assumingMemoryBound(to: v4l2_streamparm.self)
        guard p.pointee.type == bufferType else { return EINVAL }
        if r == .sParm {
            let t = p.pointee.parm.capture.timeperframe
            log.append("S_PARM \(t.numerator)/\(t.denominator)")
            if timePerFrame { interval = roundInterval((t.numerator, t.denominator)) }
        }
        p.pointee.parm.capture.capability = timePerFrame ? UInt32(V4L2_CAP_TIMEPERFRAME) : 0
        p.pointee.parm.capture.timeperframe = v4l2_fract(numerator: interval.0, denominator: interval.1)
        return 0
    }

    func queryctrl(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        let q = arg.assumingMemoryBound(to: v4l2_queryctrl.self)
        guard let c = controls[q.pointee.id] else { return EINVAL }
        q.pointee.minimum = c.min
        q.pointee.maximum = c.max
        q.pointee.flags = c.flags
        return 0
    }

    func controlRequest(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        let c = arg.assumingMemoryBound(to: v4l2_control.self)
        guard let ctrl = controls[c.pointee.id] else { return EINVAL }
        if r == .sCtrl {
            log.append("S_CTRL \(FakeV4L2.controlName(c.pointee.id)) \(c.pointee.value)")
            if let e = refuse[c.pointee.id] { return e }
            controls[c.pointee.id]!.value = min(max(c.pointee.value, ctrl.min), ctrl.max)
        } else {
            c.pointee.value = ctrl.value
        }
        return 0
    }

    func selectionRequest(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        guard var sel = selection else { return ENODATA }
        let p = arg.assumingMemoryBound(to: v4l2_selection.self)
        if r == .sSelection {
            let w = p.pointee.r
            log.append("S_SELECTION \(w.width)x\(w.height) at \(w.left),\(w.top)")
            sel.crop = PixelRect(left: Int(w.left), top: Int(w.top), width: Int(w.width), height: Int(w.height))
            selection = sel
            current.width = sel.crop.width  // no scaler: the frames are the crop
            current.height = sel.crop.height
        }
        let rect = p.pointee.target == UInt32(V4L2_SEL_TGT_CROP_BOUNDS) ? sel.bounds : sel.crop
        p.pointee.r = v4l2_rect(left: Int32(rect.left), top: Int32(rect.top), width: UInt32(rect.width), height: UInt32(rect.height))
        return 0
    }

    func dvTimings(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        guard let dv else { return ENOTTY }
        let t = arg.assumingMemoryBound(to: v4l2_dv_timings.self)
        t.pointee.type = UInt32(V4L2_DV_BT_656_1120)
        t.pointee.bt.width = 640
        t.pointee.bt.height = 480
        t.pointee.bt.hfrontporch = dv.htotal - 640
        t.pointee.bt.vfrontporch = dv.vtotal - 480
        t.pointee.bt.pixelclock = dv.clock
        return 0
    }
}
