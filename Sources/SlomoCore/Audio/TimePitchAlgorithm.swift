/// The time-pitch algorithms (AVFoundation's `AVAudioTimePitchAlgorithm` table is the contract),
/// their rate ranges, and zero-latency's snapping table. Pure: no C, no Foundation.
///
/// | algorithm      | rates                                   | pitch            | engine                          |
/// |----------------|-----------------------------------------|------------------|---------------------------------|
/// | `zeroLatency`  | snapped to 1/2, 2/3, 4/5, 1, 5/4, 3/2, 2 | kept             | slomo's short-grain WSOLA       |
/// | `timeDomain`   | 1/2 … 2                                  | kept             | SoundTouch (WSOLA)              |
/// | `spectral`     | 1/32 … 32                                | kept             | Rubber Band R3 ("finer")        |
/// | `varispeed`    | 1/32 … 32                                | follows the rate | libswresample + soxr            |
/// | `mute`         | 1/32 … 32                                | —                | silence of the exact length     |
public enum TimePitchAlgorithm: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
    case zeroLatency = "zero-latency"
    case timeDomain = "time-domain"
    case spectral
    case varispeed
    case mute

    /// The rates zero-latency plays (AVAudioTimePitchAlgorithmLowQualityZeroLatency's set), ascending.
    public static let snappingTable: [Rational] = [
        Rational(1, 2), Rational(2, 3), Rational(4, 5), .one, Rational(5, 4), Rational(3, 2), Rational(2),
    ]

    /// The rates this algorithm accepts (before snapping).
    public var range: ClosedRange<Rational> {
        switch self {
        case .zeroLatency, .timeDomain: return Rational(1, 2)...Rational(2)
        case .spectral, .varispeed, .mute: return Rational(1, 32)...Rational(32)
        }
    }

    /// Whether the output keeps the input's pitch.
    public var keepsPitch: Bool { self != .varispeed }

    public var description: String { rawValue }

    /// Parses `--pitch` values; the error lists the valid names.
    public init(parsing text: String) throws(AudioFailure) {
        guard let a = TimePitchAlgorithm(rawValue: text) else {
            throw AudioFailure(
                .invalidAlgorithm, subject: "\(Setting.pitch) '\(text)'" as Wording, operation: "choose algorithm",
                cause: "expected one of \(TimePitchAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = a
    }

    /// The nearest entry of `snappingTable` to `rate` (exact rational distance; a tie goes to the
    /// entry nearer to 1, i.e. the gentler change).
    public static func snap(_ rate: Rational) -> Rational {
        var best = snappingTable[0]
        for candidate in snappingTable.dropFirst() {
            let d = (candidate - rate).magnitude, b = (best - rate).magnitude
            if d < b || (d == b && (candidate - .one).magnitude < (best - .one).magnitude) { best = candidate }
        }
        return best
    }

    /// The rate this algorithm really plays for a requested `rate` (validated first).
    public func playedRate(for rate: Rational) throws(AudioFailure) -> Rational {
        try validate(rate)
        return self == .zeroLatency ? TimePitchAlgorithm.snap(rate) : rate
    }

    /// The map this algorithm really plays for `map`: `map` itself, or for zero-latency the same
    /// source ranges with target durations from the snapped rates. Export and retime move the video
    /// through it too, so that zero-latency audio and video stay in sync.
    /// Its engine can change rate while it plays (Rubber Band's time ratio, SoundTouch's tempo), so
    /// a curve is one continuous run; the others play a curve piece by piece, crossfaded.
    public var canGlide: Bool { self == .spectral || self == .timeDomain }

    public func playedMap(_ map: RetimeMap) throws(AudioFailure) -> RetimeMap {
        var played: [TimeMapping] = []
        var t = map.target.start
        for m in map.mappings {
            let r = try playedRate(for: m.rate)
            let d = r == m.rate ? m.target.duration : m.source.duration / r
            played.append(TimeMapping(source: m.source, target: TimeRange(start: t, duration: d)))
            t = t + d
        }
        do {
            var result = try RetimeMap(mappings: played)
            // no rate snapped: the same map, glides kept; snapped (zero-latency): neighbours that
            // snapped to the same rate are one piece (a curve becomes a few steps)
            if played == map.mappings {
                result.glides = map.glides
                return result
            }
            return result.coalesced()
        } catch {
            throw AudioFailure(.invalidRate, subject: "retime map", operation: "plan", cause: "\(error)")
        }
    }

    /// Checks `rate` against this algorithm's range. The message names the range and the
    /// algorithms that do cover the rate, e.g.
    /// `rate 1/8: outside time-domain's range 1/2…2; spectral, varispeed or mute cover it`.
    public func validate(_ rate: Rational) throws(AudioFailure) {
        guard rate.isPositive else {
            throw AudioFailure(
                .invalidRate, subject: "rate \(rate)", operation: "\(rawValue) time-pitch",
                cause: "a rate must be positive and finite (0.5 = half speed)")
        }
        guard !range.contains(rate) else { return }
        let covering = TimePitchAlgorithm.allCases.filter { $0.range.contains(rate) }.map(\.rawValue)
        let hint: String
        switch covering.count {
        case 0: hint = "no algorithm covers it (slomo's rates are 1/32…32)"
        case 1: hint = "\(covering[0]) covers it"
        default: hint = covering.dropLast().joined(separator: ", ") + " or \(covering.last!) cover it"
        }
        throw AudioFailure(
            .rateOutOfRange, subject: "rate \(rate)", operation: "\(rawValue) time-pitch",
            cause: "outside \(rawValue)'s range \(range.lowerBound)…\(range.upperBound); \(hint)")
    }

    /// Parses a user-typed rate (`0.5`, `1/8`) with the retime syntax's rules (`RetimeSpec.parseRate`:
    /// NaN, infinities, zero and negatives refused) as an `AudioFailure` naming the text.
    public static func parseRate(_ text: String) throws(AudioFailure) -> Rational {
        do { return try RetimeSpec.parseRate(Substring(text), context: "rate '\(text)'") } catch {
            var cause = error.wording
            if case .invalidRate(_, let reason) = error { cause = reason }  // the subject already names the rate
            throw AudioFailure(.invalidRate, subject: "rate '\(text)'", operation: "parse rate", cause: cause)
        }
    }
}

/// A time-pitch failure: one line naming who (file or value), what (operation) and why.
/// Rate and range problems are bad requests, unusable audio bad data.
public struct AudioFailure: SlomoFailure, Equatable {
    public enum Code: String, Sendable {
        case invalidRate, rateOutOfRange, invalidAlgorithm
        case noAudioStream, emptyAudio, unsupportedFormat, decodeFailed
        /// A stream number the user gave that names no audio stream of the file.
        case noSuchStream
        case engineFailed
    }
    public var code: Code
    /// The file, device or value concerned.
    public var subject: Wording
    public var operation: String
    public var cause: Wording

    /// This failure as one of processing `path` with `algorithm` (its subject, e.g. a rate, moves into the cause).
    public func concerning(_ path: String, algorithm: TimePitchAlgorithm) -> AudioFailure {
        AudioFailure(code, subject: path, operation: "\(algorithm) audio", cause: "\(subject): \(cause)")
    }

    public init(_ code: Code, subject: Wording, operation: String, cause: Wording) {
        self.code = code
        self.subject = subject
        self.operation = operation
        self.cause = cause
    }

    public init(_ code: Code, subject: String, operation: String, cause: Wording) {
        self.init(code, subject: Wording(verbatim: subject), operation: operation, cause: cause)
    }

    public var wording: Wording { "\(subject): \(operation): \(cause)" }

    public var kind: FailureKind {
        switch code {
        case .invalidRate, .rateOutOfRange, .invalidAlgorithm, .noSuchStream: return .badRequest
        case .noAudioStream, .emptyAudio, .unsupportedFormat, .decodeFailed: return .badData
        case .engineFailed: return .bug
        }
    }
}
