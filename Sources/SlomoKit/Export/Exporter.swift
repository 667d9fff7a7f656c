import Foundation
import SlomoCore
import SlomoFFmpeg
import SlomoSystem

/// `slomo export`: decode, apply the retime map, encode at a constant frame rate.
public struct ExportRequest: Sendable {
    public enum FrameBlend: String, Sendable, CaseIterable { case none, blend, motion, flow }
    /// What export does with a source's display rotation (a phone held upright records sideways
    /// pixels and a display matrix). `auto`: keep the matrix where the container stores it (MP4,
    /// MOV; no pixel work), else turn the pixels upright. `pixels`: always turn the pixels (for
    /// consumers that ignore the matrix, as many vision tools do). `metadata`: never touch the
    /// pixels (Matroska then plays unrotated, with a warning).
    public enum Rotation: String, Sendable, CaseIterable { case auto, pixels, metadata }
    public var input: String
    public var output: String
    public var spec: RetimeSpec
    public var frameRate = Rational(30)
    public var pitch = "spectral"
    public var audio = true
    /// `--audio-codec`: `auto` (the source's codec where possible, else AAC) or a name from
    /// `AudioCodecChoice.named`.
    public var audioCodec = "auto"
    /// `--audio-stream`: the audio streams kept, by index; empty: every audio stream.
    public var audioStreams: [Int] = []
    /// The video encoder; nil: libx264, or libvpx-vp9 for WebM (which holds only VP8/VP9/AV1).
    public var codec: String?
    public var preset: String? = nil
    public var crf: Int? = nil
    public var frameBlend = FrameBlend.none
    /// `--flow-quality`: how hard `--frame-blend flow` looks for motion.
    public var flowQuality = FlowQuality.medium
    /// `--size`, `--pix-fmt`, `--bitrate`, `--gop`.
    public var delivery = Delivery()
    /// `--start`, `--end`: the part of the source exported.
    public var trim = SourceTrim()
    public var rotation = Rotation.auto
    /// `--burn-in`: each frame's source frame and time drawn into the picture; nil: none.
    public var burnIn: BurnInSettings?
    public var overwrite = false
    public var fromOriginal = true
    /// `--real-time`: the spec's rates are relative to real time (a phone's capture rate metadata).
    public var realTime = false
    /// Skip decoding frames that nothing shows and nothing references.
    public var skipUnneeded = true
    /// Decoder and encoder threads (0 = FFmpeg's choice: all cores); `--frame-blend flow`'s pairs
    /// worked at once (0: one per core).
    public var threads = 0
    /// Stored as `slomo_job` metadata so a batch re-run can tell a finished output from another.
    public var jobKey: String?
    /// Raised to stop the export after the frame being written (a server's job cancelled): it
    /// throws `ExportError.cancelled` and leaves nothing under the output's name.
    public var stop: StopToken?
    public init(input: String, output: String, spec: RetimeSpec) {
        self.input = input
        self.output = output
        self.spec = spec
    }
}

public struct ExportReport: Codable, Sendable {
    public var input: String
    public var output: String
    public var outputFrames: Int64
    public var frameRate: Rational
    public var outputDuration: Rational
    public var sourceFrames: Int
    /// Source packets sent to the decoder / left undecoded because no output frame shows them.
    public var decodedPackets: Int
    public var skippedPackets: Int
    /// Output frames that repeat the previous source frame because the source has fewer frames.
    public var repeatedFrames: Int64
    /// Output frames whose source frame could not be decoded (the previous one was shown).
    public var missingFrames: Int64
    public var audioFrames: Int64?
    /// The encoder that wrote the video (`libx264`, `libvpx-vp9`…).
    public var videoCodec: String?
    /// The encoder that wrote the audio (`aac`, `flac`…), nil without audio.
    public var audioCodec: String?
    /// Audio tracks written (every audio stream of the source unless `--audio-stream` chose).
    public var audioTracks = 0
    /// The source's streams the output does not carry, one sentence each (subtitles, timecode…).
    public var droppedStreams: [String] = []
    /// The source's display rotation in degrees when the output container cannot store it
    /// (Matroska, WebM, NUT) and the pixels were not turned: the output plays unrotated.
    public var rotationDropped: Double?
    /// Clockwise degrees (90, 180, 270) the pixels were turned to show the source upright; the
    /// output then carries no display rotation.
    public var rotationApplied: Int?
    /// What became of a phone's capture-rate tag (`com.android.capture.fps`): rewritten to
    /// describe the output, or left out where its speed against real time varies.
    public var captureRateTag: String?
    /// Set when the encoder refused the source's odd size: "321x181 → 320x180" (last column/row
    /// cropped off, nothing resampled).
    public var cropped: String?
    /// Signs of a damaged or truncated input, one sentence each: the export went on with what
    /// decodes (empty when the input was whole).
    public var damage: [String]
    public var elapsedSeconds: Double
    public var encodeFps: Double
    /// `--frame-blend flow`: what the optical flow made.
    public var interpolation: InterpolationReport?
}

/// `slomo export`: a source (`VideoSource`: demux, decode, skip what no output needs), a frame
/// chooser (`HoldingChooser` or `MotionChooser` on the plan's CFR schedule) and a sink (`VideoSink`:
/// convert, turn, encode, mux), with the time-pitch audio interleaved after each frame.
public enum Exporter {
    /// The frames `r` would write, from its plan alone (nothing decoded, nothing written): what a
    /// server checks against its limit before it accepts a job.
    public static func plannedFrames(_ r: ExportRequest) throws -> Int64 {
        try MediaInput.checkInput(r.input)
        try ExportError.checkFrameRate(r.frameRate, maxDenominator: 1_000_000)
        let timeline = try MediaTimeline(path: r.input)
        let (map, _) = try timeline.resolve(r.spec, fromOriginal: r.fromOriginal, pitch: r.pitch, audio: r.audio, realTime: r.realTime)
        let window = try r.trim.window(timeline: timeline, map: map)
        return try ExportFramePlan(timeline: timeline, map: map, frameRate: r.frameRate, blend: r.frameBlend, window: window?.target).total
    }

    /// Progress: (output frames done, total).
    public static func export(_ r: ExportRequest, progress: ((Int64, Int64) -> Void)? = nil) throws -> ExportReport {
        let started = DispatchTime.now()
        try MediaInput.checkInput(r.input)
        let formatName = try ContainerFormat.forOutput(r.output, webm: true)
        try ExportError.checkFrameRate(r.frameRate, maxDenominator: 1_000_000)
        try VideoCodecChoice.check(codec: r.codec, preset: r.preset, crf: r.crf, container: formatName)
        try r.delivery.checkPixelFormat(encoder: r.codec ?? VideoCodecChoice.defaultEncoder(container: formatName))
        let timeline = try MediaTimeline(path: r.input)
        let (map, stored) = try timeline.resolve(r.spec, fromOriginal: r.fromOriginal, pitch: r.pitch, audio: r.audio, realTime: r.realTime)
        let window = try r.trim.window(timeline: timeline, map: map)
        let plan = try ExportFramePlan(timeline: timeline, map: map, frameRate: r.frameRate, blend: r.frameBlend, window: window?.target)
        let t0 = window?.target.start ?? .zero

        let out = try OutputFile(path: r.output, overwrite: r.overwrite, inputs: [r.input])
        let muxer = try Muxer(path: out.temporaryPath, formatName: formatName, name: r.output)
        let sink = try VideoSink(r, timeline: timeline, muxer: muxer, formatName: formatName)
        let demuxer = try MediaInput.openInput(r.input)
        if let b = r.burnIn {
            try sink.burnIn(BurnInLabels(b, timeline: timeline, plan: plan, blend: r.frameBlend, metadata: demuxer.metadata), threads: r.threads)
        }
        muxer.copySideData(from: demuxer, stream: timeline.video, to: sink.stream, displayMatrix: sink.pixelTurns == nil)
        let audio = try RetimedOutput.finishHeader(
            muxer, demuxer: demuxer, timeline: timeline, video: sink.stream, map: map, stored: stored,
            .init(
                input: r.input, output: r.output, command: "export", audio: r.audio, audioStreams: r.audioStreams,
                pitch: r.pitch, audioCodec: r.audioCodec, jobKey: r.jobKey, reencoded: true, window: window?.target, outputFrameRate: r.frameRate))
        sink.afterFrame = { [stop = r.stop, output = r.output] n in
            if stop?.isRaised == true { throw ExportError.cancelled(output: output) }
            try audio.write(upTo: plan.schedule.targetTime(ofFrame: n + 1) - t0)
            progress?(n + 1, plan.total)
        }
        let chooser = try makeFrameChooser(r, plan: plan, map: map, sink: sink)
        let source = try VideoSource(demuxer, timeline: timeline, plan: plan, skipUnneeded: r.skipUnneeded, threads: r.threads)
        try source.run(until: { chooser.next >= plan.total }, deliver: chooser.take)
        try chooser.finish()
        guard chooser.next == plan.total else {
            throw MediaError.noDecodableFrames(path: r.input, operation: "export")
        }
        try sink.finish()
        try audio.finish()
        try muxer.finish()
        try out.commit()

        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        var report = ExportReport(
            input: r.input, output: r.output, outputFrames: plan.total, frameRate: r.frameRate, outputDuration: plan.schedule.covered.duration,
            sourceFrames: plan.times.count, decodedPackets: source.decoded, skippedPackets: source.skipped,
            repeatedFrames: chooser.repeated, missingFrames: chooser.missing, audioFrames: audio.framesWritten,
            cropped: sink.cropped, damage: source.damage, elapsedSeconds: elapsed,
            encodeFps: elapsed > 0 ? Double(plan.total) / elapsed : 0)
        report.videoCodec = sink.codec
        report.interpolation = chooser.interpolation
        report.audioCodec = audio.codecs.first
        report.audioTracks = audio.writers.count
        report.droppedStreams = audio.dropped
        report.captureRateTag = audio.captureRateTag
        report.rotationDropped = sink.pixelTurns == nil ? RetimedOutput.droppedRotation(timeline.info.rotation, muxer: muxer) : nil
        report.rotationApplied = sink.pixelTurns.map { $0 * 90 }
        return report
    }
}
