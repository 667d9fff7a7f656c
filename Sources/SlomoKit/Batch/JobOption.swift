import Foundation
import SlomoCore

/// The options a media job takes, declared once: the manifest field, the command-line flag, the
/// help text and the commands that take it. `slomo batch`'s flags and help, the manifest's field
/// list and the per-command refusals all derive from this table; export, retime and stretch state
/// their flags with the same help (`JobOptionTests` compares each `--help` with it). A job's values
/// reach the use cases through `BatchJob`'s requests (`JobRun`), the same code for a command line
/// and for a batch child.
public enum JobOption: String, CaseIterable, Sendable {
    case rate, segments, ramps, curve, pitch, fps, codec, preset, crf, frameBlend, flowQuality, noAudio, audioCodec, audioStreams, realTime, rotation
    case size, pixFmt, bitrate, gop, start, end, burnIn, burnInFields, burnInCorner, burnInSize

    /// The manifest field (`segments` also reads `segment`, `ramps` `ramp`).
    public var field: String { rawValue }

    /// What kind of value the option holds.
    public enum Kind: Sendable {
        /// A string (`rate`, `codec`, `start`…); a manifest may give a number for it.
        case text
        /// Strings, repeatable (`segments`): a manifest gives one or a list.
        case texts
        /// A whole number (`crf`, `gop`).
        case number
        /// Whole numbers, repeatable (`audioStreams`).
        case numbers
        /// On or off (`noAudio`, `realTime`).
        case flag

        /// The value of an option left out: nil for a text or number, empty lists, false.
        var defaultValue: Value? {
            switch self {
            case .text, .number: return nil
            case .texts: return .texts([])
            case .numbers: return .numbers([])
            case .flag: return .flag(false)
            }
        }
    }

    /// An option's value, of its `kind`.
    public enum Value: Sendable, Equatable {
        case text(String), texts([String]), number(Int), numbers([Int]), flag(Bool)
        /// Empty lists and false: what a job that does not set the option holds.
        var isDefault: Bool {
            switch self {
            case .texts(let v): return v.isEmpty
            case .numbers(let v): return v.isEmpty
            case .flag(let v): return !v
            case .text, .number: return false
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .segments, .ramps: return .texts
        case .crf, .gop, .burnInSize: return .number
        case .audioStreams: return .numbers
        case .noAudio, .realTime, .burnIn: return .flag
        default: return .text
        }
    }

    /// The other name a manifest may give the field (its singular, as the flag reads).
    public var alias: String? {
        switch self {
        case .segments: return "segment"
        case .ramps: return "ramp"
        case .audioStreams: return "audioStream"
        default: return nil
        }
    }

    /// The long flag without dashes.
    public var flag: String {
        switch self {
        case .segments: return "segment"
        case .ramps: return "ramp"
        case .frameBlend: return "frame-blend"
        case .flowQuality: return "flow-quality"
        case .noAudio: return "no-audio"
        case .audioCodec: return "audio-codec"
        case .audioStreams: return "audio-stream"
        case .realTime: return "real-time"
        case .pixFmt: return "pix-fmt"
        case .burnIn: return "burn-in"
        case .burnInFields: return "burn-in-fields"
        case .burnInCorner: return "burn-in-corner"
        case .burnInSize: return "burn-in-size"
        default: return rawValue
        }
    }

    public var commands: Set<BatchJob.Command> {
        switch self {
        case .fps, .codec, .preset, .crf, .frameBlend, .flowQuality, .rotation, .size, .pixFmt, .bitrate, .gop, .burnIn, .burnInFields, .burnInCorner,
            .burnInSize:
            return [.export]
        case .noAudio, .audioCodec, .audioStreams, .realTime, .start, .end: return [.export, .retime]  // stretch writes audio only, in its output's format
        default: return Set(BatchJob.Command.allCases)
        }
    }

    public var help: String {
        switch self {
        case .rate: return "Rate for the whole clip outside segments (0.5 = half speed; fractions like 1/8 allowed)."
        case .segments: return "START-END@RATE (seconds, hh:mm:ss.sss or f600 frame numbers), repeatable."
        case .ramps: return "START-END@RATE[:RAMP] eased in and out over RAMP seconds (default 0.5), repeatable."
        case .curve:
            return
                "T0@R0,T1@R1,… a smooth speed curve: between key points the slowdown (1/rate) moves linearly in source time; the first rate holds before it, the last after it (Docs/Curves.md)."
        case .pitch: return "Audio time-pitch algorithm: \(Self.pitchNames)."
        case .fps: return "Output frame rate (integer, decimal or fraction)."
        case .codec: return "Video encoder: libx264 (default; libvpx-vp9 for .webm), libx265, libvpx-vp9, libaom-av1, libsvtav1, prores_ks, ffv1, mjpeg."
        case .preset: return "Encoder preset (x264/x265 meaning; default medium)."
        case .crf: return "Constant rate factor (x264/x265 meaning; default 23 / 28)."
        case .frameBlend:
            return
                "When the source has fewer frames than the output needs: \(OptionValues.choices(ExportRequest.FrameBlend.self)) (repeat, mix neighbours, FFmpeg's minterpolate, optical flow)."
        case .flowQuality:
            return "--frame-blend flow: \(OptionValues.choices(FlowQuality.self)) (default medium; Docs/Interpolation.md gives cost and quality)."
        case .noAudio: return "Leave the audio out."
        case .audioCodec:
            return
                "Audio encoder: auto (the source's codec where the container holds it, else AAC), \(AudioCodecChoice.named.map(\.key).joined(separator: ", "))."
        case .audioStreams:
            return "Keep only this audio stream (its index, as 'slomo probe' lists it), repeatable; default: every audio track, each retimed alike."
        case .start:
            return
                "Keep the source from here: seconds, hh:mm:ss.sss, a frame number like f90, or from the recording's trigger frame t-0.1 (seconds) or f-50 (frames) (exact; retime keeps whole frames and starts its copy at the keyframe before)."
        case .end: return "Keep the source up to here (the time or frame, not included; t+0.5 and f+200 count from the trigger frame)."
        case .size: return "Output picture size WxH as it shows (after any turn); Wx0 or 0xH keeps the aspect (default: the source's)."
        case .pixFmt: return "Output pixel format, e.g. yuv420p for an 8-bit delivery that phones and browsers play (default: the source's depth)."
        case .bitrate: return "Target video bit rate, e.g. 8M or 2500k (instead of --crf)."
        case .gop: return "Keyframe interval in output frames (default: the encoder's)."
        case .burnIn:
            return
                "Draw each frame's source frame number and time in ms into the picture, counted from the trigger frame (else the first); a blended or made frame shows the nearer source frame's."
        case .burnInFields:
            return "--burn-in's lines, in order: \(OptionValues.choices(BurnInSettings.Field.self)), comma-separated (default frame,ms; implies --burn-in)."
        case .burnInCorner: return "--burn-in's corner: \(OptionValues.choices(BurnInSettings.Corner.self)) (default top-left; implies --burn-in)."
        case .burnInSize: return "--burn-in's text height in pixels (default: a twentieth of the picture's height, at least 16; implies --burn-in)."
        case .realTime:
            return
                "Rates are relative to real time, for a phone's slow-motion file that records its capture rate (com.android.capture.fps; see 'slomo probe'). Times stay the file's."
        case .rotation:
            return
                "A source's display rotation: auto (kept as metadata in .mp4/.mov, pixels turned upright in other containers), pixels (always turn them), metadata (never; .mkv then plays unrotated)."
        }
    }

    /// The values an option takes from a closed list (for shell completion), in their types'
    /// declaration order; nil for open values (rates, times, codec names).
    public var values: [String]? {
        switch self {
        case .pitch: return TimePitchAlgorithm.allCases.map(\.rawValue)
        case .frameBlend: return ExportRequest.FrameBlend.allCases.map(\.rawValue)
        case .flowQuality: return FlowQuality.allCases.map(\.rawValue)
        case .rotation: return ExportRequest.Rotation.allCases.map(\.rawValue)
        case .burnInCorner: return BurnInSettings.Corner.allCases.map(\.rawValue)
        case .audioCodec: return ["auto"] + AudioCodecChoice.named.map(\.key)
        default: return nil
        }
    }

    /// The algorithms in the order the documentation gives them (best quality first).
    static let pitchNames = "spectral, time-domain, zero-latency, varispeed or mute"

    /// The fields a manifest may use.
    public static let manifestFields: Set<String> = Set(allCases.map(\.field) + allCases.compactMap(\.alias) + ["input", "output", "command"])
}

extension JobOption {
    /// The option as errors name it (its request field; the command line shows it as its `flag`).
    public var setting: Setting { Setting(field) }
}

extension BatchJob {
    /// The typed values of the options the requests hold typed. The use cases check the rest
    /// themselves (the pitch and audio codec only when there is audio to write, the frame rate's
    /// range), with the command line's wording; batch checks them all up front (`validate`).
    public struct Parsed: Sendable {
        public var fps: Rational?
        public var frameBlend: ExportRequest.FrameBlend?
        public var flowQuality: FlowQuality?
        public var rotation: ExportRequest.Rotation?
        public var delivery = Delivery()
        public var trim = SourceTrim()
        public var burnIn: BurnInSettings?
    }

    public func parsedOptions() throws(SettingError) -> Parsed {
        var p = Parsed()
        if let fps {
            do { p.fps = try Rational(frameRate: fps) } catch { throw SettingError(JobOption.fps.setting, fps, "\(error)") }
        }
        if let frameBlend {
            guard let b = ExportRequest.FrameBlend(rawValue: frameBlend) else {
                throw SettingError(JobOption.frameBlend.setting, frameBlend, "\(OptionValues.expected(ExportRequest.FrameBlend.self))")
            }
            p.frameBlend = b
        }
        if let flowQuality {
            guard let q = FlowQuality(rawValue: flowQuality) else {
                throw SettingError(JobOption.flowQuality.setting, flowQuality, "\(OptionValues.expected(FlowQuality.self))")
            }
            guard p.frameBlend == .flow else {
                throw SettingError(JobOption.flowQuality.setting, flowQuality, "is for \(JobOption.frameBlend.setting) flow")
            }
            p.flowQuality = q
        }
        if let rotation {
            guard let r = ExportRequest.Rotation(rawValue: rotation) else {
                throw SettingError(JobOption.rotation.setting, rotation, "\(OptionValues.expected(ExportRequest.Rotation.self))")
            }
            p.rotation = r
        }
        p.trim = try SourceTrim.parse(start: start, end: end)
        if burnIn || burnInFields != nil || burnInCorner != nil || burnInSize != nil {
            p.burnIn = try BurnInSettings(fields: burnInFields, corner: burnInCorner, size: burnInSize)
        }
        if command == .export {
            // the encoder's checks need the container: a batch job's output may have no name yet
            // (--out-dir), and the export checks them again when it opens
            let container = try? ContainerFormat.forOutput(output, webm: true)
            if let container { try VideoCodecChoice.check(codec: codec, preset: preset, crf: crf, container: container) }
            p.delivery = try Delivery.parse(
                size: size, pixFmt: pixFmt, bitrate: bitrate, gop: gop, crf: crf,
                encoder: container.map { codec ?? VideoCodecChoice.defaultEncoder(container: $0) })
        }
        return p
    }

}
