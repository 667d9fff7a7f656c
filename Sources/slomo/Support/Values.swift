import Foundation
import SlomoKit
import SlomoCore

/// Parsing of option values that ArgumentParser would only reject with a generic message
/// (sizes and rationals: `OptionValues` in SlomoKit).
enum Values {
    /// Builds a retime spec from `--rate`, `--segment` and `--ramp` values.
    static func retimeSpec(rate: String?, segments: [String], ramps: [String], curve: String? = nil) throws(SimpleFailure) -> RetimeSpec {
        do {
            var spec = RetimeSpec()
            if let curve { spec.curve = try SpeedCurve(parsing: curve) }
            if let rate { spec.rate = try RetimeSpec.parseRate(Substring(rate), context: "--rate \(rate)") }
            spec.segments = try segments.map { (s: String) throws(RetimeError) in try SegmentSpec(parsing: s) }
            spec.segments += try ramps.map { (s: String) throws(RetimeError) in try SegmentSpec(parsing: s, allowRamp: true).withDefaultRamp() }
            return spec
        } catch {
            throw SimpleFailure("\(error)", .usage)
        }
    }
}

extension SegmentSpec {
    /// A `--ramp` without `:RAMP` eases over half a second on each side.
    func withDefaultRamp() -> SegmentSpec {
        var s = self
        if s.ramp == nil { s.ramp = Rational(1, 2) }
        return s
    }
}

/// A `--json` document on stdout (`JSONSchema`: sorted keys, `version`).
enum JSONOutput {
    static func print<T: Encodable>(_ value: T) throws {
        Console.out(String(decoding: try JSONSchema.document(value), as: UTF8.self))
    }
}

/// The one-line form of a report's damage list: the first sign, and how many more `--json` lists.
enum DamageSummary {
    static func line(_ damage: [String]) -> String? {
        guard let first = damage.first else { return nil }
        return first + (damage.count > 1 ? " (+\(damage.count - 1) more, see --json)" : "")
    }
}

/// The warning for a display rotation the output container cannot store (export and retime).
enum RotationWarning {
    static func line(input: String, output: String, degrees: Double) -> String {
        let d = degrees == degrees.rounded() ? String(Int(degrees)) : String(degrees)
        return "slomo: warning: \(input): its \(d)° display rotation cannot be stored in \(URL(fileURLWithPath: output).pathExtension) (FFmpeg 5.1): \(output) plays unrotated; write .mp4 or .mov to keep it"
    }
}
