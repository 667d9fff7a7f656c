import CV4L2
import Glibc
import SlomoCore
import SlomoV4L2

/// A fake V4L2 driver behind the ioctl seam: the edge cases a real driver will not produce on
/// demand (EBUSY, EACCES, errors mid-enumeration, drivers that round, refuse or lack TIMEPERFRAME).
/// It checks the buffer type like vivid does (a single-planar type on a multi-planar node is EINVAL)
/// and records every request in `calls` and every setter's argument in `log`.
public final class FakeV4L2: V4L2Syscalls {
    public enum Sizes {
        /// (width, height, intervals as (numerator, denominator))
        case discrete([(Int, Int, [(UInt32, UInt32)])])
        /// stepwise sizes; intervals at any size come from `intervalsAt`
        case stepwise(min: (Int, Int), max: (Int, Int), step: (Int, Int))
    }

    public var kinds: [String: NodeKind] = ["/dev/video0": .characterDevice]
    public var openErrno: Int32 = 0
    public var caps = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
    public var formats: [(fourcc: String, compressed: Bool, sizes: Sizes)] = [
        ("MJPG", true, .discrete([(640, 480, [(1, 120), (1, 30)]), (1280, 720, [(1, 60), (1, 30)])])),
        ("YUYV", false, .discrete([(640, 480, [(1, 30)])])),
    ]
    /// Intervals for stepwise sizes, by size; also what "stepwise intervals" answers (type 2/3).
    public var intervalsAt: (Int, Int) -> (type: UInt32, min: (UInt32, UInt32), max: (UInt32, UInt32)) = { _, _ in
        (V4L2_FRMIVAL_TYPE_CONTINUOUS.rawValue, (1, 100), (1, 1))
    }
    /// The driver's state, as G_FMT / G_PARM report it.
    public var current = (fourcc: "YUYV", width: 640, height: 480)
    public var timePerFrame: Bool = true
    public var interval: (UInt32, UInt32) = (1, 30)
    /// S_PARM policy: the interval the driver really takes for a requested one (default: as asked).
    public var roundInterval: ((UInt32, UInt32)) -> (UInt32, UInt32) = { $0 }
    /// S_FMT policy: the size the driver really takes (default: as asked).
    public var roundSize: ((Int, Int)) -> (Int, Int) = { $0 }
    /// Controls: id → (value, minimum, maximum, flags); S_CTRL to an id in `refuse` fails with that errno.
    public var controls: [UInt32: (value: Int32, min: Int32, max: Int32, flags: UInt32)] = [:]
    public var refuse: [UInt32: Int32] = [:]
    /// DV timings (pixel clock, total width, total height), if the input has them.
    public var dv: (clock: UInt64, htotal: UInt32, vtotal: UInt32)?
    /// Fail this request with this errno after `after` successful calls of it.
    public var fail: (V4L2Request, Int32, after: Int)?
    /// Answer every ENUM_FMT index (a driver that never says EINVAL).
    public var endlessFormats = false

    /// Controls of the extended API (QUERY_EXT_CTRL, QUERYMENU, G/S_EXT_CTRLS), in id order.
    public var extControls: [CameraControl] = []
    /// Auto clusters: manual id → (auto id, the auto's manual value). While the auto control is not
    /// manual, the manual one is inactive and reads `settled(id)`; switching to manual keeps that
    /// value (the kernel's auto-cluster update).
    public var clusters: [UInt32: (auto: UInt32, manual: Int64)] = [:]
    public var settled: (UInt32) -> Int64 = { _ in 42 }
    /// S_EXT_CTRLS to an id here fails with that errno.
    public var refuseExt: [UInt32: Int32] = [:]
    /// The selection API's crop bounds and crop (nil: G_SELECTION fails with ENODATA, as vivid's webcam).
    public var selection: (bounds: PixelRect, crop: PixelRect)?

    /// Streaming (mmap buffers, QBUF/DQBUF) when set; without it mmap fails with ENOMEM.
    public var stream: Stream?

    /// A camera that delivers a frame whenever a buffer is queued, with virtual timestamps
    /// (`interval` per frame, by mode) so a measurement needs no real time.
    public final class Stream {
        /// Microseconds per frame for the current format and size.
        public var interval: (_ fourcc: String, _ width: Int, _ height: Int) -> Int64 = { _, _, _ in 10_000 }
        /// Per frame (0-based): bytes used (nil: the whole buffer), the error flag, sequence numbers skipped before it.
        public var frame: (Int) -> (bytesused: Int?, error: Bool, skip: UInt32) = { _ in (nil, false, 0) }
        /// After this many frames, DQBUF fails with this errno (a disconnect).
        public var endAfter: (frames: Int, errno: Int32)?
        fileprivate var buffers: [UnsafeMutableRawPointer] = []
        fileprivate var length = 0
        fileprivate var queued: [Int] = []
        fileprivate var on = false
        fileprivate var delivered = 0
        fileprivate var sequence: UInt32 = 0
        fileprivate var clockMicros: Int64 = 1_000_000
        /// Modes streamed, in order (`YUYV 640x480`).
        public private(set) var started: [String] = []
        fileprivate func start(_ mode: String) {
            started.append(mode)
            on = true
        }
        public init() {}
        deinit { for b in buffers { b.deallocate() } }
    }

    public init() {}

    public private(set) var calls: [V4L2Request] = []
    public internal(set) var log: [String] = []

    public var bufferType: UInt32 {
        caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) == 0 && caps & UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE) != 0
            ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue : V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    }

    public func kind(of path: String) -> NodeKind { kinds[path] ?? .missing }
    public func open(_ path: String) -> (fd: Int32, errno: Int32) { openErrno == 0 ? (3, 0) : (-1, openErrno) }
    public func close(_ fd: Int32) { log.append("close") }
    public func mmap(_ fd: Int32, length: Int, offset: Int) -> (UnsafeMutableRawPointer?, Int32) {
        guard let st = stream, offset / 4096 < st.buffers.count else { return (nil, ENOMEM) }
        return (st.buffers[offset / 4096], 0)
    }
    public func munmap(_ p: UnsafeMutableRawPointer, length: Int) {}
    public func poll(_ fd: Int32, milliseconds: Int32) -> (Bool, Int32) {
        guard let st = stream, st.on else { return (false, 0) }
        return (!st.queued.isEmpty, 0)
    }

    /// REQBUFS, QUERYBUF, QBUF, DQBUF, STREAMON/OFF of the streaming model (single-planar).
    private func streamRequest(_ st: Stream, _ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        switch r {
        case .reqbufs:
            let q = arg.assumingMemoryBound(to: v4l2_requestbuffers.self)
            for b in st.buffers { b.deallocate() }
            st.length = current.width * 2 * current.height
            st.buffers = (0..<Int(q.pointee.count)).map { _ in UnsafeMutableRawPointer.allocate(byteCount: st.length, alignment: 64) }
            st.queued = []
            return 0
        case .querybuf, .qbuf:
            let b = arg.assumingMemoryBound(to: v4l2_buffer.self)
            guard Int(b.pointee.index) < st.buffers.count else { return EINVAL }
            b.pointee.length = UInt32(st.length)
            b.pointee.m.offset = b.pointee.index * 4096
            if r == .qbuf { st.queued.append(Int(b.pointee.index)) }
            return 0
        case .dqbuf:
            if let (n, e) = st.endAfter, st.delivered >= n { return e }
            guard st.on, !st.queued.isEmpty else { return EAGAIN }
            let b = arg.assumingMemoryBound(to: v4l2_buffer.self)
            let i = st.queued.removeFirst()
            let f = st.frame(st.delivered)
            st.sequence &+= f.skip
            st.clockMicros += st.interval(current.fourcc, current.width, current.height) * Int64(f.skip + 1)
            b.pointee.index = UInt32(i)
            b.pointee.bytesused = UInt32(f.bytesused ?? st.length)
            b.pointee.sequence = st.sequence
            b.pointee.timestamp = timeval(tv_sec: Int(st.clockMicros / 1_000_000), tv_usec: Int(st.clockMicros % 1_000_000))
            b.pointee.flags = UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC) | (f.error ? UInt32(V4L2_BUF_FLAG_ERROR) : 0)
            st.sequence &+= 1
            st.delivered += 1
            return 0
        case .streamon:
            st.start("\(current.fourcc) \(current.width)x\(current.height)")
            st.delivered = 0
            return 0
        default:
            st.on = false
            st.queued = []
            return 0
        }
    }
    public func listDevices() -> [String] { kinds.keys.filter { $0.hasPrefix("/dev/video") }.sorted() }

    /// The requests after QUERYCAP and the G_PARM that opening makes.
    public var callsAfterOpen: [V4L2Request] { Array(calls.drop { $0 == .querycap || $0 == .gParm }) }

    public func ioctl(_ fd: Int32, _ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        calls.append(r)
        if let (req, e, after) = fail, req == r, calls.filter({ $0 == r }).count > after { return e }
        switch r {
        case .querycap: return querycap(r, arg)
        case .enumFmt: return enumFmt(r, arg)
        case .enumFramesizes: return enumFramesizes(r, arg)
        case .enumFrameintervals: return enumFrameintervals(r, arg)
        case .gFmt, .sFmt: return formatRequest(r, arg)
        case .gParm, .sParm: return parmRequest(r, arg)
        case .queryctrl: return queryctrl(r, arg)
        case .gCtrl, .sCtrl: return controlRequest(r, arg)
        case .queryExtCtrl, .querymenu, .gExtCtrls, .sExtCtrls:
            return extRequest(r, arg)
        case .gSelection, .sSelection: return selectionRequest(r, arg)
        case .reqbufs, .querybuf, .qbuf, .dqbuf, .streamon, .streamoff:
            guard let stream else { return ENOTTY }
            return streamRequest(stream, r, arg)
        case .gDvTimings: return dvTimings(r, arg)
        default:
            return ENOTTY
        }
    }

    /// Whether a manual control is governed by its automatic partner right now.
    func governed(_ id: UInt32) -> Bool {
        guard let (auto, manual) = clusters[id], let a = extControls.first(where: { $0.id == auto }) else { return false }
        return a.value != manual
    }

    private func extRequest(_ r: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        switch r {
        case .queryExtCtrl:
            let q = arg.assumingMemoryBound(to: v4l2_query_ext_ctrl.self)
            let next = q.pointee.id & 0xC000_0000 != 0, id = q.pointee.id & 0x0FFF_FFFF
            guard let c = next ? extControls.first(where: { $0.id > id }) : extControls.first(where: { $0.id == id }) else { return EINVAL }
            q.pointee = v4l2_query_ext_ctrl()
            q.pointee.id = c.id
            let types: [CameraControl.Kind: v4l2_ctrl_type] = [
                .integer: V4L2_CTRL_TYPE_INTEGER, .boolean: V4L2_CTRL_TYPE_BOOLEAN, .menu: V4L2_CTRL_TYPE_MENU,
                .integerMenu: V4L2_CTRL_TYPE_INTEGER_MENU, .button: V4L2_CTRL_TYPE_BUTTON, .integer64: V4L2_CTRL_TYPE_INTEGER64,
                .bitmask: V4L2_CTRL_TYPE_BITMASK,
            ]
            q.pointee.type = (types[c.kind] ?? V4L2_CTRL_TYPE_U8).rawValue
            write(c.label, to: &q.pointee.name)
            q.pointee.minimum = c.minimum
            q.pointee.maximum = c.maximum
            q.pointee.step = UInt64(c.step)
            q.pointee.default_value = c.defaultValue
            q.pointee.flags = c.flags.rawValue | (governed(c.id) ? CameraControl.Flags.inactive.rawValue | CameraControl.Flags.volatile.rawValue : 0)
            q.pointee.elem_size = c.kind == .integer64 ? 8 : 4
            q.pointee.elems = 1
            return 0
        case .querymenu:
            let m = arg.assumingMemoryBound(to: v4l2_querymenu.self)
            guard let c = extControls.first(where: { $0.id == m.pointee.id }), let item = c.menuItem(Int64(m.pointee.index)) else { return EINVAL }
            if c.kind == .integerMenu { m.pointee.value = item.value ?? 0 } else { write(item.name ?? "", to: &m.pointee.name) }
            return 0
        default:
            let e = arg.assumingMemoryBound(to: v4l2_ext_controls.self)
            guard e.pointee.count == 1, let p = e.pointee.controls else { return EINVAL }
            guard let i = extControls.firstIndex(where: { $0.id == p.pointee.id }) else { return EINVAL }
            let c = extControls[i]
            if r == .gExtCtrls {
                let v = governed(c.id) ? settled(c.id) : (c.value ?? 0)
                if c.kind == .integer64 { p.pointee.value64 = v } else { p.pointee.value = Int32(truncatingIfNeeded: v) }
                return 0
            }
            let v = c.kind == .integer64 ? p.pointee.value64 : Int64(p.pointee.value)
            log.append("S_EXT \(c.name)=\(v)")
            if let err = refuseExt[c.id] { return err }
            if c.kind != .button && (v < c.minimum || v > c.maximum) { return ERANGE }
            // switching an automatic mode to manual keeps the value it had settled on
            for (manual, cl) in clusters where cl.auto == c.id && v == cl.manual && governed(manual) {
                if let k = extControls.firstIndex(where: { $0.id == manual }) { extControls[k].value = settled(manual) }
            }
            extControls[i].value = v
            return 0
        }
    }

    public static func controlName(_ id: UInt32) -> String {
        switch id {
        case CV4L2_CID_EXPOSURE_AUTO_PRIORITY: return "exposure_auto_priority"
        case CV4L2_CID_EXPOSURE_AUTO: return "exposure_auto"
        case CV4L2_CID_EXPOSURE_ABSOLUTE: return "exposure_absolute"
        default: return "\(id)"
        }
    }

    func format(_ code: UInt32) -> (fourcc: String, compressed: Bool, sizes: Sizes)? {
        formats.first { VideoDevice.code($0.fourcc) == code }
    }

    func write<T>(_ text: String, to tuple: inout T) {
        withUnsafeMutableBytes(of: &tuple) { b in
            for (i, ch) in text.utf8.prefix(b.count - 1).enumerated() { b[i] = ch }
        }
    }
}
