import Foundation
import SlomoCore

/// One job of a batch: a slomo command on one input, with its options. The options are data: a
/// value per `JobOption` (the table that names each one's field, flag, help, kind and commands),
/// read and written by one loop over that table for the manifests, for `slomo job`'s request and
/// for "which options does this job set"; the typed properties below are views of it.
public struct BatchJob: Codable, Sendable, Equatable {
    public enum Command: String, Codable, Sendable, CaseIterable { case export, retime, stretch }
    public var input: String
    public var output: String
    public var command: Command = .export
    /// The options the job sets (an option left out has its default: nil, empty or false).
    public private(set) var options: [JobOption: JobOption.Value] = [:]

    public var rate: String? {
        get { text(.rate) }
        set { set(.rate, newValue.map(JobOption.Value.text)) }
    }
    public var segments: [String] {
        get { texts(.segments) }
        set { set(.segments, .texts(newValue)) }
    }
    public var ramps: [String] {
        get { texts(.ramps) }
        set { set(.ramps, .texts(newValue)) }
    }
    /// `--curve T0@R0,…` (every command).
    public var curve: String? {
        get { text(.curve) }
        set { set(.curve, newValue.map(JobOption.Value.text)) }
    }
    public var pitch: String? {
        get { text(.pitch) }
        set { set(.pitch, newValue.map(JobOption.Value.text)) }
    }
    public var fps: String? {
        get { text(.fps) }
        set { set(.fps, newValue.map(JobOption.Value.text)) }
    }
    public var codec: String? {
        get { text(.codec) }
        set { set(.codec, newValue.map(JobOption.Value.text)) }
    }
    public var preset: String? {
        get { text(.preset) }
        set { set(.preset, newValue.map(JobOption.Value.text)) }
    }
    public var crf: Int? {
        get { number(.crf) }
        set { set(.crf, newValue.map(JobOption.Value.number)) }
    }
    public var frameBlend: String? {
        get { text(.frameBlend) }
        set { set(.frameBlend, newValue.map(JobOption.Value.text)) }
    }
    public var flowQuality: String? {
        get { text(.flowQuality) }
        set { set(.flowQuality, newValue.map(JobOption.Value.text)) }
    }
    public var noAudio: Bool {
        get { flag(.noAudio) }
        set { set(.noAudio, .flag(newValue)) }
    }
    public var audioCodec: String? {
        get { text(.audioCodec) }
        set { set(.audioCodec, newValue.map(JobOption.Value.text)) }
    }
    /// `--audio-stream N`, repeatable: the audio streams kept (by stream index); empty: all of them.
    public var audioStreams: [Int] {
        get { numbers(.audioStreams) }
        set { set(.audioStreams, .numbers(newValue)) }
    }
    /// `--real-time`: rates against real time, for a phone's slow-motion file that records its capture rate.
    public var realTime: Bool {
        get { flag(.realTime) }
        set { set(.realTime, .flag(newValue)) }
    }
    /// Export's delivery: `--size WxH`, `--pix-fmt`, `--bitrate`, `--gop`.
    public var size: String? {
        get { text(.size) }
        set { set(.size, newValue.map(JobOption.Value.text)) }
    }
    public var pixFmt: String? {
        get { text(.pixFmt) }
        set { set(.pixFmt, newValue.map(JobOption.Value.text)) }
    }
    public var bitrate: String? {
        get { text(.bitrate) }
        set { set(.bitrate, newValue.map(JobOption.Value.text)) }
    }
    public var gop: Int? {
        get { number(.gop) }
        set { set(.gop, newValue.map(JobOption.Value.number)) }
    }
    /// `--start`, `--end`: the part of the source kept.
    public var start: String? {
        get { text(.start) }
        set { set(.start, newValue.map(JobOption.Value.text)) }
    }
    public var end: String? {
        get { text(.end) }
        set { set(.end, newValue.map(JobOption.Value.text)) }
    }
    /// Export's `--rotation`: auto, pixels, metadata.
    public var rotation: String? {
        get { text(.rotation) }
        set { set(.rotation, newValue.map(JobOption.Value.text)) }
    }

    /// Export's `--burn-in`, `--burn-in-fields`, `--burn-in-corner`, `--burn-in-size`.
    public var burnIn: Bool {
        get { flag(.burnIn) }
        set { set(.burnIn, .flag(newValue)) }
    }
    public var burnInFields: String? {
        get { text(.burnInFields) }
        set { set(.burnInFields, newValue.map(JobOption.Value.text)) }
    }
    public var burnInCorner: String? {
        get { text(.burnInCorner) }
        set { set(.burnInCorner, newValue.map(JobOption.Value.text)) }
    }
    public var burnInSize: Int? {
        get { number(.burnInSize) }
        set { set(.burnInSize, newValue.map(JobOption.Value.number)) }
    }

    private func text(_ o: JobOption) -> String? {
        if case .text(let v)? = options[o] { return v }
        return nil
    }
    private func texts(_ o: JobOption) -> [String] {
        if case .texts(let v)? = options[o] { return v }
        return []
    }
    private func number(_ o: JobOption) -> Int? {
        if case .number(let v)? = options[o] { return v }
        return nil
    }
    private func numbers(_ o: JobOption) -> [Int] {
        if case .numbers(let v)? = options[o] { return v }
        return []
    }
    private func flag(_ o: JobOption) -> Bool {
        if case .flag(let v)? = options[o] { return v }
        return false
    }
    /// Sets an option; its default (nil, empty, false) is stored as "not set".
    public mutating func set(_ o: JobOption, _ value: JobOption.Value?) { options[o] = value?.isDefault == false ? value : nil }

    /// Whether the job sets `option` (a flag that is off counts as unset).
    func sets(_ option: JobOption) -> Bool { options[option] != nil }

    /// Field names a manifest may use (anything else is refused with its name).
    public static var fields: Set<String> { JobOption.manifestFields }

    /// Fields `command` does not take (`JobOption.commands`): the export-only ones for retime and
    /// stretch, the audio codec and `noAudio` for stretch.
    static func fieldsNotTaken(by command: Command) -> [String] {
        JobOption.allCases.filter { !$0.commands.contains(command) }.map(\.field)
    }

    private struct Key: CodingKey {
        var stringValue: String
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// A job as `slomo job` reads it: fields with a default may be left out, as in a manifest.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        input = try c.decode(String.self, forKey: Key("input"))
        output = try c.decode(String.self, forKey: Key("output"))
        command = try c.decodeIfPresent(Command.self, forKey: Key("command")) ?? .export
        for o in JobOption.allCases {
            let k = Key(o.field)
            switch o.kind {
            case .text: set(o, try c.decodeIfPresent(String.self, forKey: k).map(JobOption.Value.text))
            case .texts: set(o, try c.decodeIfPresent([String].self, forKey: k).map(JobOption.Value.texts))
            case .number: set(o, try c.decodeIfPresent(Int.self, forKey: k).map(JobOption.Value.number))
            case .numbers: set(o, try c.decodeIfPresent([Int].self, forKey: k).map(JobOption.Value.numbers))
            case .flag: set(o, try c.decodeIfPresent(Bool.self, forKey: k).map(JobOption.Value.flag))
            }
        }
    }

    /// Every option, the lists and flags with their defaults too (the request `slomo job` reads).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(input, forKey: Key("input"))
        try c.encode(output, forKey: Key("output"))
        try c.encode(command, forKey: Key("command"))
        for o in JobOption.allCases {
            let k = Key(o.field)
            switch options[o] ?? o.kind.defaultValue {
            case .text(let v)?: try c.encode(v, forKey: k)
            case .texts(let v)?: try c.encode(v, forKey: k)
            case .number(let v)?: try c.encode(v, forKey: k)
            case .numbers(let v)?: try c.encode(v, forKey: k)
            case .flag(let v)?: try c.encode(v, forKey: k)
            case nil: break
            }
        }
    }

    public init(input: String, output: String, command: Command = .export) {
        self.input = input
        self.output = output
        self.command = command
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
            throw bad(
                "\(names.dropLast().joined(separator: ", ")) and \(names.last!) do not apply to \(command)\(command == .retime ? " (it copies video)" : "")")
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
        var fields: [String] = [
            command.rawValue, URL(fileURLWithPath: input).standardizedFileURL.path, String(size), String(mtime),
            rate ?? "", segments.joined(separator: ","), ramps.joined(separator: ","), pitch ?? "", fps ?? "",
            codec ?? "", preset ?? "", crf.map(String.init) ?? "", frameBlend ?? "", String(noAudio),
        ]
        // fields added later only when set, so outputs made before they existed keep their key
        if let audioCodec { fields.append(audioCodec) }
        if let curve { fields.append("curve=" + curve) }
        if !audioStreams.isEmpty { fields.append("audioStreams=" + audioStreams.map(String.init).joined(separator: ",")) }
        if realTime { fields.append("realTime") }
        if let flowQuality { fields.append("flowQuality=" + flowQuality) }
        let delivery: [(String, String?)] = [
            ("size", self.size), ("pixFmt", pixFmt), ("bitrate", bitrate), ("gop", gop.map { String($0) }), ("start", start), ("end", end),
        ]
        for (k, v) in delivery { if let v { fields.append("\(k)=\(v)") } }
        if let rotation, rotation != ExportRequest.Rotation.auto.rawValue { fields.append("rotation=" + rotation) }  // auto = unset
        if burnIn { fields.append("burnIn") }
        let burnIns: [(String, String?)] = [("burnInFields", burnInFields), ("burnInCorner", burnInCorner), ("burnInSize", burnInSize.map { String($0) })]
        for (k, v) in burnIns { if let v { fields.append("\(k)=\(v)") } }
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

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public func contains(jobNumber k: Int) -> Bool { k % count == index - 1 }
}
