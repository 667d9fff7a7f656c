import SlomoCore

/// A media input that opens but cannot serve the command: no video, no frames, damaged headers
/// or timestamps. Always bad data: the same file fails again.
public enum MediaError: SlomoFailure, Sendable, Equatable {
    /// `operation`, when given, names who looked (`plan`, `probe --frames`).
    case noVideoStream(path: String, operation: Wording?)
    /// Sound and no picture: `stretch` is the command for it.
    case soundOnly(path: String)
    case noDuration(path: String, operation: String)
    /// The video stream holds no packets.
    case noFrames(path: String)
    /// Every video packet failed to decode.
    case noDecodableFrames(path: String, operation: String)
    /// Opening found damage no command can work around (`open: the video stream's codec is unknown …`).
    case damaged(path: String, Wording)
    /// The file's sensor-pattern tag does not match its pixels.
    case sensorMismatch(path: String, pattern: String, pixelFormat: String)

    public var kind: FailureKind { .badData }

    public var wording: Wording {
        switch self {
        case .noVideoStream(let path, let op): return op.map { "\(path): \($0): the file has no video stream" } ?? "\(path): no video stream"
        case .soundOnly(let path):
            return "\(path): no video stream, only sound: stretch time-stretches sound alone (slomo stretch \(path) -o OUT --rate R)"
        case .noDuration(let path, let op): return "\(path): \(op): the video has no duration"
        case .noFrames(let path): return "\(path): the video stream has no frames"
        case .noDecodableFrames(let path, let op): return "\(path): \(op): no decodable video frames"
        case .damaged(let path, let what): return "\(path): \(what)"
        case .sensorMismatch(let path, let pattern, let pixels):
            return "\(path): export: the stream says it holds \(pattern) sensor samples but its pixels are \(pixels)"
        }
    }
}

/// An export that cannot be made as asked.
public enum ExportError: SlomoFailure, Sendable, Equatable {
    /// `realTime` asked of a file without a capture-rate tag (`keys`: the tags looked for).
    case noCaptureRate(path: String, keys: [String])
    /// The audio codec asked for cannot go in this output.
    case audioCodecUnusable(output: String, codec: String, why: String)
    /// A filter gave nothing back (a slomo bug).
    case rotationFailed(path: String, frame: Int64, pixelFormat: String)
    /// `--start`/`--end` where a packet copy (retime) cannot cut exactly (`CopyWindow`).
    /// `nearest`: the closest place the copy can cut instead (a frame, or the end), when there is one.
    case copyCannotCut(path: String, setting: Setting, value: String, why: Wording, nearest: TimePoint? = nil)
    /// Stopped through `ExportRequest.stop` (a server's job cancelled, the server interrupted).
    case cancelled(output: String)

    public var kind: FailureKind {
        switch self {
        case .rotationFailed: return .bug
        case .cancelled: return .interrupted
        default: return .badRequest
        }
    }

    public var wording: Wording {
        switch self {
        case .noCaptureRate(let path, let keys):
            return "\(path): \(Setting.realTime): the file carries no capture rate (\(keys.joined(separator: ", "))); give \(Setting.rate) relative to the file"
        case .audioCodecUnusable(let output, let codec, let why): return "\(output): \(Setting.audioCodec) \(codec): \(why)"
        case .rotationFailed(let path, let n, let fmt): return "\(path): export: rotating frame \(n) gave no \(fmt) frame"
        case .copyCannotCut(let path, let setting, let value, let why, _): return "\(path): retime \(setting) '\(value)': \(why)"
        case .cancelled(let output): return "\(output): export cancelled (nothing written under that name)"
        }
    }

    /// Refuses an output frame rate outside (0, 1000]; export also needs a denominator up to 10^6
    /// (its time base), a plan does not.
    public static func checkFrameRate(_ fps: Rational, maxDenominator: Int64 = .max) throws(SettingError) {
        guard fps.isPositive, fps <= Rational(1000), fps.denominator <= maxDenominator else {
            throw SettingError(.fps, "\(fps)", "output frame rate must be in (0, 1000]", quoted: false)
        }
    }
}
