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

    /// One step of a VIDIOC_ENUM_* list: true when `query` (index already set) was filled, false at
    /// the end (EINVAL; ENOTTY too when `endOnENOTTY`: the driver does not enumerate this). Other
    /// errnos are errors naming `detail`, or carrying `enottyHint` when given and the errno is ENOTTY.
    func next<T>(
        _ request: V4L2Request, _ query: inout T, detail: String, endOnENOTTY: Bool = true,
        enottyHint: String? = nil
    ) throws(V4L2Error) -> Bool {
        let rc = withUnsafeMutableBytes(of: &query) { sys.ioctl(fd, request, $0.baseAddress!) }
        if rc == 0 { return true }
        if rc == EINVAL || (rc == ENOTTY && endOnENOTTY) { return false }
        if rc == ENOTTY, let enottyHint { throw V4L2Error(device: path, request: request.rawValue, errno: rc, hint: enottyHint) }
        throw V4L2Error(device: path, request: request.rawValue, errno: rc, detail: detail)
    }

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
            guard
                try next(
                    .enumFmt, &d, detail: "index \(i)", endOnENOTTY: false,
                    enottyHint: i == 0 ? "the driver lists no formats" : nil)
            else { break }
            let fcc = VideoDevice.fourcc(d.pixelformat)
            let sizes = try self.sizes(d.pixelformat, fourcc: fcc, probeSize: probeSize)
            formats.append(
                PixelFormatEntry(
                    index: i, fourcc: fcc, description: VideoDevice.text(d.description),
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
            guard try next(.enumFramesizes, &s, detail: "\(fourcc) index \(i)") else { break }
            if s.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let w = Int(s.discrete.width), h = Int(s.discrete.height)
                let entry = SizeEntry(size: .discrete(width: w, height: h), intervals: try intervals(pixfmt, fourcc: fourcc, w, h))
                if !out.contains(entry) { out.append(entry) }
                continue
            }
            let sw = s.stepwise
            let size: FrameSize =
                s.type == V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue
                ? .continuous(
                    minWidth: Int(sw.min_width), minHeight: Int(sw.min_height),
                    maxWidth: Int(sw.max_width), maxHeight: Int(sw.max_height))
                : .stepwise(
                    minWidth: Int(sw.min_width), minHeight: Int(sw.min_height), maxWidth: Int(sw.max_width),
                    maxHeight: Int(sw.max_height), stepWidth: Int(sw.step_width), stepHeight: Int(sw.step_height))
            let at =
                probeSize.flatMap { size.contains(width: $0.0, height: $0.1) ? Dimensions(width: $0.0, height: $0.1) : nil }
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
            guard try next(.enumFrameintervals, &v, detail: "\(fourcc) \(w)x\(h) index \(i)") else { break }
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
