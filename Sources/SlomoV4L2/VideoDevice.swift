internal import CV4L2
#if canImport(Glibc)
    import Glibc
#endif
import SlomoCore

/// An open V4L2 node: the fd (closed in `deinit`) and its VIDIOC_QUERYCAP answer.
/// Not thread-safe; one owner (capture hands it to one `V4L2StreamingSource`).
public final class VideoDevice {
    public let path: String
    let sys: V4L2Syscalls
    let fd: Int32
    public let info: DeviceInfo
    /// Rows padded to this many bytes (S_FMT `bytesperline`; the driver may adjust it). Nil: the driver's choice.
    public var requestedBytesPerLine: Int?

    /// `V4L2_BUF_TYPE_VIDEO_CAPTURE`, or `…_MPLANE` on multi-planar-only nodes (every format,
    /// parameter and buffer ioctl must then use the MPLANE type).
    var bufferType: UInt32 { VideoDevice.bufferType(multiplanar: info.isMultiplanar) }

    static func bufferType(multiplanar: Bool) -> UInt32 {
        multiplanar ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue : V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    }

    /// Opens `path` and asks VIDIOC_QUERYCAP. Throws before opening when the path is missing or
    /// not a character device; with `requireCapture`, also when the node cannot capture video
    /// (metadata, output, touch…). Capture nodes also get one VIDIOC_G_PARM to learn whether the
    /// rate can be set (`hasTimePerFrame`).
    public init(path: String, syscalls: V4L2Syscalls = LiveV4L2Syscalls(), requireCapture: Bool = true) throws(V4L2Error) {
        self.path = path
        sys = syscalls
        switch syscalls.kind(of: path) {
        case .missing: throw V4L2Error(device: path, request: "open", errno: ENOENT)
        case .inaccessible(let e): throw V4L2Error(device: path, request: "stat", errno: e)
        case .notCharacterDevice:
            throw V4L2Error(
                device: path, request: "", errno: 0, detail: "not a V4L2 device (not a character device)",
                code: .notCharacterDevice)
        case .characterDevice: break
        }
        let (f, e) = syscalls.open(path)
        guard f >= 0 else { throw V4L2Error(device: path, request: "open", errno: e) }
        fd = f
        var cap = v4l2_capability()
        let rc = syscalls.ioctl(f, .querycap, &cap)
        guard rc == 0 else {
            syscalls.close(f)
            throw V4L2Error(
                device: path, request: V4L2Request.querycap.rawValue, errno: rc,
                code: rc == ENOTTY ? .notV4L2Device : nil, hint: rc == ENOTTY ? "not a V4L2 device" : nil)
        }
        var described = VideoDevice.describe(cap, path: path)
        if requireCapture && !described.isCapture {
            syscalls.close(f)
            throw V4L2Error(
                device: path, request: "", errno: 0,
                detail: "not a video capture device (\(described.capabilityNames.joined(separator: ", ")))",
                code: .notCapture)
        }
        if described.isCapture {
            var p = v4l2_streamparm()
            p.type = VideoDevice.bufferType(multiplanar: described.isMultiplanar)
            if syscalls.ioctl(f, .gParm, &p) == 0 {
                described.hasTimePerFrame = p.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0
            }
        }
        info = described
    }

    deinit { sys.close(fd) }

    /// A NUL-terminated fixed C array (imported as a tuple) as text.
    static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// QUERYCAP in SlomoCore terms. `device_caps` (this node) wins over `capabilities` (the whole
    /// device) when the driver fills it; metadata-only nodes (UVC's second node) are marked.
    static func describe(_ cap: v4l2_capability, path: String) -> DeviceInfo {
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        func has(_ flag: Int32) -> Bool { caps & UInt32(flag) != 0 }
        let named: [(Int32, String)] = [
            (V4L2_CAP_VIDEO_CAPTURE, "Video Capture"), (V4L2_CAP_VIDEO_CAPTURE_MPLANE, "Video Capture Multiplanar"),
            (V4L2_CAP_VIDEO_OUTPUT, "Video Output"), (V4L2_CAP_VIDEO_OUTPUT_MPLANE, "Video Output Multiplanar"),
            (V4L2_CAP_VIDEO_M2M, "Video Memory-to-Memory"), (V4L2_CAP_VIDEO_M2M_MPLANE, "Video Memory-to-Memory Multiplanar"),
            (V4L2_CAP_META_CAPTURE, "Metadata Capture"), (V4L2_CAP_META_OUTPUT, "Metadata Output"),
            (V4L2_CAP_VBI_CAPTURE, "VBI Capture"), (V4L2_CAP_SLICED_VBI_CAPTURE, "Sliced VBI Capture"),
            (V4L2_CAP_SDR_CAPTURE, "SDR Capture"), (V4L2_CAP_TUNER, "Tuner"), (V4L2_CAP_AUDIO, "Audio"),
            (V4L2_CAP_RADIO, "Radio"), (V4L2_CAP_TOUCH, "Touch"), (V4L2_CAP_EXT_PIX_FORMAT, "Extended Pix Format"),
            (V4L2_CAP_STREAMING, "Streaming"), (V4L2_CAP_READWRITE, "Read/Write"),
        ]
        let video = has(V4L2_CAP_VIDEO_CAPTURE), mplane = has(V4L2_CAP_VIDEO_CAPTURE_MPLANE)
        return DeviceInfo(
            path: path, driver: text(cap.driver), card: text(cap.card), bus: text(cap.bus_info),
            capabilities: cap.capabilities, deviceCaps: caps,
            isCapture: video || mplane, isMultiplanar: !video && mplane,
            isMetadata: has(V4L2_CAP_META_CAPTURE) && !video && !mplane,
            canStream: has(V4L2_CAP_STREAMING), hasTimePerFrame: nil,
            capabilityNames: named.filter { has($0.0) }.map(\.1))
    }

    /// The chokepoint for calls whose failure ends the operation: errno → `V4L2Error` with the request name.
    func call(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer, detail: String? = nil) throws(V4L2Error) {
        let rc = sys.ioctl(fd, r, arg)
        if rc != 0 { throw V4L2Error(device: path, request: r.rawValue, errno: rc, detail: detail) }
    }

    /// The fourcc as text; big-endian variants (bit 31 set) print as v4l2-ctl does: `Y16 -BE`.
    public static func fourcc(_ v: UInt32) -> FourCC {
        let bigEndian = v & (1 << 31) != 0
        let c = v & 0x7FFF_FFFF
        let bytes = [UInt8(c & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c >> 16 & 0xFF), UInt8(c >> 24 & 0xFF)]
        let text = String(decoding: bytes, as: UTF8.self)
        return bigEndian ? text + "-BE" : text
    }

    /// The fourcc's number (`v4l2_fourcc`, a function-like macro in C).
    public static func code(_ f: FourCC) -> UInt32 {
        let bigEndian = f.hasSuffix("-BE")
        let b = Array(((bigEndian ? String(f.dropLast(3)) : f) + "    ").utf8.prefix(4))
        let v = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
        return bigEndian ? v | 1 << 31 : v
    }

    /// The node's current format (VIDIOC_G_FMT), single- or multi-planar.
    public func currentFormat() throws(V4L2Error) -> (fourcc: FourCC, width: Int, height: Int, bytesPerLine: Int) {
        var g = v4l2_format()
        g.type = bufferType
        try call(.gFmt, &g)
        if info.isMultiplanar {
            let mp = g.fmt.pix_mp
            return (VideoDevice.fourcc(mp.pixelformat), Int(mp.width), Int(mp.height), Int(mp.plane_fmt.0.bytesperline))
        }
        let p = g.fmt.pix
        return (VideoDevice.fourcc(p.pixelformat), Int(p.width), Int(p.height), Int(p.bytesperline))
    }

    /// The current format's buffer planes (VIDIOC_G_FMT): bytes per line and buffer size of each
    /// plane the driver hands over (one on single-planar nodes).
    public func currentPlanes() throws(V4L2Error) -> [CapturePlane] {
        var g = v4l2_format()
        g.type = bufferType
        try call(.gFmt, &g)
        if info.isMultiplanar {
            let mp = g.fmt.pix_mp
            return withUnsafeBytes(of: mp.plane_fmt) { raw in
                let planes = raw.bindMemory(to: v4l2_plane_pix_format.self)
                return (0..<Int(min(mp.num_planes, UInt8(VIDEO_MAX_PLANES)))).map {
                    CapturePlane(bytesPerLine: Int(planes[$0].bytesperline), size: Int(planes[$0].sizeimage))
                }
            }
        }
        return [CapturePlane(bytesPerLine: Int(g.fmt.pix.bytesperline), size: Int(g.fmt.pix.sizeimage))]
    }

    /// The current format's size, used for stepwise/continuous sizes (scalers, HDMI receivers):
    /// the signal's own size is the natural choice there.
    public func currentSize() -> (Int, Int)? {
        guard let f = try? currentFormat() else { return nil }
        return (f.width, f.height)
    }

    /// `v4l2_fract` → seconds; nil for a zero denominator (some drivers report 0/0 or n/0).
    static func fract(_ f: v4l2_fract) -> Rational? {
        f.denominator == 0 ? nil : Rational(Int64(f.numerator), Int64(f.denominator))
    }
}
