/// What the user asks of a camera's controls before a capture (`--shutter`, `--gain`, `--focus`,
/// `--white-balance`, `--exposure`, `--zoom`, `--control NAME=VALUE`), as values.
public struct ControlRequests: Sendable, Equatable {
    /// A manual value, the automatic mode, or `lock`: AVFoundation's "locked" — the value the
    /// automatic mode settled on, made manual so it cannot drift during the shot.
    public enum Setting: Sendable, Equatable, CustomStringConvertible {
        case value(Int64), auto, lock
        public var description: String {
            switch self { case .value(let v): return String(v); case .auto: return "auto"; case .lock: return "lock" }
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
    public var exposure: Setting?
    public var gain: Setting?
    public var focus: Setting?
    /// Kelvin, `auto` or `lock`.
    public var whiteBalance: Setting?
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

    /// Parses the options' texts; `option` names the flag in messages. Exit 64 on malformed values.
    public static func parse(shutter: String? = nil, shutterAngle: String? = nil, exposure: String? = nil, gain: String? = nil,
                             focus: String? = nil, whiteBalance: String? = nil, zoom: String? = nil,
                             controls: [String] = []) throws(ControlError) -> ControlRequests {
        var r = ControlRequests()
        if shutter != nil && shutterAngle != nil { throw ControlError.usage("--shutter and --shutter-angle: give one") }
        if let shutter {
            guard let s = try? Rational(parsing: Substring(shutter)), s.isPositive, s <= Rational(10) else {
                throw ControlError.usage("--shutter '\(shutter)': expected seconds such as 1/2000 or 0.0005 (more than 0, at most 10)")
            }
            r.shutter = .seconds(s)
        }
        if let shutterAngle {
            guard let a = try? Rational(parsing: Substring(shutterAngle)), a.isPositive, a <= Rational(360) else {
                throw ControlError.usage("--shutter-angle '\(shutterAngle)': expected degrees in (0, 360], e.g. 180")
            }
            r.shutter = .angle(a)
        }
        if let exposure {
            switch exposure.lowercased() {
            case "auto": r.exposure = .auto
            case "lock": r.exposure = .lock
            default: throw ControlError.usage("--exposure '\(exposure)': expected auto or lock (a manual time is --shutter)")
            }
            if r.shutter != nil { throw ControlError.usage("--exposure \(exposure) and --shutter: the shutter sets a manual exposure; give one") }
        }
        r.gain = try gain.map { v throws(ControlError) in try setting(v, option: "--gain") }
        r.focus = try focus.map { v throws(ControlError) in try setting(v, option: "--focus") }
        r.whiteBalance = try whiteBalance.map { v throws(ControlError) in try setting(v, option: "--white-balance", unit: "kelvin") }
        if let zoom {
            guard let z = try? Rational(parsing: Substring(zoom)), z.isPositive else {
                throw ControlError.usage("--zoom '\(zoom)': expected a positive number")
            }
            r.zoom = z
        }
        for c in controls {
            guard let eq = c.firstIndex(of: "="), eq != c.startIndex, c.index(after: eq) != c.endIndex else {
                throw ControlError.usage("--control '\(c)': expected NAME=VALUE (names as 'slomo controls' lists them)")
            }
            let name = String(c[..<eq]).trimmingSpaces, value = String(c[c.index(after: eq)...]).trimmingSpaces
            if r.named.contains(where: { $0.name == String(name) }) { throw ControlError.usage("--control \(name): given twice") }
            r.named.append((String(name), String(value)))
        }
        return r
    }

    static func setting(_ text: String, option: String, unit: String = "") throws(ControlError) -> Setting {
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

/// A control request that cannot be carried out, as one line. `usage` (exit 64): the value is wrong
/// for the control (range, step, unknown name); `unavailable` (exit 69): the device lacks what is asked
/// (no such control, read-only, inactive, no automatic mode to lock).
public struct ControlError: SlomoFailure, Equatable {
    public var description: String
    public var exitStatus: ExitStatus
    public static func usage(_ s: String) -> ControlError { ControlError(description: s, exitStatus: .usage) }
    public static func unavailable(_ s: String) -> ControlError { ControlError(description: s, exitStatus: .unavailable) }
    /// The same error with the device named in front (`/dev/video0: --gain 300: …`).
    public func on(_ device: String) -> ControlError { ControlError(description: "\(device): \(description)", exitStatus: exitStatus) }
}
