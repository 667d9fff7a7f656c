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
    /// `--curve T0@R0,…` (every command).
    public var curve: String?
    public var pitch: String?
    public var fps: String?
    public var codec: String?
    public var preset: String?
    public var crf: Int?
    public var frameBlend: String?
    public var noAudio = false
    public var audioCodec: String?
    /// `--audio-stream N`, repeatable: the audio streams kept (by stream index); empty: all of them.
    public var audioStreams: [Int] = []
    /// `--real-time`: rates against real time, for a phone's slow-motion file that records its capture rate.
    public var realTime = false
    /// Export's delivery: `--size WxH`, `--pix-fmt`, `--bitrate`, `--gop`.
    public var size: String?
    public var pixFmt: String?
    public var bitrate: String?
    public var gop: Int?
    /// `--start`, `--end`: the part of the source exported.
    public var start: String?
    public var end: String?
    /// Export's `--rotation`: auto, pixels, metadata.
    public var rotation: String?

    /// Field names a manifest may use (anything else is refused with its name).
    public static var fields: Set<String> { JobOption.manifestFields }

    /// Fields `command` does not take (`JobOption.commands`): the export-only ones for retime and
    /// stretch, the audio codec and `noAudio` for stretch.
    static func fieldsNotTaken(by command: Command) -> [String] {
        JobOption.allCases.filter { !$0.commands.contains(command) }.map(\.field)
    }

    private enum CodingKeys: String, CodingKey {
        case input, output, command, rate, segments, ramps, curve, pitch, fps, codec, preset, crf, frameBlend, noAudio, audioCodec, audioStreams, realTime, rotation, size, pixFmt, bitrate, gop, start, end
    }

    /// A job as `slomo job` reads it: fields with a default may be left out, as in a manifest.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        input = try c.decode(String.self, forKey: .input)
        output = try c.decode(String.self, forKey: .output)
        command = try c.decodeIfPresent(Command.self, forKey: .command) ?? .export
        rate = try c.decodeIfPresent(String.self, forKey: .rate)
        segments = try c.decodeIfPresent([String].self, forKey: .segments) ?? []
        ramps = try c.decodeIfPresent([String].self, forKey: .ramps) ?? []
        curve = try c.decodeIfPresent(String.self, forKey: .curve)
        pitch = try c.decodeIfPresent(String.self, forKey: .pitch)
        fps = try c.decodeIfPresent(String.self, forKey: .fps)
        codec = try c.decodeIfPresent(String.self, forKey: .codec)
        preset = try c.decodeIfPresent(String.self, forKey: .preset)
        crf = try c.decodeIfPresent(Int.self, forKey: .crf)
        frameBlend = try c.decodeIfPresent(String.self, forKey: .frameBlend)
        noAudio = try c.decodeIfPresent(Bool.self, forKey: .noAudio) ?? false
        audioCodec = try c.decodeIfPresent(String.self, forKey: .audioCodec)
        audioStreams = try c.decodeIfPresent([Int].self, forKey: .audioStreams) ?? []
        realTime = try c.decodeIfPresent(Bool.self, forKey: .realTime) ?? false
        size = try c.decodeIfPresent(String.self, forKey: .size)
        pixFmt = try c.decodeIfPresent(String.self, forKey: .pixFmt)
        bitrate = try c.decodeIfPresent(String.self, forKey: .bitrate)
        gop = try c.decodeIfPresent(Int.self, forKey: .gop)
        start = try c.decodeIfPresent(String.self, forKey: .start)
        end = try c.decodeIfPresent(String.self, forKey: .end)
        rotation = try c.decodeIfPresent(String.self, forKey: .rotation)
    }

    public init(input: String, output: String, command: Command = .export) {
        self.input = input; self.output = output; self.command = command
    }

    /// Checks option values the same way the commands do, so a bad job fails before anything runs.
    /// Option values are named as a manifest names them (its fields: `frameBlend 'x'`); a speed
    /// map's refusal keeps its settings typed, so the command line shows `--curve 'x'`, as it always has.
    /// `place` nil: the values came from the command line (`slomo batch --rate 0`), refused as
    /// `invalidOption` with their settings typed (the CLI shows its flags).
    public func validate(where place: String?) throws(ManifestError) {
        func bad(_ m: Wording) -> ManifestError {
            guard let place else { return .invalidOption(m) }
            return .invalidJob(at: place, Wording(verbatim: m.description))
        }
        // a speed map's refusal keeps its settings typed, so the command line shows its flags (`--curve 'x'`) as before
        do { _ = try RetimeSpec.options(rate: rate, segments: segments, ramps: ramps, curve: curve) } catch {
            guard let place else { throw .invalidOption(error.wording) }
            throw .invalidJob(at: place, error.wording)
        }
        let parsed: Parsed
        do { parsed = try parsedOptions() } catch { throw bad(error.wording) }
        if let fps = parsed.fps, !fps.isPositive { throw bad("\(JobOption.fps.setting) must be > 0") }
        if let pitch, TimePitchAlgorithm(rawValue: pitch) == nil {
            throw bad(SettingError(JobOption.pitch.setting, pitch, "expected \(JobOption.pitchNames)").wording)
        }
        if let audioCodec { do { try AudioCodecChoice.check(audioCodec) } catch { throw bad(error.wording) } }
        if let n = audioStreams.first(where: { $0 < 0 }) {
            throw bad(SettingError(JobOption.audioStreams.setting, String(n), "a stream index is 0 or more").wording)
        }
        // what the job's command does not take (`JobOption.commands`), in words for the usual cases
        if command == .stretch, audioCodec != nil { throw bad("audioCodec does not apply to stretch (the output's extension chooses)") }
        let exportOnly = JobOption.allCases.filter { $0.commands == [.export] }
        if command != .export, exportOnly.contains(where: sets) {
            let names = exportOnly.map(\.field)
            throw bad("\(names.dropLast().joined(separator: ", ")) and \(names.last!) do not apply to \(command)\(command == .retime ? " (it copies video)" : "")")
        }
        if let other = JobOption.allCases.first(where: { !$0.commands.contains(command) && sets($0) }) {
            throw bad("\(other.field) does not apply to \(command)")
        }
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
        if !audioStreams.isEmpty { fields.append("audioStreams=" + audioStreams.map(String.init).joined(separator: ",")) }
        if realTime { fields.append("realTime") }
        let delivery: [(String, String?)] = [("size", self.size), ("pixFmt", pixFmt), ("bitrate", bitrate), ("gop", gop.map { String($0) }), ("start", start), ("end", end)]
        for (k, v) in delivery { if let v { fields.append("\(k)=\(v)") } }
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
    public init(parsing text: String, base: Int = 1) throws(SettingError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw SettingError(.shard, text, "expected I/N, e.g. 1/4")
        }
        guard n >= 1 else { throw SettingError(.shard, text, "the shard count must be at least 1") }
        let lo = base, hi = n - 1 + base
        guard i >= lo && i <= hi else { throw SettingError(.shard, text, "the index must be in \(lo)...\(hi)") }
        index = i - base + 1
        count = n
    }

    public init(index: Int, count: Int) { self.index = index; self.count = count }

    public func contains(jobNumber k: Int) -> Bool { k % count == index - 1 }
}
