import Foundation
import SlomoCore
import SlomoFFmpeg

/// What `slomo generate` writes: a calibration clip whose frames carry their own index.
public struct GenerateRequest: Sendable {
    public enum VideoCodec: String, Sendable, CaseIterable { case h264, mjpeg, ffv1 }

    public var output: String
    public var frameRate: Rational
    public var duration: Rational
    public var width: Int
    public var height: Int
    public var codec: VideoCodec = .h264
    public var audio = true
    public var sampleRate = 48_000
    /// x264 preset and CRF (only for h264).
    public var preset = "veryfast"
    public var crf = 18
    /// Keyframe interval in frames (nil = one second of frames).
    public var gop: Int?
    /// h264 only: make only every Nth frame a reference frame (the frames between are
    /// non-reference B-frames), so a 1/N-rate proxy or export decodes 1 frame in N. 2...17.
    public var referenceInterval: Int?
    public var overwrite = false

    public init(output: String, frameRate: Rational, duration: Rational, width: Int, height: Int) {
        self.output = output
        self.frameRate = frameRate
        self.duration = duration
        self.width = width
        self.height = height
    }

    public static let maxFrameRate = Rational(1000)
    public static let maxDuration = Rational(3600)
    public static let sizeLimits = (minWidth: 96, minHeight: 64, maxWidth: 7680, maxHeight: 4320)

    /// Checks the values before anything is written.
    public func validate() throws(GenerateError) {
        func bad(_ m: Wording) -> GenerateError { GenerateError(output: output, reason: m) }
        guard frameRate >= Rational(1), frameRate <= GenerateRequest.maxFrameRate else {
            throw bad("frame rate \(frameRate) is outside 1...1000 fps")
        }
        guard frameRate.denominator <= 1_000_000 else { throw bad("frame rate \(frameRate) has a denominator above 1000000") }
        guard duration.isPositive, duration <= GenerateRequest.maxDuration else {
            throw bad("duration \(Seconds(duration)) s is outside (0, 3600] s")
        }
        let l = GenerateRequest.sizeLimits
        guard width >= l.minWidth, height >= l.minHeight, width <= l.maxWidth, height <= l.maxHeight else {
            throw bad("size \(width)x\(height) is outside \(l.minWidth)x\(l.minHeight)...\(l.maxWidth)x\(l.maxHeight)")
        }
        guard width % 2 == 0, height % 2 == 0 else { throw bad("size \(width)x\(height) must be even (4:2:0 video)") }
        guard (8_000...192_000).contains(sampleRate) else { throw bad("sample rate \(sampleRate) is outside 8000...192000 Hz") }
        guard (0...51).contains(crf) else { throw bad("crf \(crf) is outside 0...51") }
        if let g = gop { guard (1...10_000).contains(g) else { throw bad("\(Setting.gop) \(g) is outside 1...10000 frames") } }
        if let n = referenceInterval {
            guard (2...17).contains(n) else { throw bad("reference interval \(n) is outside 2...17") }
            guard codec == .h264 else { throw bad("\(Setting.referenceInterval) needs \(Setting.codec) h264") }
        }
        guard frameCount >= 1 else { throw bad("duration \(Seconds(duration)) s holds no frame at \(frameRate) fps") }
        guard frameCount <= Int64(CalibrationCode.maxIndex) else { throw bad("\(frameCount) frames exceed the calibration code's range") }
    }

    /// `ceil(duration × fps)` frames: every frame starts inside the duration.
    public var frameCount: Int64 { (duration * frameRate).ceiling }
}

/// The result of a generate run.
public struct GenerateReport: Codable, Sendable {
    public var output: String
    public var frames: Int64
    public var frameRate: Rational
    public var duration: Rational
    public var width: Int
    public var height: Int
    public var videoCodec: String
    public var audioCodec: String?
    public var audioSamples: Int64?
    public var clickTimes: [Rational]?
}

/// Writes calibration clips (`slomo generate`).
public enum Generator {
    /// Encodes and muxes the clip under a temporary name, then renames it into place.
    public static func generate(_ r: GenerateRequest, progress: ((Int64, Int64) -> Void)? = nil) throws -> GenerateReport {
        try r.validate()
        let formatName = try ContainerFormat.forOutput(r.output)
        let out = try OutputFile(path: r.output, overwrite: r.overwrite)
        let muxer = try Muxer(path: out.temporaryPath, formatName: formatName, name: r.output)
        let settings = r.videoSettings()
        let clip = try CalibrationOutput(r, video: settings, muxer: muxer, formatName: formatName)
        let frame = try Frame(width: r.width, height: r.height, pixelFormat: settings.pixelFormat)
        let total = r.frameCount
        for i in 0..<total {
            try frame.makeWritable()
            frame.withPlane(0) { y, ys in
                frame.withPlane(1) { u, cs in
                    frame.withPlane(2) { v, _ in
                        CalibrationPicture.paint(
                            index: Int(i), fps: r.frameRate, y: y, yStride: ys, u: u, v: v,
                            chromaStride: cs, width: r.width, height: r.height)
                    }
                }
            }
            frame.pts = i  // encoder time base is 1/fps
            try clip.send(frame)
            // keep audio up to the end of this frame so packets interleave closely
            let frameEnd = Rational(i + 1) / r.frameRate
            try clip.writeAudio(upTo: (frameEnd * Rational(Int64(r.sampleRate))).ceiling)
            progress?(i + 1, total)
        }
        try clip.finish()
        try out.commit()
        return GenerateReport(
            output: r.output, frames: total, frameRate: r.frameRate, duration: r.duration,
            width: r.width, height: r.height, videoCodec: settings.codec,
            audioCodec: r.audio ? "aac" : nil, audioSamples: r.audio ? clip.samplesWritten : nil,
            clickTimes: r.audio ? clip.tone.clickTimes(duration: r.duration) : nil)
    }
}

/// A test clip that `generate` refuses to make as asked.
public struct GenerateError: SlomoFailure, Sendable, Equatable {
    public var output: String
    public var reason: Wording
    public var kind: FailureKind { .badRequest }
    public var wording: Wording { "\(output): generate: \(reason)" }
}

extension GenerateRequest {
    /// The video encoder for the request's codec (H.264 with a fixed reference pattern on request).
    func videoSettings() -> VideoEncoderSettings {
        let gop = self.gop ?? Int(frameRate.ceiling)
        switch codec {
        case .h264:
            var options = ["preset": preset, "crf": String(crf)]
            if let n = referenceInterval {
                // P (reference) every n frames, n-1 non-reference B-frames between, no adaptive placement.
                let keyint = Swift.max(n, gop / n * n)
                options["x264-params"] = "bframes=\(n - 1):b-adapt=0:b-pyramid=none:scenecut=0:keyint=\(keyint):min-keyint=\(keyint)"
            }
            return VideoEncoderSettings(
                codec: "libx264", width: width, height: height, pixelFormat: .yuv420p,
                frameRate: frameRate, gopSize: gop, options: options)
        case .mjpeg:
            let bits = Int64(width * height) * frameRate.ceiling  // about 1 bit per pixel
            return VideoEncoderSettings(
                codec: "mjpeg", width: width, height: height, pixelFormat: .yuvj420p,
                frameRate: frameRate, options: ["b": String(bits)])
        case .ffv1:
            return VideoEncoderSettings(
                codec: "ffv1", width: width, height: height, pixelFormat: .yuv420p,
                frameRate: frameRate, gopSize: gop)
        }
    }
}

/// A calibration clip's encoders and streams: video frames in, the tone written alongside, packets
/// into the muxer as they come.
private final class CalibrationOutput {
    let muxer: Muxer
    let packet = Packet()
    let video: Encoder, videoStream: Int, videoTimeBase: Rational
    let audio: Encoder?, audioStream: Int, audioTimeBase: Rational
    let tone: CalibrationTone
    let sampleRate: Int, totalSamples: Int64
    private(set) var samplesWritten: Int64 = 0

    /// Adds the streams and writes the muxer's header (the streams' time bases are the muxer's from then on).
    init(_ r: GenerateRequest, video settings: VideoEncoderSettings, muxer: Muxer, formatName: String) throws {
        self.muxer = muxer
        video = try Encoder(path: r.output, video: settings, globalHeader: muxer.wantsGlobalHeader)
        videoStream = try muxer.addStream(for: video)
        if r.audio {
            let a = try Encoder(
                path: r.output, audio: AudioEncoderSettings(codec: "aac", sampleRate: r.sampleRate, channels: 2, options: EncoderDefaults.audioOptions("aac")),
                globalHeader: muxer.wantsGlobalHeader)
            audioStream = try muxer.addStream(for: a)
            audio = a
        } else {
            audio = nil
            audioStream = -1
        }
        tone = CalibrationTone(sampleRate: r.sampleRate)
        sampleRate = r.sampleRate
        totalSamples = (r.duration * Rational(Int64(r.sampleRate))).floor
        muxer.setMetadata("comment", "slomo calibration clip: frame index code in the top band, 1 kHz tone, click every 250 ms")
        muxer.setMetadata("encoder", "slomo generate")
        try muxer.writeHeader(options: formatName == "mp4" || formatName == "mov" ? ["movflags": "+faststart"] : [:])
        videoTimeBase = muxer.timeBase(ofStream: videoStream)
        audioTimeBase = audioStream >= 0 ? muxer.timeBase(ofStream: audioStream) : Rational(1)
    }

    func drain(_ enc: Encoder, stream: Int) throws {
        let timeBase = stream == videoStream ? videoTimeBase : audioTimeBase
        while case .got = try enc.receive(into: packet) {
            packet.streamIndex = stream
            packet.rescaleTimestamps(from: enc.timeBase, to: timeBase)
            try muxer.write(packet)
        }
    }

    func send(_ frame: Frame) throws {
        while try !video.send(frame) { try drain(video, stream: videoStream) }
        try drain(video, stream: videoStream)
    }

    /// The tone up to sample `sampleLimit` (at most the clip's length).
    func writeAudio(upTo sampleLimit: Int64) throws {
        guard let a = audio else { return }
        let chunk = a.frameSize > 0 ? a.frameSize : 1024
        while samplesWritten < Swift.min(sampleLimit, totalSamples) {
            let n = Int(Swift.min(Int64(chunk), totalSamples - samplesWritten))
            let af = try Frame(samples: n, sampleRate: sampleRate, channels: 2, format: a.sampleFormat)
            for ch in 0..<2 {
                af.withPlane(ch) { ptr, _ in
                    ptr.withMemoryRebound(to: Float.self, capacity: n) { p in
                        for i in 0..<n { p[i] = tone.sample(samplesWritten + Int64(i)) }
                    }
                }
            }
            af.pts = samplesWritten
            samplesWritten += Int64(n)
            while try !a.send(af) { try drain(a, stream: audioStream) }
            try drain(a, stream: audioStream)
        }
    }

    /// The rest of the tone, both encoders flushed, the file finished.
    func finish() throws {
        try writeAudio(upTo: totalSamples)
        _ = try video.send(nil)
        try drain(video, stream: videoStream)
        if let a = audio {
            _ = try a.send(nil)
            try drain(a, stream: audioStream)
        }
        try muxer.finish()
    }
}
