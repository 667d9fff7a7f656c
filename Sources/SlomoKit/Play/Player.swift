import Foundation
import SlomoCore
import SlomoFFmpeg

/// `slomo play`: paced, real-time playback at a rate for a headless machine. Video packets are
/// copied (no re-encode) with timestamps on a live output timeline; audio goes through the
/// time-pitch engine and is sent as 32-bit float PCM. Output: a stream to stdout (`-`, NUT by
/// default), a file, or any URL FFmpeg writes (udp://127.0.0.1:1234?pkt_size=1316 …).
public struct PlayRequest: Sendable {
    public var input: String
    public var output: String
    public var format: String?
    public var rate = Rational.one
    /// `auto`: zero-latency for rates in 1/2…2 (it reacts fastest), spectral outside; or an algorithm name.
    public var pitch = "auto"
    public var audio = true
    public var start = Rational.zero
    /// Packets are written this far ahead of the wall clock (seconds). A command reaches the
    /// video after at most this (plus the B-frame reorder of a copied stream) and the audio after
    /// at most this plus one 5 ms PCM packet.
    public var lead = Rational(1, 100)
    /// Replace an existing output file (never the input).
    public var overwrite = false
    public init(input: String, output: String) {
        self.input = input
        self.output = output
    }

    /// The ranges playback takes: a lead of 1…1000 ms.
    public func validate() throws(SettingError) {
        guard lead >= Rational(1, 1000), lead <= Rational.one else {
            throw SettingError(.lead, String((lead * Rational(1000)).rounded(.nearest)), "expected 1...1000 (milliseconds)", quoted: false)
        }
    }
}

/// What happened during playback, one JSON line each on stderr.
public struct PlayEvent: Codable, Sendable {
    public var event: String
    public var rate: Rational?
    public var pitch: String?
    public var position: Double?
    /// For rate/pitch/seek: wall-clock milliseconds from the command to the first packet written with it.
    public var latencyMs: Double?
    /// For rate/pitch/seek: the command's moment on the output timeline (seconds), and where the
    /// change starts in the stream's video and audio (seconds, the stream's own timestamps; audio:
    /// the first sample from the new source, which fades in over 5 ms).
    public var atSeconds: Double?
    public var videoFromSeconds: Double?
    public var audioFromSeconds: Double?
    /// The same as delays past `atSeconds`, in milliseconds (0 when playback had fallen behind):
    /// what was already written ahead of the wall clock cannot be taken back.
    public var videoEffectMs: Double?
    public var audioEffectMs: Double?
    public var message: String?
    public init(event: String) { self.event = event }
}

public enum PlayCommand: Equatable, Sendable {
    case rate(Rational), pitch(String), seek(Rational), pause, resume, quit

    /// Parses `rate 0.25`, `pitch time-domain`, `seek 12.5`, `pause`, `resume`/`play`, `quit`.
    public init(parsing line: String) throws(PlayError) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let verb = words.first else { throw PlayError.emptyCommand }
        func value() throws(PlayError) -> Rational {
            guard words.count == 2 else { throw PlayError.badCommand(line, "expected '\(verb) VALUE'") }
            do { return try Rational(parsing: words[1]) } catch { throw PlayError.badCommand(line, "\(error)") }
        }
        switch verb {
        case "rate":
            let r = try value()
            guard r.isPositive, r <= Rational(32), r >= Rational(1, 32) else { throw PlayError.badCommand(line, "rate must be in 1/32...32") }
            self = .rate(r)
        case "pitch":
            guard words.count == 2 else { throw PlayError.badCommand(line, "expected 'pitch ALGORITHM'") }
            self = .pitch(String(words[1]))
        case "seek":
            let t = try value()
            guard !t.isNegative else { throw PlayError.badCommand(line, "position must be >= 0") }
            self = .seek(t)
        case "pause": self = .pause
        case "resume", "play": self = .resume
        case "quit", "q": self = .quit
        default: throw PlayError.badCommand(line, "unknown command (rate, pitch, seek, pause, resume, quit)")
        }
    }
}

/// Thread-safe queue of commands fed by a reader thread.
public final class PlayCommandQueue: @unchecked Sendable {
    // Safe: `items` is only touched under `lock`.
    private let lock = NSLock()
    private var items: [(PlayCommand, DispatchTime)] = []
    public init() {}
    public func push(_ c: PlayCommand) {
        lock.lock()
        items.append((c, .now()))
        lock.unlock()
    }
    func pop() -> (PlayCommand, DispatchTime)? {
        lock.lock()
        defer { lock.unlock() }
        return items.isEmpty ? nil : items.removeFirst()
    }
}

public final class Player {
    /// `auto` made concrete for a rate: zero-latency inside its 1/2…2, spectral outside.
    static func algorithm(_ pitch: String, rate: Rational) -> String {
        guard pitch == "auto" else { return pitch }
        return TimePitchAlgorithm.zeroLatency.range.contains(rate) ? TimePitchAlgorithm.zeroLatency.rawValue : TimePitchAlgorithm.spectral.rawValue
    }

    let r: PlayRequest
    let events: (PlayEvent) -> Void
    public init(_ request: PlayRequest, events: @escaping (PlayEvent) -> Void) {
        r = request
        self.events = events
    }

    /// Plays until the end of the input or `quit`. Returns the output duration in seconds.
    /// Stages: the input's video packets (`readPacket`), the live timeline that places each one
    /// (`PlayTimeline`, changed by commands), the wall clock that paces them (`PlayClock`), and the
    /// output (`PlaySession`: the muxer, the copied video, the time-pitch audio).
    @discardableResult
    public func run(commands: PlayCommandQueue) throws -> Rational {
        try MediaInput.checkInput(r.input)
        let session = try PlaySession(r, events: events)
        let packet = Packet()
        var running = true
        while running, try session.demuxer.readPacket(into: packet) {
            running = try session.play(packet, commands: commands)
        }
        if running { try session.playOutAudio(commands: commands) }
        return try session.finish()
    }
}

/// A playback command refused (a line on play's control input).
public enum PlayError: SlomoFailure, Sendable, Equatable {
    case emptyCommand
    /// The line as typed, and why.
    case badCommand(String, Wording)
    /// Only pause, resume and quit are taken once the picture has ended.
    case inputEnded
    /// Play's audio is 32-bit float PCM (sample-exact, instant rate changes), which this
    /// container cannot hold; the containers that can.
    case pcmNotHeld(output: String, container: String, holders: [String])

    public var kind: FailureKind { .badRequest }

    public var wording: Wording {
        switch self {
        case .emptyCommand: return "empty command"
        case .badCommand(let line, let why): return "'\(line)': \(why)"
        case .inputEnded: return "the input has ended; only its audio is still playing"
        case .pcmNotHeld(let output, let container, let holders):
            return
                "\(output): play writes its sound as 32-bit float PCM, which \(container) cannot hold: write \(holders.joined(separator: ", ")) (or leave the sound out with --no-audio)"
        }
    }
}
