internal import CV4L2
#if canImport(Glibc)
    import Glibc
#endif
import SlomoCore
import SlomoSystem

/// A failed V4L2 step, as one line: who (device), what (request and its argument), why (errno text and name):
/// `/dev/video0: VIDIOC_S_FMT MJPG 1280x720 failed: Device or resource busy (EBUSY)`.
///
/// `code` is chosen from the errno (or set directly for checks that are not a failed call,
/// such as "not a capture device"); `kind` classes it for the caller (the command line's exit status follows from it):
///
/// | code | errno | kind |
/// |---|---|---|
/// | `noDevice` | ENOENT, ENXIO (path missing, or the node's driver is gone) | `missing` |
/// | `notCharacterDevice` | (stat: a regular file, directory…) | `missing` |
/// | `notV4L2Device` | ENOTTY on VIDIOC_QUERYCAP (`/dev/null`, a tty…) | `missing` |
/// | `notCapture` | (QUERYCAP without VIDEO_CAPTURE[_MPLANE]: output, metadata, touch…) | `unavailable` |
/// | `busy` | EBUSY (another process streams or holds buffers) | `unavailable` |
/// | `permissionDenied` | EACCES, EPERM | `notPermitted` |
/// | `unsupported` | ENOTTY on any other request | `unavailable` |
/// | `invalid` | EINVAL (the driver refused the argument) | `unavailable` |
/// | `disconnected` | ENODEV, EIO (unplugged, firmware fault) | `ioFailed` |
/// | `other` | anything else | `unavailable` |
public struct V4L2Error: SlomoFailure, Equatable {
    /// What went wrong, independent of the exact errno.
    public enum Code: Sendable, Equatable {
        case noDevice, notCharacterDevice, notV4L2Device, notCapture, busy, permissionDenied
        case unsupported, invalid, disconnected, other
    }

    /// The device path (or file) the step was about.
    public var device: String
    /// The request name (`VIDIOC_S_FMT`) or system call (`open`, `stat`, `mmap`).
    public var request: String
    /// The errno the kernel returned; 0 when the failure is a check, not a failed call.
    public var errno: Int32
    public var code: Code
    /// The request's argument or the check's finding (`MJPG 1280x720`, `index 3`).
    public var detail: String?
    /// What the errno means here, after it (`not a V4L2 device`).
    public var hint: String?

    public init(device: String, request: String, errno: Int32, detail: String? = nil, code: Code? = nil, hint: String? = nil) {
        self.device = device
        self.request = request
        self.errno = errno
        self.detail = detail
        self.hint = hint
        self.code = code ?? V4L2Error.classify(errno)
    }

    /// The per-errno choice of `Code` (see the table on the type).
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

    /// `device: REQUEST detail failed: text (ENAME)[: hint]`; a check (errno 0) is `device: [REQUEST ]detail`.
    public var description: String {
        let what = [request, detail ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
        if errno == 0 { return "\(device): \(what)" }
        let cause = "\(V4L2Error.errnoText(errno)) (\(V4L2Error.errnoName(errno)))"
        return "\(device): \(what) failed: \(cause)" + (hint.map { ": \($0)" } ?? "")
    }

    public var systemErrno: Int32? { errno == 0 ? nil : errno }

    public var kind: FailureKind {
        switch code {
        case .noDevice, .notCharacterDevice, .notV4L2Device: return .missing
        case .notCapture, .busy, .unsupported, .invalid, .other: return .unavailable
        case .permissionDenied: return .notPermitted
        case .disconnected: return .ioFailed
        }
    }

    public var wording: Wording { Wording(verbatim: description) }

    /// `EBUSY`, `ENOTTY`… (glibc's `strerrorname_np`); `errno N` when the value has no name.
    public static func errnoName(_ e: Int32) -> String { Errno(e).name }

    /// `Device or resource busy` (the C function is `strerror`).
    public static func errnoText(_ e: Int32) -> String { Errno(e).words }
}
