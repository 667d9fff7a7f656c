import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

/// The camera, its mode, the ring, the recording's codec and the sound: declared once, for
/// `capture` and `serve`.
struct CameraOptions: ParsableArguments {
    @Argument(
        help: "V4L2 device (default /dev/video0), genicam:ID or synthetic:SPEC, unless --source is given; several: one event (capture: -o with {camera}).",
        completion: .file())
    var devices: [String] = []
    @Option(
        help:
            "synthetic:fps=240,size=1280x720,format=mjpeg|h264|yuv420p|yuyv|gray|gray16|bayer-rggb8…16,gop=30,pace=1,drop-every=0,buffers=8,still-until=0,preload=0"
    )
    var source: String?
    @Flag(help: "Pick the fastest mode (the default; kept for clarity).") var maxFps = false
    @Option(help: "Only this pixel format (fourcc).") var format: String?
    @Option(help: "Only this size WxH.") var size: String?
    @Option(help: "At least this size WxH.") var minSize: String?
    @Option(help: "GenICam cameras: the --size region's top-left corner X,Y on the sensor (default: centred).") var offset: String?
    @Option(help: "GenICam cameras: expose every frame on a FrameStart trigger from line0, line1… or software (slomo sends it at --fps).") var cameraTrigger:
        String?
    @Option(parsing: .unconditional, help: "The mode nearest at or above this rate.") var fps: String?
    @Option(parsing: .unconditional, help: "Raw formats: ask the driver to pad rows to this many bytes.") var bytesPerLine: Int?
    @Option(help: "Driver buffers (mmap).") var buffers = 8
    @Option(help: "RAM ring size, e.g. 512M or 2G (default: 2 s of frames or 64 MiB; triggered: the shot + 1/4 s, at least 64 MiB).") var ringMemory: String?
    @Option(parsing: .unconditional, help: "RAM ring size in frames (instead of --ring-memory).") var ringFrames: Int?
    @Flag(help: "Do not lock the ring in RAM (mlock).") var noMlock = false
    @Flag(help: "Keep the capture thread at normal priority (default: SCHED_FIFO where allowed, else nice -10).") var noRealtime = false
    @Option(help: "Raw cameras: x264, ffv1 (lossless) or raw (uncompressed; .mkv, .mov or .nut).", completion: .values(of: RecordingSettings.RawCodec.self))
    var codec = "x264"
    @Option(help: "x264 preset for raw cameras.") var preset = "superfast"
    @Option(parsing: .unconditional, help: "x264 constant rate factor for raw cameras.") var crf = 20
    @Option(parsing: .unconditional, help: ArgumentHelp(RigOption.preTrigger.help)) var preTrigger: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(RigOption.postTrigger.help)) var postTrigger: String?
    @Option(help: "Record sound from this ALSA capture device too (hw:1,0, default; see 'slomo devices').") var audio: String?
    @Option(parsing: .unconditional, help: "Sound sample rate in Hz (default: the card's, 48000 where offered).") var audioRate: Int?
    @Option(parsing: .unconditional, help: "Sound channels (default: 2 where offered, else the card's minimum).") var audioChannels: Int?
    @Option(
        help: "Sound codec: aac, flac, alac, pcm, pcm24, opus… (default: lossless, PCM; ALAC in MP4).",
        completion: .list(AudioCodecChoice.named.map(\.key))) var audioCodec: String?
    @Flag(help: "Do not fdatasync the recording each second (the kernel writes back when it chooses; a power cut may lose more).") var noSync = false
    @OptionGroup(title: "Camera controls (checked against the device before it streams; each read back)") var cameraControls: ControlOptions

    /// The device request for one camera, from the mode options.
    func request(_ device: String, controls: ControlRequests) -> DeviceCaptureRequest {
        var r = DeviceCaptureRequest(device: device)
        r.controls = controls
        r.format = format
        r.size = size
        r.minSize = minSize
        r.fps = fps
        r.buffers = buffers
        r.bytesPerLine = bytesPerLine
        r.offset = offset
        r.cameraTrigger = cameraTrigger
        return r
    }

    /// The ring's size and the capture thread's priority (`--ring-memory`, `--ring-frames`,
    /// `--no-mlock`, `--no-realtime`), and `--buffers`/`--bytes-per-line` checked.
    func limits() throws -> CaptureLimits {
        var limits = CaptureLimits()
        limits.ringFrames = ringFrames
        limits.ringMemory = try ringMemory.map { m throws(SettingError) in try OptionValues.bytes(m, option: .ringMemory) }
        limits.lockMemory = !noMlock
        limits.realtime = !noRealtime
        try limits.validate()
        try request("", controls: ControlRequests()).validate()
        return limits
    }

    /// The recording's codec and options, for files named `output`.
    func recording(output: String) throws -> RecordingSettings {
        var settings = RecordingSettings(output: output)
        guard let raw = RecordingSettings.RawCodec(rawValue: codec) else {
            throw CommandLineError("\(Setting.codec) '\(codec)': \(OptionValues.expected(RecordingSettings.RawCodec.self))", .badRequest)
        }
        settings.rawCodec = raw
        settings.preset = preset
        settings.crf = crf
        settings.sync = !noSync
        return settings
    }

    /// `--pre-trigger`, `--post-trigger`: a second each side when neither is given.
    func window() throws -> (pre: Rational, post: Rational) {
        let window = preTrigger == nil && postTrigger == nil ? TriggerSettings.defaultWindow : .zero
        return (
            try preTrigger.map { v throws(SettingError) in try OptionValues.seconds(v, option: .preTrigger, max: RigOption.preTrigger.highest) } ?? window,
            try postTrigger.map { v throws(SettingError) in try OptionValues.seconds(v, option: .postTrigger, max: RigOption.postTrigger.highest) } ?? window
        )
    }

    /// `--audio`, `--audio-rate`, `--audio-channels`, `--audio-codec` (exit 64 on values out of range).
    func audioOptions() throws -> AudioSettings? {
        guard let audio else {
            if audioRate != nil || audioChannels != nil || audioCodec != nil {
                throw CommandLineError("\(Setting.audioRate)/\(Setting.audioChannels)/\(Setting.audioCodec) need \(Setting.audio) DEVICE", .badRequest)
            }
            return nil
        }
        let settings = AudioSettings(device: audio, rate: audioRate, channels: audioChannels, codec: audioCodec)
        try settings.validate()
        return settings
    }

    /// One camera's source: `--source`, or the device (`/dev/video0` when none is given; a
    /// `synthetic:SPEC` device is the synthetic camera, so a rig of several can be built of them).
    func openSource(_ device: String?, controls: ControlRequests) throws -> CaptureSource {
        if let source {
            guard device == nil else { throw CommandLineError("give a DEVICE or \(Setting.source), not both", .badRequest) }
            return try SyntheticSource(spec: source)
        }
        if let device, device.hasPrefix("synthetic:") { return try SyntheticSource(spec: device) }
        return try DeviceCapture.open(request(device ?? "/dev/video0", controls: controls))
    }
}
