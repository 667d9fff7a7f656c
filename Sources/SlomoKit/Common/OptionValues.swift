import SlomoCore
import SlomoSystem

/// Option values that ArgumentParser would only reject with a generic message; used by the CLI and
/// by use cases that take options as text (`DeviceService.request`). Errors are `SettingError`s.
public enum OptionValues {
    public static func rational(_ text: String, option: Setting) throws(SettingError) -> Rational {
        do { return try Rational(parsing: text) } catch {
            throw SettingError(option, text, "\(error)")
        }
    }

    /// A frame rate: NTSC decimals (29.97) as their exact 1001 rates, else as `rational`.
    public static func frameRate(_ text: String, option: Setting) throws(SettingError) -> Rational {
        do { return try Rational(frameRate: text) } catch {
            throw SettingError(option, text, "\(error)")
        }
    }

    /// The note a user gets when a decimal they wrote was taken as an NTSC rate; nil otherwise.
    public static func ntscNote(_ text: String, option: Setting) -> Wording? {
        guard let r = Rational.ntscRates[text], let decimals = text.split(separator: ".").last?.count else { return nil }
        let exact = "\(text.replacingOccurrences(of: ".", with: ""))/1\(String(repeating: "0", count: decimals))"
        return "\(option) \(text) taken as \(r) fps, the NTSC rate it stands for (\(exact) for exactly \(text))"
    }

    /// "expected a, b or c": the values an option of type `T` takes, in declaration order.
    public static func expected<T: CaseIterable & RawRepresentable>(_: T.Type) -> String where T.RawValue == String {
        "expected " + choices(T.self)
    }

    /// "a, b or c".
    public static func choices<T: CaseIterable & RawRepresentable>(_: T.Type) -> String where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        guard let last = names.last, names.count > 1 else { return names.joined() }
        return names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// `WxH`, e.g. `1280x720`.
    public static func size(_ text: String, option: Setting) throws(SettingError) -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
            throw SettingError(option, text, "expected WIDTHxHEIGHT, e.g. 1280x720")
        }
        return (w, h)
    }

    /// A byte count: `512M`, `2G`, `1.5G`, `800000` (K, M, G are powers of 1024).
    public static func bytes(_ text: String, option: Setting) throws(SettingError) -> Int64 {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var body = text.uppercased()
        if body.hasSuffix("IB") { body.removeLast(2) } else if body.hasSuffix("B") { body.removeLast() }
        var scale: Int64 = 1
        if let u = body.last, let m = units[u] {
            scale = m
            body.removeLast()
        }
        // in 128 bits: `601111112G` or a long decimal must be refused, never overflow (found by fuzz-values)
        guard let r = try? Rational(parsing: body), r.isPositive,
            case let bytes = Int128(r.numerator) * Int128(scale) / Int128(r.denominator), bytes <= Int128(1) << 50
        else {
            throw SettingError(option, text, "expected a size such as 512M or 2G (at most 1P)")
        }
        return Int64(bytes)
    }

    /// A duration in seconds for an option that takes zero or more (`2`, `0.5`, `1/4`).
    public static func seconds(_ text: String, option: Setting, max: Rational = Rational(86_400)) throws(SettingError) -> Rational {
        let d = try rational(text, option: option)
        guard !d.isNegative, d <= max else { throw SettingError(option, text, "must be in [0, \(max)] s", quoted: false) }
        return d
    }

    /// `--trigger stdin|signal|motion[=THRESHOLD]` (threshold: mean 8-bit brightness change, 0 < t ≤ 255, default 10).
    public static func trigger(_ text: String) throws(SettingError) -> TriggerKind {
        switch text {
        case "stdin": return .stdin
        case "signal": return .signal
        case "motion": return .motion(threshold: Rational(10))
        default:
            if text.hasPrefix("motion=") {
                let value = String(text.dropFirst(7))
                let t: Rational
                do { t = try Rational(parsing: value) } catch { throw SettingError(.trigger, "motion '\(value)'", "\(error)", quoted: false) }
                guard t.isPositive, t <= Rational(255) else {
                    throw SettingError(.trigger, text, "the motion threshold is a mean brightness change in (0, 255]", quoted: false)
                }
                return .motion(threshold: t)
            }
            if text.hasPrefix("udp://") { return .network(try NetworkTriggerAddress.parse(text)) }
            if text.hasPrefix("gpio:") { return .gpio(try GPIOTriggerLine.parse(text)) }
            if text == "sound" { return .sound(levelDBFS: TriggerSettings.defaultSoundLevel) }
            if text.hasPrefix("sound=") {
                let value = String(text.dropFirst(6))
                do { return .sound(levelDBFS: try Rational(parsing: value)) } catch {
                    throw SettingError(.trigger, "sound '\(value)'", "expected a level in dBFS such as -20", quoted: false)
                }
            }
            throw SettingError(.trigger, text, "expected stdin, signal, motion[=THRESHOLD], sound[=LEVEL], gpio:CHIP:LINE or udp://[ADDR]:PORT")
        }
    }
}
