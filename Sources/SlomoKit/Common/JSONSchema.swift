import Foundation

/// Every JSON object slomo prints or writes at top level (a `--json` document, each line of a JSON
/// Lines stream, the capture sidecar) carries `version`, the schema version of `Docs/JSON.md`.
/// It goes up when a field is removed or changes meaning; new fields may appear without a bump.
/// Keys are sorted, so output is stable across runs.
public enum JSONSchema {
    public static let version = 2

    /// A pretty-printed document (`--json`, `OUTPUT.capture.json`).
    public static func document<T: Encodable>(_ value: T) throws -> Data {
        try encoder([.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]).encode(Versioned(value: value, type: nil))
    }

    /// One compact line of a JSON Lines stream (batch records, play and progress events), with
    /// `type` naming what the line is (`job`, `summary`, `progress`, `play`, `capture`…), so a
    /// reader selects lines by it (`jq 'select(.type == "job")'`).
    public static func line<T: Encodable>(_ value: T, type: String) throws -> String {
        String(decoding: try encoder([.sortedKeys, .withoutEscapingSlashes]).encode(Versioned(value: value, type: type)), as: UTF8.self)
    }

    /// One line from an untyped object (batch's refusal and plan lines).
    public static func line(_ object: [String: Any], type: String) throws -> String {
        var o = object
        o["version"] = version
        o["type"] = type
        return String(
            decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes]),
            as: UTF8.self)
    }

    private static func encoder(_ formatting: JSONEncoder.OutputFormatting) -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = formatting
        return e
    }

    /// The value's own keys plus `version`, in one object.
    private struct Versioned<T: Encodable>: Encodable {
        let value: T
        let type: String?
        private enum Key: String, CodingKey { case version, type }
        func encode(to encoder: any Encoder) throws {
            try value.encode(to: encoder)
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(JSONSchema.version, forKey: .version)
            if let type { try c.encode(type, forKey: .type) }
        }
    }
}

/// A progress line: an export's frames (`done` of `total`, on stderr with `--progress json`, on
/// stdout from `slomo job`), or a batch's jobs and overall fraction. Batch reads its children's
/// lines back through this type.
public struct ProgressEvent: Codable, Sendable, Equatable {
    public var event = "progress"
    public var done: Int64?
    public var total: Int64?
    public var jobsDone: Int?
    public var jobs: Int?
    public var fraction: Double?
    public var frames: Int64?
    /// Frames (or packets) handled per second of wall time: a speed, not a frame rate.
    public var throughputFps: Double?
    public var etaSeconds: Double?
    /// A `note` or `warning` event: the line that would have gone to stderr as text.
    public var message: String?

    public init(done: Int64, total: Int64) {
        self.done = done
        self.total = total
    }

    /// A diagnostic line ("slomo: warning: …" or "slomo: note: …") as an event of its own kind.
    public init(diagnostic line: String) {
        event = line.hasPrefix("slomo: warning:") ? "warning" : "note"
        message = line
    }

    public init(jobsDone: Int, jobs: Int, fraction: Double, frames: Int64, fps: Double, etaSeconds: Double) {
        self.jobsDone = jobsDone
        self.jobs = jobs
        self.frames = frames
        self.fraction = (fraction * 10_000).rounded() / 10_000
        self.throughputFps = (fps * 10).rounded() / 10
        self.etaSeconds = (etaSeconds * 10).rounded() / 10
    }

    /// The event a child's line carries, if it is one.
    public init?(line: String) {
        guard line.hasPrefix("{"), let e = try? JSONDecoder().decode(ProgressEvent.self, from: Data(line.utf8)),
            e.event == "progress"
        else { return nil }
        self = e
    }
}

/// Frame progress at most every 1/2 s, and always the last.
public struct ProgressThrottle: Sendable {
    private var last = DispatchTime(uptimeNanoseconds: 0)
    public init() {}
    /// True when (done, total) should be reported now.
    public mutating func due(_ done: Int64, _ total: Int64) -> Bool {
        let now = DispatchTime.now()
        guard done == total || now.uptimeNanoseconds - last.uptimeNanoseconds > 500_000_000 else { return false }
        last = now
        return true
    }
}
