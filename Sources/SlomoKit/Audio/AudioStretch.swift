import Foundation
import SlomoAudio
import SlomoCore
import SlomoFFmpeg

/// `slomo stretch IN -o OUT`: an audio file (or the audio of any media file) through the
/// time-pitch engine, written in the format its extension names.
public struct AudioStretchRequest: Sendable {
    public var input: String
    public var output: String
    public var spec: RetimeSpec
    public var algorithm: TimePitchAlgorithm
    public var overwrite: Bool
    /// nil: the best audio stream.
    public var streamIndex: Int?

    public init(
        input: String, output: String, spec: RetimeSpec, algorithm: TimePitchAlgorithm = .spectral,
        overwrite: Bool = false, streamIndex: Int? = nil
    ) {
        self.input = input
        self.output = output
        self.spec = spec
        self.algorithm = algorithm
        self.overwrite = overwrite
        self.streamIndex = streamIndex
    }
}

/// What `stretch --json` prints (stable keys).
public struct AudioStretchReport: Codable, Sendable {
    public var input: String
    public var output: String
    public var algorithm: String
    public var sampleRate: Int
    public var channels: Int
    public var channelLayout: String?
    /// Source frames covered by the map (`round(duration × sampleRate)`).
    public var inputFrames: Int64
    public var outputFrames: Int64
    /// Rates asked for and rates played, one per segment (they differ only for zero-latency).
    public var requestedRates: [Rational]
    public var rates: [Rational]
    public var latencyFrames: Int
    public var corruptPackets: Int
    public var seconds: Double
}

public enum AudioStretch {
    /// Output extension → (muxer, encoder).
    public static let formats: [String: (format: String, codec: String)] = [
        "wav": ("wav", "pcm_s16le"), "flac": ("flac", "flac"), "aiff": ("aiff", "pcm_s16be"), "aif": ("aiff", "pcm_s16be"),
        "caf": ("caf", "pcm_s16le"), "m4a": ("ipod", "aac"), "mp4": ("mp4", "aac"), "aac": ("adts", "aac"),
        "mka": ("matroska", "flac"), "mkv": ("matroska", "flac"), "ogg": ("ogg", "flac"), "mp3": ("mp3", "libmp3lame"),
        "au": ("au", "pcm_s16be"),
    ]

    public static func run(_ r: AudioStretchRequest) throws -> AudioStretchReport {
        let clock = ContinuousClock.now
        try MediaInput.checkInput(r.input)
        let ext = URL(fileURLWithPath: r.output).pathExtension.lowercased()
        guard let (format, codec) = formats[ext] else {
            throw StretchError.outputFormat(output: r.output, ext: ext, known: formats.keys.sorted())
        }
        // a plain WAV file is measured from its header and read without FFmpeg (WAVFileSource)
        let wav = AudioFiles.wav(path: r.input, streamIndex: r.streamIndex, origin: .zero)
        let (origin, duration) =
            try wav.map { (Rational.zero, Rational($0.frames, Int64($0.sampleRate))) }
            ?? measure(r.input, stream: r.streamIndex)
        let map: RetimeMap
        do { map = try r.spec.resolve(duration: duration, frameRate: nil) } catch {
            throw FileRetimeError(r.input, error)
        }
        // rate/range errors come from the source, before anything is written
        // (the input was checked above and is not WAV when `wav` is nil: neither is done again)
        let opened: any AudioFileSource = try wav ?? DecodedAudioSource(path: r.input, streamIndex: r.streamIndex, origin: origin)
        let source = try TimePitchAudioSource(source: opened, map: map, algorithm: r.algorithm)
        let out = try OutputFile(path: r.output, overwrite: r.overwrite, inputs: [r.input])
        let framesWritten: Int64
        if codec == "pcm_s16le", format == "wav", source.channels <= 2,
            WAV.header16(channels: source.channels, sampleRate: source.sampleRate, frames: source.totalFrames) != nil
        {
            // the same 16-bit samples FFmpeg's encoder would write, without loading FFmpeg; no
            // render-ahead thread: writing PCM costs too little to be worth the hand-over
            let file = try WAVFileWriter(path: out.temporaryPath, channels: source.channels, sampleRate: source.sampleRate)
            file.name = r.output
            while let b = try source.read(maxFrames: AudioTrackWriter.readFrames) { try file.append(b) }
            try file.finish()
            framesWritten = file.framesWritten
        } else {
            let muxer = try Muxer(path: out.temporaryPath, formatName: format, name: r.output)
            let writer = try AudioTrackWriter(source: RenderAheadAudio(source), muxer: muxer, codec: codec, bitRate: 192_000, path: r.output)
            try muxer.writeHeader()
            writer.headerWritten()
            try writer.finish()
            try muxer.finish()
            framesWritten = writer.framesWritten
        }
        try out.commit()
        let elapsed = ContinuousClock.now - clock
        return AudioStretchReport(
            input: r.input, output: r.output, algorithm: r.algorithm.rawValue, sampleRate: source.sampleRate,
            channels: source.channels, channelLayout: source.channelLayout,
            inputFrames: (duration * Rational(Int64(source.sampleRate))).rounded(.nearest), outputFrames: framesWritten,
            requestedRates: source.plan.segments.map(\.requestedRate), rates: source.plan.segments.map(\.rate),
            latencyFrames: source.latencyFrames, corruptPackets: source.corruptPackets,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }

    /// Start and duration of the audio stream.
    ///
    /// Start: the stream's start time, which libavformat derives with the codec's priming already
    /// skipped (an AAC stream in MP4 has a first packet at −1024 samples whose decoded frame the
    /// decoder trims and stamps 0), else the first packet. Duration: the declared duration (an MP4
    /// edit list ends the audio before the last frame's padding) when the packets really reach it,
    /// else up to the end of the last packet (headers can be missing or wrong).
    static func measure(_ path: String, stream: Int?) throws -> (origin: Rational, duration: Rational) {
        let d = try MediaInput.openInput(path)
        let a = try AudioFiles.audioStream(of: d, requested: stream)
        let info = d.streamInfo(a)
        d.keepOnly(streams: [a])
        let p = Packet()
        var first: Int64?, end: Int64 = .min
        while true {
            let more: Bool
            do { more = try d.readPacket(into: p) } catch { break }  // damaged tail: what was read so far
            guard more else { break }
            guard p.streamIndex == a, let t = p.pts ?? p.dts else { continue }
            first = Swift.min(first ?? t, t)
            end = Swift.max(end, t + p.duration)
        }
        guard let first, end > first else {
            throw AudioFailure(.emptyAudio, subject: path, operation: "read audio stream \(a)", cause: "the audio stream is empty")
        }
        let start = info.startTicks.map { Swift.max($0, first) } ?? first
        var stop = end
        if let declared = info.durationTicks, declared > 0, start + declared <= end { stop = start + declared }
        guard stop > start else {
            throw AudioFailure(.emptyAudio, subject: path, operation: "read audio stream \(a)", cause: "the audio stream is empty")
        }
        return (Rational(ticks: start, timeBase: info.timeBase), Rational(ticks: stop - start, timeBase: info.timeBase))
    }
}

/// `stretch` asked for an output it cannot write.
public enum StretchError: SlomoFailure, Sendable, Equatable {
    /// No audio format for the output's extension; `known` lists those there are.
    case outputFormat(output: String, ext: String, known: [String])

    public var kind: FailureKind { .badRequest }
    public var wording: Wording {
        switch self {
        case .outputFormat(let output, let ext, let known):
            return "\(output): cannot write audio as '.\(ext)' (use .\(known.joined(separator: ", .")))"
        }
    }
}
