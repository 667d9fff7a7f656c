import Foundation
import SlomoCore
import SlomoSystem
import Synchronization

/// When a capture stops, and how much memory its ring may take.
public struct CaptureLimits: Sendable {
    /// Stop before the first frame at or after this much time from the first frame.
    public var duration: Rational?
    public var frames: Int64?
    /// Ring slots (frames); nil: sized from the rate (continuous: 2 s or 64 MiB within 1 GiB;
    /// triggered: the shot plus a quarter second of headroom).
    public var ringFrames: Int?
    /// Ring size in bytes (instead of `ringFrames`).
    public var ringMemory: Int64?
    /// Lock the ring in RAM (`mlock`).
    public var lockMemory = true
    /// Run the capture thread at real-time priority (SCHED_FIFO, else a raised nice value).
    public var realtime = true
    public init(duration: Rational? = nil, frames: Int64? = nil) {
        self.duration = duration
        self.frames = frames
    }

    /// The ranges a capture's limits take, checked before a camera opens by whoever asks for the
    /// capture (the command line, and next the server), in the same words.
    public func validate() throws(SettingError) {
        if let d = duration, !(d.isPositive && d <= Rational(86_400)) {
            throw SettingError(.duration, Seconds(d).description, "must be in (0, 86400] s", quoted: false)
        }
        if let n = frames, n < 1 { throw SettingError(.frames, String(n), "must be at least 1", quoted: false) }
        if let n = ringFrames, !(4...1_000_000).contains(n) { throw SettingError(.ringFrames, String(n), "must be in 4...1000000", quoted: false) }
    }
}

/// What fires a pre/post-trigger shot.
public enum TriggerKind: Sendable, Equatable {
    /// A line `trigger` on standard input (`quit` ends the capture).
    case stdin
    /// SIGUSR1.
    case signal
    /// The image trigger: mean absolute brightness difference to the previous frame above this
    /// threshold (8-bit units, 0 < threshold ≤ 255).
    case motion(threshold: Rational)
    /// A signed message on a UDP port or multicast group (`TriggerMessage`), placed at the instant it names.
    case network(IPv4Endpoint)
    /// A sound on the capture's sound input louder than this many dBFS (after a 200 Hz high-pass),
    /// placed at its first sample's instant.
    case sound(levelDBFS: Rational)
    /// An edge on a GPIO line, placed at the kernel's timestamp of it.
    case gpio(GPIOTriggerLine)
    /// `POST /api/v1/trigger` to `slomo serve` (or its page's Trigger button), placed at the
    /// instant the request was read.
    case api

    public var name: String {
        switch self {
        case .stdin: "stdin"
        case .signal: "signal"
        case .motion: "motion"
        case .network: "udp"
        case .sound: "sound"
        case .gpio: "gpio"
        case .api: "api"
        }
    }
}

/// Pre/post-trigger recording: the ring holds the last `pre` seconds; a trigger saves them and the
/// next `post` seconds as one shot.
public struct TriggerSettings: Sendable {
    public var kind: TriggerKind
    public var pre: Rational
    public var post: Rational
    /// Shots before the capture ends (0: until stopped).
    public var shots: Int
    /// The image trigger's region (nil: the whole frame).
    public var region: PixelRegion?
    /// The first shot's number (`--continue-shots`: after those already in the folder).
    public var firstShot = 1
    /// `--save`, `--takes`, `--overwrite-unsaved`: whether shots are held in RAM until saved.
    public var takes = TakeSettings()
    /// The network trigger's shared key (`--trigger-key FILE`, `TriggerKey.load`).
    public var key: [UInt8]?
    /// Sound and network triggers: no second event this soon after one (echoes, a sound's own tail).
    public var holdoff = TriggerSettings.defaultHoldoff
    public static let defaultHoldoff = Rational(1, 2)
    /// GPIO triggers: the kernel's debounce period (0: none).
    public var debounce = Rational.zero
    /// `--trigger-out`: a GPIO line raised when a shot fires.
    public var output: TriggerOutputLine?
    /// `--trigger-audio`: the sound trigger's own microphone (nil: it listens to the recorded `--audio`).
    public var audio: AudioSettings?
    /// The sound trigger's default level, dBFS.
    public static let defaultSoundLevel = Rational(-20)
    /// What `--pre-trigger` and `--post-trigger` are when neither is given.
    public static let defaultWindow = Rational.one
    public init(kind: TriggerKind, pre: Rational, post: Rational, shots: Int = 1) {
        self.kind = kind
        self.pre = pre
        self.post = post
        self.shots = shots
    }

    /// The ranges a trigger's settings take, and (given the capture's sound input) whether a sound
    /// trigger has something to listen to, in the same words for every front end.
    public func validate(audio: AudioSettings?) throws(SettingError) {
        try validate()
        if case .sound = kind, audio == nil, self.audio == nil {
            throw SettingError(
                .trigger, "sound", "listens to the capture's sound input: give \(Setting.audio) DEVICE or \(Setting.triggerAudio) DEVICE", quoted: false)
        }
        if let mic = self.audio, let recorded = audio, mic.device == recorded.device {
            throw SettingError(
                .triggerAudio, mic.device, "is the recorded \(Setting.audio) device already: the trigger listens to it without \(Setting.triggerAudio)")
        }
    }

    /// The ranges a trigger's settings take, in the same words for every front end.
    public func validate() throws(SettingError) {
        guard shots >= 0 else { throw SettingError(.shots, String(shots), "must be 0 (until stopped) or more", quoted: false) }
        if case .sound(let level) = kind, !(level >= Rational(-90) && level <= .zero) {
            throw SettingError(.trigger, "sound=\(Seconds(level))", "the level is in dBFS, -90...0 (default -20)", quoted: false)
        }
        guard debounce >= .zero, debounce <= Rational(1) else {
            throw SettingError(.triggerDebounce, Seconds(debounce).description, "must be in 0...1 s", quoted: false)
        }
        guard holdoff >= .zero, holdoff <= Rational(60) else {
            throw SettingError(.triggerHoldoff, Seconds(holdoff).description, "must be in 0...60 s", quoted: false)
        }
        if let mic = audio {
            guard case .sound = kind else { throw SettingError(.triggerAudio, mic.device, "is the microphone of \(Setting.trigger) sound") }
            try mic.validate()
        }
        if case .network(let e) = kind, key == nil {
            throw SettingError(.trigger, "udp://\(e)", "a network trigger needs \(Setting.triggerKey) FILE (the key its senders sign with)")
        }
    }

    /// The first shot number whose file does not exist yet, after the highest one that does (up
    /// to 100,000 shots); 1 for a template without a shot number.
    public static func nextFreeShot(_ template: String) -> Int {
        guard hasShotNumber(template) else { return 1 }
        let fm = FileManager.default
        var n = 1, last = 0
        while n <= 100_000 {
            if fm.fileExists(atPath: path(template, shot: n)) {
                last = n
                n += 1
                continue
            }
            // a gap: look a little further for later shots (one deleted in between)
            if let later = (n + 1...n + 64).first(where: { fm.fileExists(atPath: path(template, shot: $0)) }) {
                n = later
                continue
            }
            break
        }
        return last + 1
    }

    /// Shot `n`'s file: `%d`, `%0Nd` in `template` become the shot number.
    public static func path(_ template: String, shot: Int) -> String {
        guard let r = template.range(of: shotNumber, options: .regularExpression) else { return template }
        let spec = template[r]
        let width = Int(spec.dropFirst().dropLast()) ?? 0
        var n = String(shot)
        if spec.hasPrefix("%0"), n.count < width { n = String(repeating: "0", count: width - n.count) + n }
        return template.replacingCharacters(in: r, with: n)
    }

    public static func hasShotNumber(_ template: String) -> Bool { template.range(of: shotNumber, options: .regularExpression) != nil }

    /// `%d` or `%0Nd` in an output name.
    static let shotNumber = #"%0?[0-9]*d"#
}
