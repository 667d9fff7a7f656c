/// Why an operation failed, as its caller would act on it. The library says no more than this
/// about a failure's class; the command line maps each kind to its exit status in one place
/// (`CLIFailure`, the sysexits table in Docs/CLI.md).
public enum FailureKind: Sendable, Hashable, CaseIterable {
    /// The request is wrong: a value out of range, a malformed segment, options that contradict.
    case badRequest
    /// The input exists but is not usable media, or not a valid listing or manifest.
    case badData
    /// The input file or device does not exist or cannot be opened.
    case missing
    /// A device exists but cannot be used now or does not do what is asked (busy, not a capture device).
    case unavailable
    /// The request does not fit the state its object is in now (a rig already armed, a job already
    /// finished, a shot still being exported): the same request can succeed later.
    case conflict
    /// A bug in slomo, or a library call that should not fail.
    case bug
    /// The output cannot be created: it exists and may not be replaced, its directory is missing or unwritable.
    case cannotCreate
    /// Reading or writing failed midway: disk full, I/O error.
    case ioFailed
    /// Permission denied on a device or file.
    case notPermitted
    /// Stopped by a signal before finishing; nothing left under the final name.
    case interrupted
}

/// An error that its caller can show as one line and act on by its `kind`.
///
/// The line says who (file or device), what (operation), why (cause), e.g.
/// `/dev/video0: VIDIOC_S_FMT MJPG 1280x720 failed: Device or resource busy (EBUSY)`. It is a
/// `Wording`: the options it names stay typed `Setting`s until a front end names them its way
/// (the command line as flags, a manifest as fields). `description` names them as request fields.
public protocol SlomoFailure: Error, CustomStringConvertible {
    var kind: FailureKind { get }
    var wording: Wording { get }
    /// The system's error number behind the failure (ENOSPC, EIO…), when a system call or a
    /// library passing one on failed: what a caller tests, never the text.
    var systemErrno: Int32? { get }
}

extension SlomoFailure {
    public var description: String { wording.description }
    public var systemErrno: Int32? { nil }

    /// The errno in a C library's failure code that passes system errors on as -errno (FFmpeg's
    /// AVERROR(e), ALSA); nil for the library's own codes, which lie far below -4095.
    public static func errnoPassedOn(_ code: Int32) -> Int32? { code < 0 && code > -4096 ? -code : nil }
}

/// An option of a request, by the name of its field in the request (`fps`, `ringMemory`,
/// `preTrigger`). How a user wrote it is the front end's business: the command line renders
/// `ringMemory` as `--ring-memory`; a manifest keeps the field name.
public struct Setting: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }
}

extension Setting {
    // Every setting an error or warning of the library names; `CLIFailure`'s tests check that
    // each one is a flag of the command line.
    public static let audioCodec = Setting("audioCodec"), codec = Setting("codec"), control = Setting("control")
    public static let curve = Setting("curve"), exposure = Setting("exposure"), focus = Setting("focus")
    public static let format = Setting("format"), fps = Setting("fps"), frames = Setting("frames")
    public static let gain = Setting("gain"), minSize = Setting("minSize"), outDir = Setting("outDir")
    public static let overwrite = Setting("overwrite"), pitch = Setting("pitch"), postTrigger = Setting("postTrigger")
    public static let preTrigger = Setting("preTrigger"), prefer = Setting("prefer"), preview = Setting("preview")
    public static let ramps = Setting("ramps"), rate = Setting("rate"), realTime = Setting("realTime")
    public static let crf = Setting("crf"), preset = Setting("preset"), audioStreams = Setting("audioStreams")
    public static let pixFmt = Setting("pixFmt"), bitrate = Setting("bitrate"), gop = Setting("gop")
    public static let start = Setting("start"), end = Setting("end")
    public static let referenceInterval = Setting("referenceInterval"), ringMemory = Setting("ringMemory")
    public static let segments = Setting("segments"), shard = Setting("shard"), shutter = Setting("shutter")
    public static let shutterAngle = Setting("shutterAngle"), size = Setting("size"), source = Setting("source")
    public static let trigger = Setting("trigger"), triggerRegion = Setting("triggerRegion")
    public static let whiteBalance = Setting("whiteBalance"), zoom = Setting("zoom")
    public static let duration = Setting("duration"), buffers = Setting("buffers"), ringFrames = Setting("ringFrames")
    public static let bytesPerLine = Setting("bytesPerLine"), previewFps = Setting("previewFps"), previewWidth = Setting("previewWidth")
    public static let audioRate = Setting("audioRate"), audioChannels = Setting("audioChannels")
    public static let jobs = Setting("jobs"), threads = Setting("threads"), shots = Setting("shots"), lead = Setting("lead")
    public static let command = Setting("command"), progress = Setting("progress"), relativeTo = Setting("relativeTo")
    public static let triggerKey = Setting("triggerKey"), at = Setting("at"), audio = Setting("audio")
    public static let triggerHoldoff = Setting("triggerHoldoff"), triggerDebounce = Setting("triggerDebounce")
    public static let triggerOut = Setting("triggerOut"), triggerAudio = Setting("triggerAudio")
    public static let frameBlend = Setting("frameBlend"), flowQuality = Setting("flowQuality")
    public static let offset = Setting("offset"), cameraTrigger = Setting("cameraTrigger")
    public static let burnInFields = Setting("burnInFields"), burnInCorner = Setting("burnInCorner"), burnInSize = Setting("burnInSize")
    public static let save = Setting("save"), takes = Setting("takes"), overwriteUnsaved = Setting("overwriteUnsaved")

    public static let all: [Setting] = [
        .audioCodec, .audioStreams, .bitrate, .codec, .control, .crf, .gop, .pixFmt, .preset, .start, .end, .curve, .exposure, .focus, .format, .fps, .frames,
        .gain, .minSize,
        .outDir, .overwrite, .pitch, .postTrigger, .preTrigger, .prefer, .preview, .ramps, .rate, .realTime,
        .referenceInterval, .ringMemory, .segments, .shard, .shutter, .shutterAngle, .size, .source,
        .trigger, .triggerRegion, .whiteBalance, .zoom,
        .duration, .buffers, .ringFrames, .bytesPerLine, .previewFps, .previewWidth, .audioRate, .audioChannels,
        .jobs, .threads, .shots, .lead, .command, .progress, .relativeTo, .triggerKey, .at, .audio, .triggerHoldoff, .triggerDebounce,
        .triggerOut, .triggerAudio, .frameBlend, .flowQuality, .offset, .cameraTrigger, .burnInFields, .burnInCorner, .burnInSize,
        .save, .takes, .overwriteUnsaved,
    ]
}

/// Text with the settings it names kept typed, written as a string literal:
/// `"\(Setting.ringMemory) '\(text)': expected a size such as 512M"`. An interpolated `Wording`
/// or `SlomoFailure` keeps its settings too, so an error wrapped in another still names its options
/// the front end's way.
public struct Wording: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    public enum Part: Sendable, Hashable {
        case text(String)
        case setting(Setting)
    }
    public private(set) var parts: [Part]

    public init(stringLiteral value: String) { self.init(verbatim: value) }
    public init(stringInterpolation: StringInterpolation) { parts = stringInterpolation.parts }
    /// Plain text, settings and all (a wrapper's or another library's message).
    public init(verbatim text: String) { parts = text.isEmpty ? [] : [.text(text)] }

    /// Adjacent texts are one part, so that equal text is equal whichever way it was built.
    static func append(_ part: Part, to parts: inout [Part]) {
        switch (parts.last, part) {
        case (_, .text("")): return
        case (.text(let a)?, .text(let b)): parts[parts.count - 1] = .text(a + b)
        default: parts.append(part)
        }
    }

    /// The text with each setting named by `name`.
    public func rendered(naming name: (Setting) -> String) -> String {
        parts.map { part in
            switch part {
            case .text(let t): return t
            case .setting(let s): return name(s)
            }
        }.joined()
    }

    public static func + (a: Wording, b: Wording) -> Wording {
        var w = a
        for p in b.parts { append(p, to: &w.parts) }
        return w
    }

    /// The text without `prefix` at its start (an inner error's file name, when the outer one names it first).
    public func dropping(prefix: String) -> Wording {
        guard case .text(let t)? = parts.first, t.hasPrefix(prefix) else { return self }
        var w = self
        w.parts.removeFirst()
        if t.count > prefix.count { w.parts.insert(.text(String(t.dropFirst(prefix.count))), at: 0) }
        return w
    }

    /// Settings named by their request field.
    public var description: String { rendered(naming: \.name) }

    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) { Wording.append(.text(literal), to: &parts) }
        /// A `Setting`, a `Wording` or a `SlomoFailure` keeps its settings; anything else is its text.
        public mutating func appendInterpolation<T>(_ value: T) {
            switch value {
            case let s as Setting: Wording.append(.setting(s), to: &parts)
            case let w as Wording: for p in w.parts { Wording.append(p, to: &parts) }
            case let f as any SlomoFailure: for p in f.wording.parts { Wording.append(p, to: &parts) }
            default: Wording.append(.text(String(describing: value)), to: &parts)
            }
        }
    }
}

/// A value given for a setting and refused: `--fps '0': must be > 0` on the command line,
/// `fps '0': must be > 0` in a manifest.
public struct SettingError: SlomoFailure, Sendable, Hashable {
    public var setting: Setting
    public var value: String
    public var reason: Wording
    /// Whether the value is shown in quotes (`'x'`): yes for what the user typed; no where the
    /// value is a parsed one (`--fps 2000: must be in …`).
    public var quoted: Bool
    public var kind: FailureKind

    public init(_ setting: Setting, _ value: String, _ reason: Wording, quoted: Bool = true, kind: FailureKind = .badRequest) {
        self.setting = setting
        self.value = value
        self.reason = reason
        self.quoted = quoted
        self.kind = kind
    }

    public var wording: Wording { quoted ? "\(setting) '\(value)': \(reason)" : "\(setting) \(value): \(reason)" }
}

/// A speed map that cannot be made from what the user wrote is a bad request.
extension RetimeError: SlomoFailure {
    public var kind: FailureKind { .badRequest }
}
