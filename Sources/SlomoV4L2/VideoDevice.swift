internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif
import SlomoCore

/// An open V4L2 node (closed in `deinit`). Not thread-safe; one owner.
public final class VideoDevice {
    public let path: String
    let sys: V4L2Syscalls
    let fd: Int32
    public let info: DeviceInfo
    var bufferType: UInt32 { info.isMultiplanar ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue : V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue }

    public init(path: String, syscalls: V4L2Syscalls = LiveV4L2Syscalls(), requireCapture: Bool = true) throws(V4L2Error) {
        self.path = path
        sys = syscalls
        switch syscalls.kind(of: path) {
        case .missing: throw V4L2Error(device: path, request: "open", errno: ENOENT)
        case .notCharacterDevice: throw V4L2Error(device: path, request: "open", errno: 0, detail: "is not a V4L2 device (not a character device)", code: .notCharacterDevice)
        case .characterDevice: break
        }
        let (f, e) = syscalls.open(path)
        guard f >= 0 else { throw V4L2Error(device: path, request: "open", errno: e) }
        fd = f
        var cap = v4l2_capability()
        let rc = syscalls.ioctl(f, .querycap, &cap)
        guard rc == 0 else {
            syscalls.close(f)
            throw V4L2Error(device: path, request: "VIDIOC_QUERYCAP", errno: rc, detail: rc == ENOTTY ? "(not a V4L2 device)" : nil)
        }
        info = VideoDevice.describe(cap, path: path)
        if requireCapture && !info.isCapture {
            syscalls.close(f)
            throw V4L2Error(device: path, request: "VIDIOC_QUERYCAP", errno: 0,
                            detail: "shows no video capture capability (\(info.capabilityNames.joined(separator: ", ")))", code: .notCapture)
        }
    }

    deinit { sys.close(fd) }

    static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func describe(_ cap: v4l2_capability, path: String) -> DeviceInfo {
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        func has(_ flag: Int32) -> Bool { caps & UInt32(flag) != 0 }
        let named: [(Int32, String)] = [(V4L2_CAP_VIDEO_CAPTURE, "Video Capture"), (V4L2_CAP_VIDEO_CAPTURE_MPLANE, "Video Capture Multiplanar"),
                                        (V4L2_CAP_VIDEO_OUTPUT, "Video Output"), (V4L2_CAP_META_CAPTURE, "Metadata Capture"),
                                        (V4L2_CAP_VBI_CAPTURE, "VBI Capture"), (V4L2_CAP_TUNER, "Tuner"), (V4L2_CAP_RADIO, "Radio"),
                                        (V4L2_CAP_STREAMING, "Streaming"), (V4L2_CAP_READWRITE, "Read/Write"), (V4L2_CAP_TOUCH, "Touch")]
        return DeviceInfo(
            path: path, driver: text(cap.driver), card: text(cap.card), bus: text(cap.bus_info),
            capabilities: cap.capabilities, deviceCaps: caps,
            isCapture: has(V4L2_CAP_VIDEO_CAPTURE) || has(V4L2_CAP_VIDEO_CAPTURE_MPLANE),
            isMultiplanar: !has(V4L2_CAP_VIDEO_CAPTURE) && has(V4L2_CAP_VIDEO_CAPTURE_MPLANE),
            isMetadata: has(V4L2_CAP_META_CAPTURE) && !has(V4L2_CAP_VIDEO_CAPTURE) && !has(V4L2_CAP_VIDEO_CAPTURE_MPLANE),
            canStream: has(V4L2_CAP_STREAMING), hasTimePerFrame: nil,
            capabilityNames: named.filter { has($0.0) }.map(\.1))
    }

    func call(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer, detail: String? = nil) throws(V4L2Error) {
        let rc = sys.ioctl(fd, r, arg)
        if rc != 0 { throw V4L2Error(device: path, request: r.rawValue, errno: rc, detail: detail) }
    }

    /// The fourcc as text; big-endian variants (bit 31 set) print as v4l2-ctl does: `Y16 -BE`.
    static func fourcc(_ v: UInt32) -> FourCC {
        let bigEndian = v & (1 << 31) != 0
        let c = v & 0x7FFF_FFFF
        let text = String(decoding: [UInt8(c & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c >> 16 & 0xFF), UInt8(c >> 24 & 0xFF)], as: UTF8.self)
        return bigEndian ? text + "-BE" : text
    }

    static func code(_ f: FourCC) -> UInt32 {
        let bigEndian = f.hasSuffix("-BE")
        let b = Array(((bigEndian ? String(f.dropLast(3)) : f) + "    ").utf8.prefix(4))
        let v = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
        return bigEndian ? v | 1 << 31 : v
    }

    /// The current format's size (G_FMT), used for stepwise/continuous sizes.
    public func currentSize() -> (Int, Int)? {
        var g = v4l2_format()
        g.type = bufferType
        guard sys.ioctl(fd, .gFmt, &g) == 0, !info.isMultiplanar else { return nil }
        return (Int(g.fmt.pix.width), Int(g.fmt.pix.height))
    }

    /// Enumerates formats → sizes → intervals. EINVAL past the last index ends a list; ENOTTY on
    /// sizes/intervals means "not enumerable" (kept as no sizes / no intervals). Lists are bounded.
    public func catalog() throws(V4L2Error) -> DeviceCatalog {
        var formats: [PixelFormatEntry] = []
        for i in 0..<256 {
            var d = v4l2_fmtdesc()
            d.index = UInt32(i)
            d.type = bufferType
            let rc = sys.ioctl(fd, .enumFmt, &d)
            if rc == EINVAL { break }
            if rc != 0 { throw V4L2Error(device: path, request: "VIDIOC_ENUM_FMT", errno: rc, detail: "index \(i)") }
            let fcc = VideoDevice.fourcc(d.pixelformat)
            let sizes = try self.sizes(d.pixelformat, fourcc: fcc)
            formats.append(PixelFormatEntry(index: i, fourcc: fcc, description: VideoDevice.text(d.description),
                                            compressed: d.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0,
                                            emulated: d.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0, sizes: sizes))
        }
        return DeviceCatalog(formats: formats)
    }

    func sizes(_ pixfmt: UInt32, fourcc: FourCC) throws(V4L2Error) -> [SizeEntry] {
        var out: [SizeEntry] = []
        for i in 0..<512 {
            var s = v4l2_frmsizeenum()
            s.index = UInt32(i)
            s.pixel_format = pixfmt
            let rc = sys.ioctl(fd, .enumFramesizes, &s)
            if rc == EINVAL || rc == ENOTTY { break }
            if rc != 0 { throw V4L2Error(device: path, request: "VIDIOC_ENUM_FRAMESIZES", errno: rc, detail: "\(fourcc) index \(i)") }
            if s.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let w = Int(s.discrete.width), h = Int(s.discrete.height)
                out.append(SizeEntry(size: .discrete(width: w, height: h), intervals: try intervals(pixfmt, fourcc: fourcc, w, h)))
            } else {
                let sw = s.stepwise
                let size: FrameSize = s.type == V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue
                    ? .continuous(minWidth: Int(sw.min_width), minHeight: Int(sw.min_height), maxWidth: Int(sw.max_width), maxHeight: Int(sw.max_height))
                    : .stepwise(minWidth: Int(sw.min_width), minHeight: Int(sw.min_height), maxWidth: Int(sw.max_width), maxHeight: Int(sw.max_height),
                                stepWidth: Int(sw.step_width), stepHeight: Int(sw.step_height))
                out.append(SizeEntry(size: size, intervals: try intervals(pixfmt, fourcc: fourcc, Int(sw.max_width), Int(sw.max_height))))
                break    // one stepwise/continuous entry describes all sizes
            }
        }
        return out
    }

    static func fract(_ f: v4l2_fract) -> Rational? {
        f.denominator == 0 ? nil : Rational(Int64(f.numerator), Int64(f.denominator))
    }

    func intervals(_ pixfmt: UInt32, fourcc: FourCC, _ w: Int, _ h: Int) throws(V4L2Error) -> FrameIntervals? {
        var list: [Rational] = []
        for i in 0..<256 {
            var v = v4l2_frmivalenum()
            v.index = UInt32(i)
            v.pixel_format = pixfmt
            v.width = UInt32(w)
            v.height = UInt32(h)
            let rc = sys.ioctl(fd, .enumFrameintervals, &v)
            if rc == EINVAL || rc == ENOTTY { break }
            if rc != 0 { throw V4L2Error(device: path, request: "VIDIOC_ENUM_FRAMEINTERVALS", errno: rc, detail: "\(fourcc) \(w)x\(h) index \(i)") }
            if v.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                if let r = VideoDevice.fract(v.discrete), r.isPositive, !list.contains(r) { list.append(r) }
            } else {
                guard let mn = VideoDevice.fract(v.stepwise.min), let mx = VideoDevice.fract(v.stepwise.max) else { return nil }
                if v.type == V4L2_FRMIVAL_TYPE_CONTINUOUS.rawValue { return .continuous(min: mn, max: mx) }
                return .stepwise(min: mn, max: mx, step: VideoDevice.fract(v.stepwise.step) ?? .zero)
            }
        }
        return list.isEmpty ? nil : .discrete(list)
    }
}
