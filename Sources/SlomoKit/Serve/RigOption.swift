import Foundation
import SlomoCore

/// The rig's settings as one table: each row's field (the settings JSON, `PATCH settings`, `arm`),
/// its command-line flag, kind, range, help, whether it needs the camera idle and whether an arm
/// names it. `RigSettings.check`, the HTTP bodies (`RigOption.patch`), `serve`'s and `capture`'s
/// flags and openapi.json's `Settings` and `Arm` schemas (checked by a test) all read it: a new
/// setting is one row here and its use.
public enum RigOption: String, CaseIterable, Sendable {
    case preTrigger, postTrigger, shots, previewFps, previewWidth

    /// What a value is: seconds or a rate (a JSON number or a fraction text, "1/4"), or a whole number.
    public enum Kind: Sendable { case seconds, count, rate, pixels }

    public var field: String { rawValue }
    public var setting: Setting { Setting(field) }

    /// The long flag without dashes (`pre-trigger`).
    public var flag: String {
        rawValue.reduce(into: "") { out, c in c.isUppercase ? out += "-" + c.lowercased() : out.append(c) }
    }

    public var kind: Kind {
        switch self {
        case .preTrigger, .postTrigger: return .seconds
        case .shots: return .count
        case .previewFps: return .rate
        case .previewWidth: return .pixels
        }
    }

    /// The values taken: `lowest` (itself too unless `lowestExcluded`) up to `highest`.
    public var lowest: Rational { self == .previewWidth ? Rational(64) : .zero }
    public var lowestExcluded: Bool { self == .previewFps }
    public var highest: Rational {
        switch self {
        case .preTrigger, .postTrigger: return Rational(3600)
        case .shots: return Rational(10_000)
        case .previewFps: return Rational(60)
        case .previewWidth: return Rational(3840)
        }
    }

    public func accepts(_ v: Rational) -> Bool {
        (lowestExcluded ? v > lowest : v >= lowest) && v <= highest && (kind == .seconds || kind == .rate || v.isInteger)
    }

    /// The range in words, as a refusal gives it after the field's name.
    public var rangeWords: String {
        switch self {
        case .preTrigger, .postTrigger: return "must be in [0, 3600] seconds"
        case .shots: return "must be in 0...10000 (0: until disarmed)"
        case .previewFps: return "must be > 0 and at most 60"
        case .previewWidth: return "must be in 64...3840"
        }
    }

    public var help: String {
        switch self {
        case .preTrigger: return "Keep this many seconds before the trigger (1 when neither this nor --post-trigger is given)."
        case .postTrigger: return "Keep this many seconds after the trigger frame (1 when neither this nor --pre-trigger is given)."
        case .shots: return "Shots one arm takes (0: until disarmed)."
        case .previewFps: return "Live pictures per second at most."
        case .previewWidth: return "Live picture width at most (pixels)."
        }
    }

    /// Changing it makes a new ring: only while the camera is idle.
    public var needsIdle: Bool { self == .preTrigger || self == .postTrigger }

    /// An arm's body may name it (the window and the shot count of that arm).
    public var armTakes: Bool { self != .previewFps && self != .previewWidth }

    func value(in s: RigSettings) -> Rational {
        switch self {
        case .preTrigger: return s.preTrigger
        case .postTrigger: return s.postTrigger
        case .shots: return Rational(s.shots)
        case .previewFps: return s.previewFps
        case .previewWidth: return Rational(s.previewWidth)
        }
    }

    func set(_ v: Rational, in s: inout RigSettings) {
        switch self {
        case .preTrigger: s.preTrigger = v
        case .postTrigger: s.postTrigger = v
        case .shots: s.shots = Int(v.numerator)
        case .previewFps: s.previewFps = v
        case .previewWidth: s.previewWidth = Int(v.numerator)
        }
    }
}

extension RigSettings {
    /// The settings a PATCH (or an arm) names, each decoded by its row's kind.
    public struct Patch: Sendable {
        public var values: [RigOption: Rational] = [:]
        public var names: Set<String> { Set(values.keys.map(\.field)) }
        public func apply(_ s: inout RigSettings) { for (o, v) in values { o.set(v, in: &s) } }
        public var preTrigger: Rational? { values[.preTrigger] }
        public var postTrigger: Rational? { values[.postTrigger] }
        public var shots: Int? { values[.shots].map { Int($0.numerator) } }
    }

    /// A JSON object's settings: only the `allowed` rows' fields, numbers or fraction texts for
    /// seconds and rates, whole numbers for counts and pixels; refusals name the field.
    public static func patch(_ o: [String: Any], allowed: [RigOption] = RigOption.allCases) throws(RigRefusal) -> Patch {
        let known = Set(allowed.map(\.field))
        if let k = o.keys.sorted().first(where: { !known.contains($0) }) {
            throw .badField(k, "not a field here (expected \(known.sorted().joined(separator: ", ")))")
        }
        var p = Patch()
        for option in allowed {
            guard let v = o[option.field], !(v is NSNull) else { continue }
            p.values[option] = try decode(v, as: option)
        }
        return p
    }

    private static func decode(_ v: Any, as option: RigOption) throws(RigRefusal) -> Rational {
        let key = option.field
        switch option.kind {
        case .count, .pixels:
            guard !JSONValue.isBool(v), let n = v as? NSNumber, let i = Int(exactly: n.doubleValue) else {
                throw .badField(key, "expected a whole number")
            }
            return Rational(i)
        case .seconds, .rate:
            if let s = v as? String {
                do { return try Rational(parsing: s) } catch { throw .badField(key, "'\(s)' is not a number (0.25, \"1/4\")") }
            }
            if !JSONValue.isBool(v), let n = v as? NSNumber {
                do { return try Rational(parsing: n.stringValue) } catch { throw .badField(key, "\(n) is not a number slomo takes (at most 18 digits)") }
            }
            throw .badField(key, "expected a number (0.25) or a fraction text (\"1/4\")")
        }
    }
}

/// What Foundation's JSON reader hands over.
public enum JSONValue {
    /// JSON true/false (Foundation hands them over as numbers too).
    public static func isBool(_ v: Any) -> Bool {
        if v is Bool && !(v is Int) { return true }
        let t = String(describing: type(of: v))
        return t == "Bool" || t.contains("Boolean")
    }
}
