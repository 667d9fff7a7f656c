import SlomoCore

/// A camera, or a saved listing of one, that cannot do what is asked.
public enum DeviceError: SlomoFailure, Sendable, Equatable {
    /// No mode under the constraints has known frame intervals to apply.
    case noSelectableMode(device: String)
    /// No mode under the constraints to capture with.
    case noModeMatches(device: String)
    /// The driver cannot stream (no V4L2_CAP_STREAMING); `measuring` for `formats --measure`.
    case cannotStream(device: String, measuring: Bool)
    /// A saved listing that is not one.
    case badListing(path: String, Wording)

    public var kind: FailureKind {
        switch self {
        case .badListing: return .badData
        default: return .unavailable
        }
    }

    public var wording: Wording {
        switch self {
        case .noSelectableMode(let d): return "\(d): no selectable mode matches the constraints (no size with known frame intervals)"
        case .noModeMatches(let d): return "\(d): no capture mode matches the constraints"
        case .cannotStream(let d, let measuring):
            return "\(d): \(measuring ? "cannot measure: " : "")the driver cannot stream (no V4L2_CAP_STREAMING)"
        case .badListing(let path, let why): return "\(path): \(why)"
        }
    }
}
