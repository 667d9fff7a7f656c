internal import CV4L2
#if canImport(Glibc)
import Glibc
#endif
import SlomoCore

/// The V4L2 requests slomo makes, with their names for messages.
public enum V4L2Request: String, Sendable, CaseIterable {
    case querycap = "VIDIOC_QUERYCAP", enumFmt = "VIDIOC_ENUM_FMT", enumFramesizes = "VIDIOC_ENUM_FRAMESIZES"
    case enumFrameintervals = "VIDIOC_ENUM_FRAMEINTERVALS", gFmt = "VIDIOC_G_FMT", sFmt = "VIDIOC_S_FMT"
    case gParm = "VIDIOC_G_PARM", sParm = "VIDIOC_S_PARM", reqbufs = "VIDIOC_REQBUFS", querybuf = "VIDIOC_QUERYBUF"
    case qbuf = "VIDIOC_QBUF", dqbuf = "VIDIOC_DQBUF", streamon = "VIDIOC_STREAMON", streamoff = "VIDIOC_STREAMOFF"
    case gCtrl = "VIDIOC_G_CTRL", sCtrl = "VIDIOC_S_CTRL", queryctrl = "VIDIOC_QUERYCTRL", gInput = "VIDIOC_G_INPUT"
    case gDvTimings = "VIDIOC_G_DV_TIMINGS"

    var number: UInt {
        switch self {
        case .querycap: return CV4L2_VIDIOC_QUERYCAP
        case .enumFmt: return CV4L2_VIDIOC_ENUM_FMT
        case .enumFramesizes: return CV4L2_VIDIOC_ENUM_FRAMESIZES
        case .enumFrameintervals: return CV4L2_VIDIOC_ENUM_FRAMEINTERVALS
        case .gFmt: return CV4L2_VIDIOC_G_FMT
        case .sFmt: return CV4L2_VIDIOC_S_FMT
        case .gParm: return CV4L2_VIDIOC_G_PARM
        case .sParm: return CV4L2_VIDIOC_S_PARM
        case .reqbufs: return CV4L2_VIDIOC_REQBUFS
        case .querybuf: return CV4L2_VIDIOC_QUERYBUF
        case .qbuf: return CV4L2_VIDIOC_QBUF
        case .dqbuf: return CV4L2_VIDIOC_DQBUF
        case .streamon: return CV4L2_VIDIOC_STREAMON
        case .streamoff: return CV4L2_VIDIOC_STREAMOFF
        case .gCtrl: return CV4L2_VIDIOC_G_CTRL
        case .sCtrl: return CV4L2_VIDIOC_S_CTRL
        case .queryctrl: return CV4L2_VIDIOC_QUERYCTRL
        case .gInput: return CV4L2_VIDIOC_G_INPUT
        case .gDvTimings: return CV4L2_VIDIOC_G_DV_TIMINGS
        }
    }
}

/// What a path is before it is opened.
public enum NodeKind: Sendable { case characterDevice, missing, notCharacterDevice }

/// The system calls V4L2 code makes: the seam where tests put a fake driver.
/// `ioctl` returns 0 or an errno value (EINTR already retried).
public protocol V4L2Syscalls: AnyObject {
    func kind(of path: String) -> NodeKind
    func open(_ path: String) -> (fd: Int32, errno: Int32)
    func close(_ fd: Int32)
    func ioctl(_ fd: Int32, _ request: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32
    func mmap(_ fd: Int32, length: Int, offset: Int) -> (UnsafeMutableRawPointer?, Int32)
    func munmap(_ p: UnsafeMutableRawPointer, length: Int)
    /// Waits for a frame: true when readable, false on timeout; errno on failure.
    func poll(_ fd: Int32, milliseconds: Int32) -> (Bool, Int32)
    func listDevices() -> [String]
}

/// The real kernel.
public final class LiveV4L2Syscalls: V4L2Syscalls {
    public init() {}
    public func kind(of path: String) -> NodeKind {
        var st = stat()
        guard stat(path, &st) == 0 else { return .missing }
        return (st.st_mode & S_IFMT) == S_IFCHR ? .characterDevice : .notCharacterDevice
    }
    public func open(_ path: String) -> (fd: Int32, errno: Int32) {
        let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        return (fd, fd < 0 ? errno : 0)
    }
    public func close(_ fd: Int32) { _ = Glibc.close(fd) }
    public func ioctl(_ fd: Int32, _ request: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32 {
        cv4l2_ioctl(fd, request.number, arg) == 0 ? 0 : errno
    }
    public func mmap(_ fd: Int32, length: Int, offset: Int) -> (UnsafeMutableRawPointer?, Int32) {
        let p = Glibc.mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset))
        return p == MAP_FAILED ? (nil, errno) : (p, 0)
    }
    public func munmap(_ p: UnsafeMutableRawPointer, length: Int) { _ = Glibc.munmap(p, length) }
    public func poll(_ fd: Int32, milliseconds: Int32) -> (Bool, Int32) {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let r = Glibc.poll(&pfd, 1, milliseconds)
            if r < 0 && errno == EINTR { continue }
            if r < 0 { return (false, errno) }
            if r > 0 && pfd.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return (false, ENODEV) }
            return (r > 0, 0)
        }
    }
    public func listDevices() -> [String] {
        guard let d = opendir("/dev") else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("video"), Int(name.dropFirst(5)) != nil { out.append("/dev/" + name) }
        }
        return out.sorted { Int($0.dropFirst(10)) ?? 0 < Int($1.dropFirst(10)) ?? 0 }
    }
}

/// A failed V4L2 call: `/dev/video0: VIDIOC_S_FMT MJPG 1280x720 failed: Device or resource busy (EBUSY)`.
public struct V4L2Error: SlomoFailure, Equatable {
    public enum Code: Sendable, Equatable { case noDevice, notCharacterDevice, notCapture, busy, permissionDenied, unsupported, invalid, disconnected, other }
    public var device: String
    public var request: String
    public var errno: Int32
    public var code: Code
    public var detail: String?

    public init(device: String, request: String, errno: Int32, detail: String? = nil, code: Code? = nil) {
        self.device = device; self.request = request; self.errno = errno; self.detail = detail
        self.code = code ?? V4L2Error.classify(errno)
    }

    static func classify(_ e: Int32) -> Code {
        switch e {
        case ENOENT, ENXIO: return .noDevice
        case EBUSY: return .busy
        case EACCES, EPERM: return .permissionDenied
        case ENOTTY: return .unsupported
        case EINVAL: return .invalid
        case ENODEV, EIO: return .disconnected
        default: return .other
        }
    }

    public var description: String {
        let what = detail.map { "\(request) \($0)" } ?? request
        if errno == 0 { return "\(device): \(what)" }
        return "\(device): \(what) failed: \(String(cString: strerror(errno))) (\(V4L2Error.errnoName(errno)))"
    }

    public var exitStatus: ExitStatus {
        switch code {
        case .noDevice: return .noInput
        case .notCharacterDevice: return .noInput
        case .notCapture, .busy, .unsupported: return .unavailable
        case .permissionDenied: return .permissionDenied
        case .disconnected: return .ioError
        case .invalid, .other: return .unavailable
        }
    }

    static func errnoName(_ e: Int32) -> String {
        let names: [Int32: String] = [ENOENT: "ENOENT", EBUSY: "EBUSY", EACCES: "EACCES", EPERM: "EPERM", ENOTTY: "ENOTTY",
                                      EINVAL: "EINVAL", ENODEV: "ENODEV", EIO: "EIO", ENXIO: "ENXIO", ENOMEM: "ENOMEM",
                                      EAGAIN: "EAGAIN", ENOSPC: "ENOSPC", EFAULT: "EFAULT"]
        return names[e] ?? "errno \(e)"
    }
}
