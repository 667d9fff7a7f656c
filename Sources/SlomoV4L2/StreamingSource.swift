internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif
import SlomoCore

/// Streams a V4L2 node with mmap buffers. Each dequeued buffer is copied into a `CapturedFrame`
/// and queued back at once, so the driver always has its buffers, however slow the writer is.
/// Timestamps are the driver's (CLOCK_MONOTONIC, µs); sequence numbers are kept for drop counting.
public final class V4L2StreamingSource: CaptureSource {
    let device: VideoDevice
    public let format: CaptureFormat
    public var name: String { "\(device.path) (\(device.info.card))" }
    let bufferCount: Int
    private var buffers: [(UnsafeMutableRawPointer, Int)] = []
    private var streaming = false
    public let applied: AppliedMode

    /// Refuses a device this source cannot stream from (multi-planar-only nodes, for now).
    public static func checkSupported(_ device: VideoDevice) throws(V4L2Error) {
        guard !device.info.isMultiplanar else {
            throw V4L2Error(device: device.path, request: "capture", errno: 0,
                            detail: "on a multi-planar-only node is not supported yet (formats and --apply are)", code: .unsupported)
        }
    }

    public init(device: VideoDevice, mode: CaptureMode, buffers: Int) throws(V4L2Error) {
        try Self.checkSupported(device)
        self.device = device
        bufferCount = buffers
        applied = try device.apply(mode)
        format = CaptureFormat(fourcc: applied.pixelFormat, width: applied.width, height: applied.height,
                               bytesPerLine: applied.bytesPerLine, frameDuration: applied.frameDuration)
    }

    deinit { stop() }

    public func start() throws {
        var req = v4l2_requestbuffers()
        req.count = UInt32(bufferCount)
        req.type = device.bufferType
        req.memory = V4L2_MEMORY_MMAP.rawValue
        try device.call(.reqbufs, &req, detail: "\(bufferCount) mmap buffers")
        guard req.count >= 2 else { throw V4L2Error(device: device.path, request: "VIDIOC_REQBUFS", errno: 0, detail: "driver gave \(req.count) buffers", code: .other) }
        for i in 0..<Int(req.count) {
            var b = v4l2_buffer()
            b.index = UInt32(i)
            b.type = device.bufferType
            b.memory = V4L2_MEMORY_MMAP.rawValue
            try device.call(.querybuf, &b, detail: "buffer \(i)")
            let (p, e) = device.sys.mmap(device.fd, length: Int(b.length), offset: Int(b.m.offset))
            guard let p else { throw V4L2Error(device: device.path, request: "mmap", errno: e) }
            buffers.append((p, Int(b.length)))
            try device.call(.qbuf, &b, detail: "buffer \(i)")
        }
        var type = Int32(device.bufferType)
        try device.call(.streamon, &type)
        streaming = true
    }

    public func nextFrame() throws -> Result<CapturedFrame, CaptureEnd> {
        while true {
            let (ready, pe) = device.sys.poll(device.fd, milliseconds: 2000)
            if pe != 0 { return .failure(.disconnected("poll: \(String(cString: strerror(pe)))")) }
            if !ready { return .failure(.disconnected("no frame for 2 s")) }
            var b = v4l2_buffer()
            b.type = device.bufferType
            b.memory = V4L2_MEMORY_MMAP.rawValue
            let rc = device.sys.ioctl(device.fd, .dqbuf, &b)
            if rc == EAGAIN { continue }
            if rc == ENODEV || rc == EIO || rc == EPIPE { return .failure(.disconnected("VIDIOC_DQBUF: \(String(cString: strerror(rc)))")) }
            if rc != 0 { throw V4L2Error(device: device.path, request: "VIDIOC_DQBUF", errno: rc) }
            let (p, _) = buffers[Int(b.index)]
            let t = Rational(Int64(b.timestamp.tv_sec) * 1_000_000 + Int64(b.timestamp.tv_usec), 1_000_000)
            let corrupt = b.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0
            let frame = CapturedFrame(copying: p, count: Int(b.bytesused), timestamp: t, sequence: b.sequence)
            let q = device.sys.ioctl(device.fd, .qbuf, &b)
            if q == ENODEV { return .failure(.disconnected("VIDIOC_QBUF: device gone")) }
            if q != 0 { throw V4L2Error(device: device.path, request: "VIDIOC_QBUF", errno: q) }
            if corrupt || b.bytesused == 0 { continue }
            return .success(frame)
        }
    }

    public func stop() {
        if streaming {
            var type = Int32(device.bufferType)
            _ = device.sys.ioctl(device.fd, .streamoff, &type)
            streaming = false
        }
        for (p, n) in buffers { device.sys.munmap(p, length: n) }
        if !buffers.isEmpty {
            buffers.removeAll()
            var req = v4l2_requestbuffers()
            req.count = 0
            req.type = device.bufferType
            req.memory = V4L2_MEMORY_MMAP.rawValue
            _ = device.sys.ioctl(device.fd, .reqbufs, &req)
        }
    }
}
