internal import CV4L2
#if canImport(Glibc)
    import Glibc
#endif
import SlomoCore

/// Streams a V4L2 node (single- or multi-planar) with mmap buffers. Each dequeued buffer is lent
/// to the caller's closure (which copies it into the ring) and queued back the moment the closure
/// returns, so the driver always has its buffers, however slow the writer is.
/// Timestamps are the driver's (µs; the clock is read from the buffer flags); sequence numbers
/// are kept for drop counting.
public final class V4L2StreamingSource: CaptureSource {
    let device: VideoDevice
    public let format: CaptureFormat
    public var name: String { "\(device.path) (\(device.info.card))" }
    public var adjustments: [String] { notes + applied.adjustments }
    /// The controls as set, read again now (after `stop()`: the values at the end of the capture).
    public func cameraControls() -> [AppliedControl] { device.readAgain(applied.cameraControls ?? []) }
    /// How the mode was chosen, when that needs saying (a measured rate); reported before the driver's adjustments.
    public var notes: [String] = []
    public private(set) var timestampClock: TimestampClock?
    let bufferCount: Int
    /// Per buffer, per plane: the mapping and its length.
    private var buffers: [[(UnsafeMutableRawPointer, Int)]] = []
    private var planeCount = 1
    /// The `v4l2_plane` array every multi-planar buffer ioctl points at, and the views lent to the
    /// caller: allocated once, so dequeuing allocates nothing.
    private let planeArray = UnsafeMutablePointer<v4l2_plane>.allocate(capacity: Int(VIDEO_MAX_PLANES))
    private var views: [UnsafeRawBufferPointer] = []
    private var streaming = false
    private var prepared = false
    public let applied: AppliedMode
    private var mplane: Bool { device.info.isMultiplanar }

    public init(device: VideoDevice, mode: CaptureMode, buffers: Int, controls: ControlRequests = ControlRequests()) throws {
        self.device = device
        bufferCount = buffers
        applied = try device.apply(mode, controls: controls)
        let planes = try device.currentPlanes()
        format = CaptureFormat(
            fourcc: applied.pixelFormat, width: applied.width, height: applied.height,
            bytesPerLine: planes.first?.bytesPerLine ?? applied.bytesPerLine,
            frameDuration: mode.rateMeasured ? mode.frameDuration : applied.frameDuration, planes: planes)
        planeCount = max(1, planes.count)
        views.reserveCapacity(Int(VIDEO_MAX_PLANES))
    }

    deinit {
        stop()
        planeArray.deallocate()
    }

    /// VIDIOC_REQBUFS, QUERYBUF and mmap of every buffer (every plane), and QBUF: all before STREAMON.
    public func prepare() throws {
        guard !prepared else { return }
        var req = v4l2_requestbuffers()
        req.count = UInt32(bufferCount)
        req.type = device.bufferType
        req.memory = V4L2_MEMORY_MMAP.rawValue
        try device.call(.reqbufs, &req, detail: "\(bufferCount) mmap buffers")
        guard req.count >= 2 else {
            throw V4L2Error(device: device.path, request: "VIDIOC_REQBUFS", errno: 0, detail: "driver gave \(req.count) buffers", code: .other)
        }
        prepared = true  // from here on `stop()` unmaps whatever was mapped, even after a failure
        let pp = planeArray
        for i in 0..<Int(req.count) {
            var b = emptyBuffer()
            b.index = UInt32(i)
            try device.call(.querybuf, &b, detail: "buffer \(i)")
            buffers.append([])
            if mplane {
                for k in 0..<Int(b.length) {
                    let (p, e) = device.sys.mmap(device.fd, length: Int(pp[k].length), offset: Int(pp[k].m.mem_offset))
                    guard let p else { throw V4L2Error(device: device.path, request: "mmap", errno: e, detail: "buffer \(i) plane \(k)") }
                    buffers[i].append((p, Int(pp[k].length)))
                }
            } else {
                let (p, e) = device.sys.mmap(device.fd, length: Int(b.length), offset: Int(b.m.offset))
                guard let p else { throw V4L2Error(device: device.path, request: "mmap", errno: e, detail: "buffer \(i)") }
                buffers[i].append((p, Int(b.length)))
            }
            b = emptyBuffer()
            b.index = UInt32(i)
            try device.call(.qbuf, &b, detail: "buffer \(i)")
        }
    }

    /// A `v4l2_buffer` of this node's type; on multi-planar nodes it points at `planeArray`.
    private func emptyBuffer() -> v4l2_buffer {
        var b = v4l2_buffer()
        b.type = device.bufferType
        b.memory = V4L2_MEMORY_MMAP.rawValue
        if mplane {
            planeArray.update(repeating: v4l2_plane(), count: Int(VIDEO_MAX_PLANES))
            b.m.planes = planeArray
            b.length = UInt32(VIDEO_MAX_PLANES)
        }
        return b
    }

    public func start() throws {
        try prepare()
        var type = Int32(device.bufferType)
        try device.call(.streamon, &type)
        streaming = true
    }

    public func next(_ body: (BorrowedFrame) -> Void) throws -> CaptureEnd? {
        let pp = planeArray
        while true {
            let (ready, pe) = device.sys.poll(device.fd, milliseconds: 2000)
            if pe == ENODEV { return .disconnected("the driver ended the stream (POLLERR: unplugged, or a fatal streaming error)") }
            if pe != 0 { return .disconnected("poll: \(String(cString: strerror(pe)))") }
            if !ready { return .disconnected("no frame for 2 s") }
            var b = emptyBuffer()
            let rc = device.sys.ioctl(device.fd, .dqbuf, &b)
            if rc == EAGAIN { continue }
            if rc == ENODEV || rc == EIO || rc == EPIPE { return .disconnected("VIDIOC_DQBUF: \(String(cString: strerror(rc)))") }
            if rc != 0 { throw V4L2Error(device: device.path, request: "VIDIOC_DQBUF", errno: rc) }
            let t = Rational(Int64(b.timestamp.tv_sec) * 1_000_000 + Int64(b.timestamp.tv_usec), 1_000_000)
            if timestampClock == nil { timestampClock = V4L2StreamingSource.clock(flags: b.flags) }
            let mapped = buffers[Int(b.index)]
            views.removeAll(keepingCapacity: true)
            if mplane {
                for k in 0..<min(Int(b.length), mapped.count) {
                    // bytesused counts from the plane's start, data_offset bytes of it are not picture
                    let used = min(Int(pp[k].bytesused), mapped[k].1)
                    let off = min(Int(pp[k].data_offset), used)
                    views.append(UnsafeRawBufferPointer(start: mapped[k].0 + off, count: used - off))
                }
            } else {
                views.append(UnsafeRawBufferPointer(start: mapped[0].0, count: min(Int(b.bytesused), mapped[0].1)))
            }
            let damaged = b.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0
            body(BorrowedFrame(planes: views, timestamp: t, sequence: UInt64(b.sequence), damage: damaged ? .flagged : nil))
            let q = device.sys.ioctl(device.fd, .qbuf, &b)
            if q == ENODEV || q == EIO { return .disconnected("VIDIOC_QBUF: \(String(cString: strerror(q)))") }
            if q != 0 { throw V4L2Error(device: device.path, request: "VIDIOC_QBUF", errno: q) }
            return nil
        }
    }

    /// The buffer flags' clock and timestamp source, as the report names them.
    static func clock(flags: UInt32) -> TimestampClock {
        let clock: TimestampClock.Clock
        switch flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) {
        case UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC): clock = .monotonic
        case UInt32(V4L2_BUF_FLAG_TIMESTAMP_COPY): clock = .copy
        default: clock = .unknown
        }
        let soe = flags & UInt32(V4L2_BUF_FLAG_TSTAMP_SRC_MASK) == UInt32(V4L2_BUF_FLAG_TSTAMP_SRC_SOE)
        return TimestampClock(clock, soe ? .startOfExposure : .endOfFrame)
    }

    public func stop() {
        if streaming {
            var type = Int32(device.bufferType)
            _ = device.sys.ioctl(device.fd, .streamoff, &type)
            streaming = false
        }
        for planes in buffers { for (p, n) in planes { device.sys.munmap(p, length: n) } }
        if !buffers.isEmpty || prepared {
            buffers.removeAll()
            prepared = false
            var req = v4l2_requestbuffers()
            req.count = 0
            req.type = device.bufferType
            req.memory = V4L2_MEMORY_MMAP.rawValue
            _ = device.sys.ioctl(device.fd, .reqbufs, &req)
        }
    }
}
