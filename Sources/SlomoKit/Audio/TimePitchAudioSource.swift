import SlomoAudio
import SlomoCore

/// The best (or a given) audio stream of a file played through a retime map with a time-pitch
/// algorithm, pulled in planar Float blocks — what export, retime, play and `stretch` encode.
///
/// * Map source time 0 is absolute media time `sourceOrigin` (e.g. the first video frame's pts):
///   audio before it is dropped, gaps are silence.
/// * Output length is exactly `round(playedMap.target.duration × sampleRate)` frames, where
///   `playedMap` is `map` itself except for zero-latency, whose rates snap to its table (the
///   snapped map is exposed so that video can follow it).
/// * Each segment is exact to the sample (boundaries rounded from absolute times, so nothing
///   accumulates); each engine's latency is compensated so output frame k belongs to target time
///   `map.target.start + k / sampleRate`; rates change at the exact boundary frame with a 10 ms
///   crossfade centred on it.
/// * Streams with bounded memory; damaged packets are skipped and counted in `corruptPackets`.
///
/// Errors are `AudioFailure` (rate/range problems are bad requests, unusable audio bad data) or
/// `InputError` from the input checks. Not `Sendable`: use it from one thread.
public final class TimePitchAudioSource: RetimedAudio {
    public let algorithm: TimePitchAlgorithm
    public let plan: AudioRenderPlan
    private let source: any AudioFileSource
    private let renderer: AudioRenderer

    public convenience init(path: String, streamIndex: Int? = nil, map: RetimeMap, algorithm: TimePitchAlgorithm, sourceOrigin: Rational) throws {
        try MediaInput.checkInput(path)
        try self.init(source: AudioFiles.open(path: path, streamIndex: streamIndex, origin: sourceOrigin), map: map, algorithm: algorithm)
    }

    /// An already opened source (whose origin is the map's source time 0).
    public init(source: any AudioFileSource, map: RetimeMap, algorithm: TimePitchAlgorithm) throws {
        self.source = source
        self.algorithm = algorithm
        do {
            plan = try AudioRenderPlan(map: map, sampleRate: source.sampleRate, algorithm: algorithm)
        } catch {
            throw error.concerning(source.path, algorithm: algorithm)
        }
        renderer = TimePitchEngines.renderer(plan: plan, source: source)
    }

    public var sampleRate: Int { source.sampleRate }
    public var channels: Int { source.channels }
    /// FFmpeg's name of the input's channel layout ("stereo", "5.1", …), kept for the output.
    public var channelLayout: String? { source.channelLayout }
    public var totalFrames: Int64 { plan.totalFrames }
    /// The map really played (zero-latency: rates snapped).
    public var playedMap: RetimeMap { plan.playedMap }
    /// Damaged packets skipped so far.
    public var corruptPackets: Int { source.corruptPackets }
    /// Largest algorithmic latency (input frames) of the engines used so far — already compensated.
    public var latencyFrames: Int { renderer.latencyFrames }
    /// Output frames delivered so far.
    public var position: Int64 { renderer.position }

    /// Up to `maxFrames` output frames, planar (channels × n); nil at the end.
    public func read(maxFrames: Int) throws -> [[Float]]? {
        do { return try renderer.read(maxFrames: maxFrames) } catch let e as AudioFailure {
            throw AudioFailure(e.code, subject: source.path, operation: e.operation, cause: e.cause)
        }
    }

    /// Algorithmic latency of `algorithm` at `rate` in frames at `sampleRate`, without opening a file
    /// (zero-latency: ≤ 10 ms by design; the others as their engines report).
    public static func latency(of algorithm: TimePitchAlgorithm, rate: Rational, sampleRate: Int, channels: Int = 1) throws -> Int {
        let played = try algorithm.playedRate(for: rate)
        if played == .one || algorithm == .mute { return 0 }
        return try TimePitchEngines.make(algorithm, rate: played, sampleRate: sampleRate, channels: channels).latency
    }
}
