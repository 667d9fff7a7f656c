internal import CAravis
import SlomoCore

/// A GenICam camera call that failed: the camera, the operation and Aravis's reason, as one line
/// (`genicam:127.0.0.1: PixelFormat Mono12: not offered (Mono8, Mono16, RGB8)`), and what kind of
/// failure it is for the exit status (no such camera, busy, refused, lacking a feature, the link).
public struct GenICamError: SlomoFailure, Sendable, Equatable {
    public var camera: String
    public var operation: String
    public var reason: String
    public var kind: FailureKind
    public init(camera: String, operation: String, reason: String, kind: FailureKind) {
        self.camera = camera
        self.operation = operation
        self.reason = reason
        self.kind = kind
    }
    public var wording: Wording { "genicam:\(camera): \(operation): \(reason)" }
}

/// Aravis's GError as text, cleared; nil when there was none.
func takeError(_ err: inout UnsafeMutablePointer<GError>?) -> (text: String, domain: GQuark, code: Int32)? {
    guard let e = err else { return nil }
    let r = (String(cString: e.pointee.message), e.pointee.domain, e.pointee.code)
    g_clear_error(&err)
    return r
}

/// The Aravis device error codes as a failure kind.
func failureKind(domain: GQuark, code: Int32) -> FailureKind {
    guard domain == arv_device_error_quark() else { return .ioFailed }
    switch UInt32(code) {
    case ARV_DEVICE_ERROR_NOT_FOUND.rawValue: return .missing
    case ARV_DEVICE_ERROR_FEATURE_NOT_FOUND.rawValue, ARV_DEVICE_ERROR_WRONG_FEATURE.rawValue: return .unavailable
    case ARV_DEVICE_ERROR_NOT_CONTROLLER.rawValue: return .unavailable
    case ARV_DEVICE_ERROR_INVALID_PARAMETER.rawValue: return .badRequest
    default: return .ioFailed
    }
}
