import Foundation
import SlomoCore
import SlomoFFmpeg
import SlomoTimePitch

/// `slomo stretch`: an audio file through the time-pitch engine.
public struct StretchRequest: Sendable {
    public var input: String
    public var output: String
    public var spec: RetimeSpec
    public var pitch = "spectral"
    public var overwrite = false
    public init(input: String, output: String, spec: RetimeSpec) { self.input = input; self.output = output; self.spec = spec }
}

public struct StretchReport: Codable, Sendable {
    public var input: String
    public var output: String
    public var algorithm: String
    public var sampleRate: Int
    public var channels: Int
    public var inputFrames: Int64
    public var outputFrames: Int64
    /// The rates really played (zero-latency snaps).
    public var rates: [Rational]
    public var corruptPackets: Int
    public var elapsedSeconds: Double
}

public enum Stretch {
    static let codecs: [String: (format: String, codec: String)] = [
        "wav": ("wav", "pcm_s16le"), "flac": ("flac", "flac"), "m4a": ("ipod", "aac"), "aac": ("adts", "aac"),
        "mka": ("matroska", "flac"), "ogg": ("ogg", "flac"), "caf": ("caf", "pcm_s16le"), "mp4": ("mp4", "aac"),
    ]

    public static func run(_ r: StretchRequest) throws -> StretchReport {
        let t0 = Date()
        try Prober.checkInput(r.input)
        guard let algorithm = PitchAlgorithm(rawValue: r.pitch) else {
            throw SimpleFailure("--pitch '\(r.pitch)': expected \(PitchAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))", .usage)
        }
        let ext = URL(fileURLWithPath: r.output).pathExtension.lowercased()
        guard let (format, codec) = codecs[ext] else {
            throw SimpleFailure("\(r.output): unsupported audio output extension '.\(ext)' (use \(codecs.keys.sorted().joined(separator: ", ")))", .usage)
        }
        let d = try Prober.openInput(r.input)
        guard let a = d.bestStream(.audio) else { throw SimpleFailure("\(r.input): no audio stream", .dataError) }
        let info = d.streamInfo(a)
        // audio length from the packets (headers can be wrong)
        d.keepOnly(streams: [a])
        let p = Packet()
        var first: Int64?, end: Int64 = 0
        while try d.readPacket(into: p) {
            guard p.streamIndex == a, let t = p.pts ?? p.dts else { continue }
            first = Swift.min(first ?? t, t); end = Swift.max(end, t + p.duration)
        }
        guard let first, end > first else { throw SimpleFailure("\(r.input): the audio stream is empty", .dataError) }
        let origin = Rational(ticks: first, timeBase: info.timeBase)
        let duration = Rational(ticks: end - first, timeBase: info.timeBase)
        let map: RetimeMap
        do { map = try r.spec.resolve(duration: duration, frameRate: nil) } catch { throw SimpleFailure("\(r.input): \(error)", .usage) }
        for m in map.mappings { try algorithm.check(m.rate) }
        let source = try RetimedAudioSource(path: r.input, streamIndex: a, map: map, algorithm: algorithm, sourceOrigin: origin)
        let out = try OutputFile(path: r.output, overwrite: r.overwrite)
        let muxer = try Muxer(path: out.temporaryPath, formatName: format)
        let writer = try AudioTrackWriter(source: source, muxer: muxer, codec: codec, bitRate: 192_000, path: r.output)
        try muxer.writeHeader()
        writer.headerWritten()
        try writer.finish()
        try muxer.finish()
        try out.commit()
        return StretchReport(input: r.input, output: r.output, algorithm: algorithm.rawValue, sampleRate: source.sampleRate,
                             channels: source.channels, inputFrames: (duration * Rational(Int64(source.sampleRate))).rounded(.nearest),
                             outputFrames: writer.framesWritten, rates: map.mappings.map { algorithm.effectiveRate($0.rate) },
                             corruptPackets: source.corruptPackets, elapsedSeconds: Date().timeIntervalSince(t0))
    }
}
