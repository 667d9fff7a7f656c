internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif
import SlomoCore

/// Probing like GStreamer's v4l2src: formats → sizes → frame intervals, every list bounded.
///
/// End and absence are states, not failures: EINVAL at index N ends a list (the documented
/// end-of-list answer); ENOTTY on sizes or intervals means the driver does not enumerate them
/// (kept as "no sizes" / "no intervals", so that size or format cannot be selected). Any other
/// errno — EIO, ENODEV mid-way — is a `V4L2Error` naming the request and the index.
extension VideoDevice {
    /// Bounds: no real node has more; a buggy driver that never answers EINVAL stops here.
    static let maxFormats = 256, maxSizes = 512, maxIntervals = 256

    /// The node's full catalog.
    ///
    /// `probeSize`: for stepwise/continuous sizes, the size whose intervals are enumerated
    /// (when inside the range and on the step grid); otherwise the largest size. Intervals depend
    /// on the size, so the entry records which one they were measured at (`intervalsSize`).
    public func catalog(probeSize: (Int, Int)? = nil) throws(V4L2Error) -> DeviceCatalog {
        var formats: [PixelFormatEntry] = []
        for i in 0..<VideoDevice.maxFormats {
            var d = v4l2_fmtdesc()
            d.index = UInt32(i)
            d.type = bufferType
            let rc = sys.ioctl(fd, .enumFmt, &d)
            if rc == EINVAL { break }
            if rc == ENOTTY && i == 0 {
                throw V4L2Error(device: path, request: V4L2Request.enumFmt.rawValue, errno: rc, hint: "the driver lists no formats")
            }
            if rc != 0 { throw V4L2Error(device: path, request: V4L2Request.enumFmt.rawValue, errno: rc, detail: "index \(i)") }
            let fcc = VideoDevice.fourcc(d.pixelformat)
            let sizes = try self.sizes(d.pixelformat, fourcc: fcc, probeSize: probeSize)
            formats.append(PixelFormatEntry(index: i, fourcc: fcc, description: VideoDevice.text(d.description),
                                            compressed: d.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                                            emulated: d.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0, sizes: sizes))
        }
        return DeviceCatalog(formats: formats)
    }

    /// VIDIOC_ENUM_FRAMESIZES for one format. A stepwise/continuous answer describes every size
    /// at once (index 0 only), so the loop stops there.
    func sizes(_ pixfmt: UInt32, fourcc: FourCC, probeSize: (Int, Int)?) throws(V4L2Error) -> [SizeEntry] {
        var out: [SizeEntry] = []
        for i in 0..<VideoDevice.maxSizes {
            var s = v4l2_frmsizeenum()
            s.index = UInt32(i)
            s.pixel_format = pixfmt
            let rc = sys.ioctl(fd, .enumFramesizes, &s)
            if rc == EINVAL || rc == ENOTTY { break }
            if rc != 0 {
                throw V4L2Error(device: path, request: V4L2Request.enumFramesizes.rawValue, errno: rc, detail: "\(fourcc) index \(i)")
            }
            if s.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let w = Int(s.discrete.width), h = Int(s.discrete.height)
                let entry = SizeEntry(size: .discrete(width: w, height: h), intervals: try intervals(pixfmt, fourcc: fourcc, w, h))
                if !out.contains(entry) { out.append(entry) }
                continue
            }
            let sw = s.stepwise
            let size: FrameSize = s.type == V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue
                ? .continuous(minWidth: Int(sw.min_width), minHeight: Int(sw.min_height),
                              maxWidth: Int(sw.max_width), maxHeight: Int(sw.max_height))
                : .stepwise(minWidth: Int(sw.min_width), minHeight: Int(sw.min_height), maxWidth: Int(sw.max_width),
                            maxHeight: Int(sw.max_height), stepWidth: Int(sw.step_width), stepHeight: Int(sw.step_height))
            let at = probeSize.flatMap { size.contains(width: $0.0, height: $0.1) ? Dimensions(width: $0.0, height: $0.1) : nil }
                ?? Dimensions(width: Int(sw.max_width), height: Int(sw.max_height))
            out.append(SizeEntry(size: size, intervals: try intervals(pixfmt, fourcc: fourcc, at.width, at.height), intervalsSize: at))
            break
        }
        return out
    }

    /// VIDIOC_ENUM_FRAMEINTERVALS for one format and size: discrete lists (duplicates dropped,
    /// driver order kept), or one stepwise/continuous range. nil when the driver gives none.
    func intervals(_ pixfmt: UInt32, fourcc: FourCC, _ w: Int, _ h: Int) throws(V4L2Error) -> FrameIntervals? {
        var list: [Rational] = []
        for i in 0..<VideoDevice.maxIntervals {
            var v = v4l2_frmivalenum()
            v.index = UInt32(i)
            v.pixel_format = pixfmt
            v.width = UInt32(w)
            v.height = UInt32(h)
            let rc = sys.ioctl(fd, .enumFrameintervals, &v)
            if rc == EINVAL || rc == ENOTTY { break }
            if rc != 0 {
                throw V4L2Error(device: path, request: V4L2Request.enumFrameintervals.rawValue, errno: rc,
                                detail: "\(fourcc) \(w)x\(h) index \(i)")
            }
            if v.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                if let r = VideoDevice.fract(v.discrete), r.isPositive, !list.contains(r) { list.append(r) }
                continue
            }
            // stepwise/continuous: one answer at index 0 describes the range
            guard let mn = VideoDevice.fract(v.stepwise.min), let mx = VideoDevice.fract(v.stepwise.max), mn.isPositive else {
                return list.isEmpty ? nil : .discrete(list)
            }
            if v.type == V4L2_FRMIVAL_TYPE_CONTINUOUS.rawValue { return .continuous(min: mn, max: Swift.max(mn, mx)) }
            return .stepwise(min: mn, max: Swift.max(mn, mx), step: VideoDevice.fract(v.stepwise.step) ?? .zero)
        }
        return list.isEmpty ? nil : .discrete(list)
    }
}
