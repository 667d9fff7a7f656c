import Foundation
import SlomoCore

/// Where a capture's recorder and shot saver put the ring's frames: a video container
/// (`RecordingWriter`: MKV, MP4, MOV, NUT) or a lab format (`LabFrameFile`: `.cine`, `.h5`, a TIFF
/// or DNG sequence, written from the camera's own samples). Which one is chosen by the output's name
/// (`FrameFiles.open`); the stages see only this.
protocol FrameFile: AnyObject {
    /// The output's name as the settings give it (a shot's, with its number).
    var output: String { get }
    var framesWritten: Int64 { get }
    var bytesWritten: Int64 { get }
    /// `slomo_*` facts added when the file opens (a shot's trigger facts).
    var metadata: [String: String] { get set }
    /// The sound card recorded beside the camera: only a container holds it.
    var audio: AudioCapture? { get set }
    var audioCodec: String { get }
    var audioFramesWritten: Int64 { get }
    var capturedAudio: CapturedAudio? { get }
    var syncs: FileSyncs { get }
    /// Everything costly before the camera streams (FFmpeg's encoder opened).
    func prepare() throws
    /// Stores one frame as the ring holds it; false (nothing stored) for a frame shorter than its format.
    func write(_ bytes: UnsafeRawBufferPointer, timestamp: Rational) throws -> Bool
    /// The same, with the driver's sequence number (a lab file's frame table keeps it).
    func write(_ bytes: UnsafeRawBufferPointer, timestamp: Rational, sequence: UInt64?) throws -> Bool
    /// Completes the file under its name.
    func finish() throws
    /// The buffers' clock as the driver flags it, once a frame is in the ring.
    func stampClock(_ c: TimestampClock?)
}

extension RecordingWriter: FrameFile {
    var output: String { settings.output }
    func write(_ bytes: UnsafeRawBufferPointer, timestamp: Rational, sequence: UInt64?) throws -> Bool {
        try write(bytes, timestamp: timestamp)
    }
}

enum FrameFiles {
    /// The file for `settings.output`: a lab format when the name is one (`LabOutput.isLabName`),
    /// else a video container. `frames`: how many frames it will hold at most, when known (a shot's,
    /// or a continuous capture's `--frames`/`--duration` at the camera's rate); a `.cine` needs it.
    static func open(settings: RecordingSettings, format: CaptureFormat, sourceName: String, frames: Int?) throws -> any FrameFile {
        if LabOutput.isLabName(settings.output) {
            return try LabFrameFile(settings: settings, format: format, sourceName: sourceName, frames: frames)
        }
        return try RecordingWriter(settings: settings, format: format, sourceName: sourceName)
    }

    /// The most frames one file of this capture holds: a shot's (`RingPlan`'s pre- and post-trigger
    /// frames, the trigger frame, a compressed camera's lead-in), or a continuous capture's `bound`.
    static func capacity(triggered: Bool, plan: RingPlan, format: CaptureFormat, limits: CaptureLimits) -> Int? {
        triggered ? shotFrames(plan, format: format) : bound(limits, frameDuration: format.frameDuration)
    }

    /// A shot's frames at most: pre-trigger, the trigger frame, post-trigger, and a compressed camera's lead-in.
    static func shotFrames(_ plan: RingPlan, format: CaptureFormat) -> Int {
        plan.preFrames + 1 + plan.postFrames + (format.nalCodec != nil ? 600 : 0)
    }

    /// The most frames a continuous capture with these limits keeps: `--frames`, or `--duration` at
    /// the camera's nominal rate with a quarter more and 64 frames of headroom (a camera a little
    /// faster than it says); nil when neither bounds it.
    static func bound(_ limits: CaptureLimits, frameDuration: Rational?) -> Int? {
        if let n = limits.frames { return Int(clamping: n) }
        guard let d = limits.duration, let period = frameDuration, period.isPositive,
            let frames = try? d.checkedDividing(period)
        else { return nil }
        return Int(clamping: (frames * Rational(5, 4)).ceiling) + 64
    }

    /// The first file's settings: a triggered capture's first shot's name.
    static func firstFile(_ settings: RecordingSettings, trigger: TriggerSettings?) -> RecordingSettings {
        var first = settings
        first.output = trigger.map { TriggerSettings.path(settings.output, shot: $0.firstShot) } ?? settings.output
        return first
    }

    /// A lab file holds the camera's frames and their times, nothing else: no sound, no speed map;
    /// a format that cannot hold the camera's samples as they come (or a `.cine` without a bound on
    /// its frames) is refused now, before the ring is described or the sound opens.
    static func check(
        _ settings: RecordingSettings, audio: AudioSettings?, source: CaptureSource, trigger: TriggerSettings?, plan: RingPlan,
        limits: CaptureLimits
    ) throws {
        guard LabOutput.isLabName(settings.output) else { return }
        let frames = capacity(triggered: trigger != nil, plan: plan, format: source.format, limits: limits)
        _ = try LabFrameFile(settings: firstFile(settings, trigger: trigger), format: source.format, sourceName: source.name, frames: frames)
        if let audio {
            throw SettingError(
                .audio, audio.device, "\(settings.output) is a lab format, which holds no sound: record name.mkv with --audio (slomo convert it later)")
        }
        if settings.map != nil {
            throw SettingError(
                .segments, settings.output, "a lab file keeps each frame at its own time: record name.mkv to slow while recording")
        }
    }
}
