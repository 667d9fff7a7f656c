import Foundation
import SlomoKit
import SlomoCore

/// Parsing of option values that ArgumentParser would only reject with a generic message
/// (sizes and rationals: `OptionValues` in SlomoKit).
enum Values {
    /// Builds a retime spec from `--rate`, `--segment`, `--ramp` and `--curve` values.
    static func retimeSpec(rate: String?, segments: [String], ramps: [String], curve: String? = nil) throws(RetimeError) -> RetimeSpec {
        try RetimeSpec.options(rate: rate, segments: segments, ramps: ramps, curve: curve)
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
/// The source's streams an output does not carry: one warning line each, naming the stream and why.
enum DroppedStreamsWarning {
    static func lines(input: String, output: String, _ dropped: [String]) -> [String] {
        dropped.map { "slomo: warning: \(input): \(output) leaves out \($0)" }
    }
}

enum RotationWarning {
    static func line(input: String, output: String, degrees: Double) -> String {
        let d = degrees == degrees.rounded() ? String(Int(degrees)) : String(degrees)
        return
            "slomo: warning: \(input): its \(d)° display rotation cannot be stored in \(URL(fileURLWithPath: output).pathExtension) (FFmpeg 5.1): \(output) plays unrotated; write .mp4 or .mov to keep it"
    }
}
