/// What the user asks of a camera's controls before a capture (`--shutter`, `--gain`, `--focus`,
/// `--white-balance`, `--exposure`, `--zoom`, `--control NAME=VALUE`), as values.
public struct ControlRequests: Sendable, Equatable {
    /// A manual value, the automatic mode, or `lock`: AVFoundation's "locked" — the value the
    /// automatic mode settled on, made manual so it cannot drift during the shot.
    public enum Value: Sendable, Equatable, CustomStringConvertible {
        case value(Int64), auto, lock
        public var description: String {
            switch self {
            case .value(let v): return String(v)
            case .auto: return "auto"
            case .lock: return "lock"
            }
        }
    }

    public enum Shutter: Sendable, Equatable {
        /// Exposure time in seconds (`--shutter 1/2000`).
        case seconds(Rational)
        /// Degrees of the frame duration (`--shutter-angle 180`: half of it).
        case angle(Rational)
    }

    public var shutter: Shutter?
    /// `auto` or `lock` (a manual exposure time is `shutter`).
    public var exposure: Value?
    public var gain: Value?
    public var focus: Value?
    /// Kelvin, `auto` or `lock`.
    public var whiteBalance: Value?
    /// The zoom control's own units where the camera has one; else a crop factor (2 = the middle half).
    public var zoom: Rational?
    /// `--control NAME=VALUE`, in the order given.
    public var named: [(name: String, value: String)] = []

    public init() {}

    public var isEmpty: Bool {
        shutter == nil && exposure == nil && gain == nil && focus == nil && whiteBalance == nil && zoom == nil && named.isEmpty
    }

    public static func == (a: ControlRequests, b: ControlRequests) -> Bool {
        a.shutter == b.shutter && a.exposure == b.exposure && a.gain == b.gain && a.focus == b.focus
            && a.whiteBalance == b.whiteBalance && a.zoom == b.zoom
            && a.named.map { "\($0.name)=\($0.value)" } == b.named.map { "\($0.name)=\($0.value)" }
    }

    /// Parses the options' texts; `option` names the flag in messages. A bad request on malformed values.
    public static func parse(
        shutter: String? = nil, shutterAngle: String? = nil, exposure: String? = nil, gain: String? = nil,
        focus: String? = nil, whiteBalance: String? = nil, zoom: String? = nil,
        controls: [String] = []
    ) throws(ControlError) -> ControlRequests {
        var r = ControlRequests()
        if shutter != nil && shutterAngle != nil { throw ControlError.usage("\(Setting.shutter) and \(Setting.shutterAngle): give one") }
        if let shutter {
            guard let s = try? Rational(parsing: Substring(shutter)), s.isPositive, s <= Rational(10) else {
                throw ControlError.usage("\(Setting.shutter) '\(shutter)': expected seconds such as 1/2000 or 0.0005 (more than 0, at most 10)")
            }
            r.shutter = .seconds(s)
        }
        if let shutterAngle {
            guard let a = try? Rational(parsing: Substring(shutterAngle)), a.isPositive, a <= Rational(360) else {
                throw ControlError.usage("\(Setting.shutterAngle) '\(shutterAngle)': expected degrees in (0, 360], e.g. 180")
            }
            r.shutter = .angle(a)
        }
        if let exposure {
            switch exposure.lowercased() {
            case "auto": r.exposure = .auto
            case "lock": r.exposure = .lock
            default: throw ControlError.usage("\(Setting.exposure) '\(exposure)': expected auto or lock (a manual time is \(Setting.shutter))")
            }
            if r.shutter != nil {
                throw ControlError.usage("\(Setting.exposure) \(exposure) and \(Setting.shutter): the shutter sets a manual exposure; give one")
            }
        }
        r.gain = try gain.map { v throws(ControlError) in try value(v, option: .gain) }
        r.focus = try focus.map { v throws(ControlError) in try value(v, option: .focus) }
        r.whiteBalance = try whiteBalance.map { v throws(ControlError) in try value(v, option: .whiteBalance, unit: "kelvin") }
        if let zoom {
            guard let z = try? Rational(parsing: Substring(zoom)), z.isPositive else {
                throw ControlError.usage("\(Setting.zoom) '\(zoom)': expected a positive number")
            }
            r.zoom = z
        }
        for c in controls {
            guard let eq = c.firstIndex(of: "="), eq != c.startIndex, c.index(after: eq) != c.endIndex else {
                throw ControlError.usage("\(Setting.control) '\(c)': expected NAME=VALUE (names as 'slomo controls' lists them)")
            }
            let name = String(c[..<eq]).trimmingSpaces, value = String(c[c.index(after: eq)...]).trimmingSpaces
            if r.named.contains(where: { $0.name == String(name) }) { throw ControlError.usage("\(Setting.control) \(name): given twice") }
            r.named.append((String(name), String(value)))
        }
        return r
    }

    static func value(_ text: String, option: Setting, unit: String = "") throws(ControlError) -> Value {
        switch text.lowercased() {
        case "auto": return .auto
        case "lock": return .lock
        default:
            guard let v = Int64(text) else {
                throw ControlError.usage("\(option) '\(text)': expected a number\(unit.isEmpty ? "" : " (\(unit))"), auto or lock")
            }
            return .value(v)
        }
    }
}

/// A control request that cannot be carried out, as one line. `usage` (a bad request): the value is wrong
/// for the control (range, step, unknown name); `unavailable`: the device lacks what is asked
/// (no such control, read-only, inactive, no automatic mode to lock).
public struct ControlError: SlomoFailure, Equatable {
    public var wording: Wording
    public var kind: FailureKind
    public static func usage(_ w: Wording) -> ControlError { ControlError(wording: w, kind: .badRequest) }
    public static func unavailable(_ w: Wording) -> ControlError { ControlError(wording: w, kind: .unavailable) }
    /// The same error with the device named in front (`/dev/video0: --gain 300: …`).
    public func on(_ device: String) -> ControlError { ControlError(wording: "\(device): \(wording)", kind: kind) }
}
