internal import CV4L2
#if canImport(Glibc)
    import Glibc
    import SlomoSystem
#endif
import SlomoCore

/// The V4L2 requests slomo makes, named as in messages (`VIDIOC_S_FMT`).
public enum V4L2Request: String, Sendable, CaseIterable {
    case querycap = "VIDIOC_QUERYCAP", enumFmt = "VIDIOC_ENUM_FMT", enumFramesizes = "VIDIOC_ENUM_FRAMESIZES"
    case enumFrameintervals = "VIDIOC_ENUM_FRAMEINTERVALS", gFmt = "VIDIOC_G_FMT", sFmt = "VIDIOC_S_FMT"
    case gParm = "VIDIOC_G_PARM", sParm = "VIDIOC_S_PARM", reqbufs = "VIDIOC_REQBUFS", querybuf = "VIDIOC_QUERYBUF"
    case qbuf = "VIDIOC_QBUF", dqbuf = "VIDIOC_DQBUF", streamon = "VIDIOC_STREAMON", streamoff = "VIDIOC_STREAMOFF"
    case gCtrl = "VIDIOC_G_CTRL", sCtrl = "VIDIOC_S_CTRL", queryctrl = "VIDIOC_QUERYCTRL", gInput = "VIDIOC_G_INPUT"
    case gDvTimings = "VIDIOC_G_DV_TIMINGS"
    case queryExtCtrl = "VIDIOC_QUERY_EXT_CTRL", querymenu = "VIDIOC_QUERYMENU", gExtCtrls = "VIDIOC_G_EXT_CTRLS"
    case sExtCtrls = "VIDIOC_S_EXT_CTRLS", gSelection = "VIDIOC_G_SELECTION", sSelection = "VIDIOC_S_SELECTION"

    /// The request number from the shim (the `VIDIOC_*` macros are function-like in C).
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
        case .queryExtCtrl: return CV4L2_VIDIOC_QUERY_EXT_CTRL
        case .querymenu: return CV4L2_VIDIOC_QUERYMENU
        case .gExtCtrls: return CV4L2_VIDIOC_G_EXT_CTRLS
        case .sExtCtrls: return CV4L2_VIDIOC_S_EXT_CTRLS
        case .gSelection: return CV4L2_VIDIOC_G_SELECTION
        case .sSelection: return CV4L2_VIDIOC_S_SELECTION
        }
    }
}

/// What a path is before it is opened (`stat`).
public enum NodeKind: Sendable, Equatable {
    case characterDevice
    /// ENOENT (or ENOTDIR): nothing there.
    case missing
    /// A regular file, directory, socket…
    case notCharacterDevice
    /// `stat` itself failed for another reason (EACCES on a parent directory, ELOOP…).
    case inaccessible(errno: Int32)
}

/// The system calls V4L2 code makes: the one seam where tests put a fake driver
/// (swift-system's `MockTestCase` idea). Every ioctl of the package goes through `ioctl`.
public protocol V4L2Syscalls: AnyObject {
    /// `stat(2)` reduced to what opening a node needs.
    func kind(of path: String) -> NodeKind
    /// `open(2)` with `O_RDWR | O_NONBLOCK | O_CLOEXEC`: the fd, or -1 and the errno.
    func open(_ path: String) -> (fd: Int32, errno: Int32)
    func close(_ fd: Int32)
    /// One ioctl, EINTR already retried: 0 on success, otherwise the errno.
    func ioctl(_ fd: Int32, _ request: V4L2Request, _ arg: UnsafeMutableRawPointer) -> Int32
    func mmap(_ fd: Int32, length: Int, offset: Int) -> (UnsafeMutableRawPointer?, Int32)
    func munmap(_ p: UnsafeMutableRawPointer, length: Int)
    /// Waits for a frame: true when readable, false on timeout; errno on failure.
    func poll(_ fd: Int32, milliseconds: Int32) -> (Bool, Int32)
    /// The `/dev/videoN` paths, in numeric order (video2 before video10).
    func listDevices() -> [String]
}

/// The real kernel. Raw ioctls only: no libv4l2 (its emulated formats and CPU conversion are
/// not what a high-rate capture wants, and its entry points are variadic).
public final class LiveV4L2Syscalls: V4L2Syscalls {
    public init() {}

    public func kind(of path: String) -> NodeKind {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let e = errno
            return e == ENOENT || e == ENOTDIR ? .missing : .inaccessible(errno: e)
        }
        return (st.st_mode & S_IFMT) == S_IFCHR ? .characterDevice : .notCharacterDevice
    }

    public func open(_ path: String) -> (fd: Int32, errno: Int32) {
        while true {
            let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
            if fd < 0 && errno == EINTR { continue }
            return (fd, fd < 0 ? errno : 0)
        }
    }

    public func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// The corresponding C function is `cv4l2_ioctl` (the shim's EINTR loop around `ioctl`).
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

    public func listDevices() -> [String] { Files.numberedDevices("video") }
}
