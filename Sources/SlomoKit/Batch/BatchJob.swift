import Foundation
import SlomoCore

/// One job of a batch: a slomo command on one input, with its options.
public struct BatchJob: Codable, Sendable, Equatable {
    public enum Command: String, Codable, Sendable, CaseIterable { case export, retime, stretch }
    public var input: String
    public var output: String
    public var command: Command = .export
    public var rate: String?
    public var segments: [String] = []
    public var ramps: [String] = []
    /// `--curve T0@R0,…` (export and retime).
    public var curve: String?
    public var pitch: String?
    public var fps: String?
    public var codec: String?
    public var preset: String?
    public var crf: Int?
    public var frameBlend: String?
    public var noAudio = false
    public var audioCodec: String?
    /// Export's `--rotation`: auto, pixels, metadata.
    public var rotation: String?

    /// Field names a manifest may use (anything else is refused with its name).
    public static let fields: Set<String> = ["input", "output", "command", "rate", "segments", "segment", "ramps", "ramp",
                                             "curve", "pitch", "fps", "codec", "preset", "crf", "frameBlend", "noAudio", "audioCodec", "rotation"]

    /// Fields only export takes (retime copies the video, stretch has none).
    static let exportOnlyFields = ["fps", "codec", "preset", "crf", "frameBlend", "rotation"]

    /// Fields `command` does not take: the export-only ones for retime and stretch, and the audio
    /// codec for stretch (its output's extension chooses).
    static func fieldsNotTaken(by command: Command) -> [String] {
        switch command {
        case .export: return []
        case .retime: return exportOnlyFields
        case .stretch: return exportOnlyFields + ["audioCodec"]
        }
    }

    public init(input: String, output: String, command: Command = .export) {
        self.input = input; self.output = output; self.command = command
    }

    /// Checks option values the same way the commands do, so a bad job fails before anything runs.
    public func validate(where place: String) throws(SimpleFailure) {
        func bad(_ m: String) -> SimpleFailure { SimpleFailure("\(place): \(m)", .usage) }
        if let rate { do { _ = try RetimeSpec.parseRate(Substring(rate), context: "rate \(rate)") } catch { throw bad("\(error)") } }
        for s in segments { do { _ = try SegmentSpec(parsing: s) } catch { throw bad("\(error)") } }
        for s in ramps { do { _ = try SegmentSpec(parsing: s, allowRamp: true) } catch { throw bad("\(error)") } }
        if let curve {
            guard command != .stretch else { throw bad("curve does not apply to stretch (export and retime take it)") }
            do { _ = try SpeedCurve(parsing: curve) } catch { throw bad("\(error)") }
        }
        if let fps { do { let f = try Rational(parsing: fps); guard f.isPositive else { throw bad("fps must be > 0") } } catch { throw bad("fps '\(fps)': \(error)") } }
        if let pitch, !["spectral", "time-domain", "zero-latency", "varispeed", "mute"].contains(pitch) {
            throw bad("pitch '\(pitch)': expected spectral, time-domain, zero-latency, varispeed or mute")
        }
        if let audioCodec, !AudioCodecChoice.isKnown(audioCodec) { throw bad("audioCodec '\(audioCodec)': \(AudioCodecChoice.expected)") }
        if command == .stretch, audioCodec != nil { throw bad("audioCodec does not apply to stretch (the output's extension chooses)") }
        if let frameBlend, ExportRequest.FrameBlend(rawValue: frameBlend) == nil {
            throw bad("frameBlend '\(frameBlend)': \(OptionValues.expected(ExportRequest.FrameBlend.self))")
        }
        if let rotation, ExportRequest.Rotation(rawValue: rotation) == nil { throw bad("rotation '\(rotation)': \(OptionValues.expected(ExportRequest.Rotation.self))") }
        if command != .export, fps != nil || codec != nil || preset != nil || crf != nil || frameBlend != nil || rotation != nil {
            let names = Self.exportOnlyFields
            throw bad("\(names.dropLast().joined(separator: ", ")) and \(names.last!) do not apply to \(command)\(command == .retime ? " (it copies video)" : "")")
        }
    }

    /// The slomo command line that runs this job.
    public func arguments(threads: Int, jobKey: String) -> [String] {
        var a = [command.rawValue, input, "-o", output, "--overwrite"]
        if let rate { a += ["--rate", rate] }
        for s in segments { a += ["--segment", s] }
        for s in ramps { a += ["--ramp", s] }
        if let curve { a += ["--curve", curve] }
        if let pitch { a += ["--pitch", pitch] }
        if noAudio && command != .stretch { a.append("--no-audio") }
        if let audioCodec { a += ["--audio-codec", audioCodec] }
        if let fps { a += ["--fps", fps] }
        if let codec { a += ["--codec", codec] }
        if let preset { a += ["--preset", preset] }
        if let crf { a += ["--crf", String(crf)] }
        if let frameBlend { a += ["--frame-blend", frameBlend] }
        if let rotation { a += ["--rotation", rotation] }
        if command != .stretch { a += ["--threads", String(threads), "--job-key", jobKey] }
        if command == .export { a += ["--progress", "json"] }
        a.append("--json")
        return a
    }

    /// A fingerprint of what the output must be: command, options, and the input's identity
    /// (absolute path, size, modification time). FNV-1a 64, hex.
    public func key() -> String {
        let attrs = try? FileManager.default.attributesOfItem(atPath: input)
        let size = (attrs?[.size] as? Int) ?? -1
        let mtime = (attrs?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        var fields: [String] = [command.rawValue, URL(fileURLWithPath: input).standardizedFileURL.path, String(size), String(mtime),
                                rate ?? "", segments.joined(separator: ","), ramps.joined(separator: ","), pitch ?? "", fps ?? "",
                                codec ?? "", preset ?? "", crf.map(String.init) ?? "", frameBlend ?? "", String(noAudio)]
        // fields added later only when set, so outputs made before they existed keep their key
        if let audioCodec { fields.append(audioCodec) }
        if let curve { fields.append("curve=" + curve) }
        if let rotation, rotation != ExportRequest.Rotation.auto.rawValue { fields.append("rotation=" + rotation) }   // auto = unset
        let canonical = fields.joined(separator: "|")
        var h: UInt64 = 0xcbf29ce484222325
        for b in canonical.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return String(h, radix: 16)
    }
}

/// `--shard I/N`: job k belongs to shard (k mod N) + 1 — deterministic, every job in exactly one shard.
public struct ShardSpec: Sendable, Equatable {
    public var index: Int
    public var count: Int

    /// Parses `I/N` with 1 ≤ I ≤ N. (Slurm array ids and Kubernetes completion indexes start at 0:
    /// pass `$((SLURM_ARRAY_TASK_ID + 1))/N` or use `--shard-base 0`.)
    public init(parsing text: String, base: Int = 1) throws(SimpleFailure) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw SimpleFailure("--shard '\(text)': expected I/N, e.g. 1/4", .usage)
        }
        guard n >= 1 else { throw SimpleFailure("--shard '\(text)': the shard count must be at least 1", .usage) }
        let lo = base, hi = n - 1 + base
        guard i >= lo && i <= hi else { throw SimpleFailure("--shard '\(text)': the index must be in \(lo)...\(hi)", .usage) }
        index = i - base + 1
        count = n
    }

    public init(index: Int, count: Int) { self.index = index; self.count = count }

    public func contains(jobNumber k: Int) -> Bool { k % count == index - 1 }
}
