import Foundation
import SlomoCore
import SlomoFFmpeg

/// `slomo retime`: video packets copied bit for bit with retimed timestamps (variable frame
/// rate output), audio through the time-pitch engine, the map stored as slomo metadata.
public struct RetimeRequest: Sendable {
    public var input: String
    public var output: String
    public var spec: RetimeSpec
    public var pitch: String = "spectral"
    public var audio = true
    /// `--audio-codec`: `auto` (the source's codec where possible, else AAC) or a name from
    /// `AudioCodecChoice.named`.
    public var audioCodec = "auto"
    /// `--audio-stream`: the audio streams kept, by index; empty: every audio stream.
    public var audioStreams: [Int] = []
    public var overwrite = false
    /// Read segments on the original timing when the input was retimed by slomo before.
    public var fromOriginal = true
    /// `--real-time`: the spec's rates are relative to real time (a phone's capture rate metadata).
    public var realTime = false
    /// Stored as `slomo_job` metadata so a batch re-run can tell a finished output from another.
    public var jobKey: String?
    /// `--start`/`--end`: the part of the source kept, to the frame (`CopyWindow`).
    public var trim = SourceTrim()
    public init(input: String, output: String, spec: RetimeSpec) {
        self.input = input
        self.output = output
        self.spec = spec
    }
}

public struct RetimeReport: Codable, Sendable {
    public var input: String
    public var output: String
    public var videoPackets: Int
    public var sourceDuration: Rational
    public var outputDuration: Rational
    public var outputTimeBase: Rational
    /// True when some timestamps had to be rounded to the output time base (e.g. Matroska's 1 ms).
    public var timestampsRounded: Bool
    public var averageFrameRate: Rational
    public var audioFrames: Int64?
    /// The encoder that wrote the audio (`aac`, `flac`…), nil without audio.
    public var audioCodec: String?
    /// Audio tracks written (every audio stream of the source unless `--audio-stream` chose).
    public var audioTracks = 0
    /// The source's streams the output does not carry, one sentence each (subtitles, timecode…).
    public var droppedStreams: [String] = []
    /// The source's display rotation in degrees when the output container cannot store it
    /// (Matroska, NUT): the output plays unrotated.
    public var rotationDropped: Double?
    /// What became of a phone's capture-rate tag (`com.android.capture.fps`): kept where the
    /// output plays at one speed against real time, else left out.
    public var captureRateTag: String?
    public var mappings: [PlanReport.Mapping]
    /// `--start`/`--end`: the part of the source copied, to the frame.
    public var trim: Trim?
    /// Signs of a damaged or truncated input, one sentence each: the retime went on with the
    /// packets that are there (empty when the input was whole).
    public var damage: [String] = []
    /// Per audio track, in order: its packets copied from the source and encoded.
    public var audioPackets: [AudioPackets] = []
}

extension RetimeReport {
    /// How one audio track was written: the source's packets copied unchanged where the map plays
    /// them at rate 1, the rest rendered and encoded (`AudioSplicePlan`).
    public struct AudioPackets: Codable, Sendable {
        /// The source's audio stream.
        public var stream: Int
        public var copied: Int
        public var encoded: Int
        /// The largest shift of copied audio from the map's time (seconds, under half a codec frame):
        /// the copies after a change sit on the codec's frame grid.
        public var shift: Rational
        /// Why no packet was copied; nil when some were.
        public var encodedWhole: String?
    }

    public struct Trim: Codable, Sendable {
        /// The part of the source kept (from the frame on screen at `--start` to the end of the last
        /// frame before `--end`), source seconds from the first frame.
        public var sourceStart: Rational
        public var sourceEnd: Rational
        /// The keyframe the copy starts at, and the frames between it and `sourceStart`: copied,
        /// placed before time 0 and hidden by the MP4/MOV edit list.
        public var keyframe: Rational
        public var prerollFrames: Int
    }
}

public enum Retimer {
    /// The retimed audio of stream `stream` of `input` through `map` with the time-pitch algorithm
    /// named `pitch` (`--pitch`), aligned so that map source time 0 is media time `origin`.
    static func audioSource(_ input: String, stream: Int, map: RetimeMap, pitch: String, origin: Rational) throws -> TimePitchAudioSource {
        try TimePitchAudioSource(
            path: input, streamIndex: stream, map: map, algorithm: try TimePitchAlgorithm(parsing: pitch),
            sourceOrigin: origin)
    }

    /// `slomo retime`: each packet's exact output times (`RetimedPacketTimes`), then the packets
    /// copied with them (`copyPackets`) and the time-pitch audio interleaved.
    /// Progress: (video packets copied, total).
    public static func retime(_ r: RetimeRequest, progress: ((Int64, Int64) -> Void)? = nil) throws -> RetimeReport {
        try MediaInput.checkInput(r.input)
        let formatName = try ContainerFormat.forOutput(r.output, webm: true)
        let timeline = try MediaTimeline(path: r.input)
        let (map, stored) = try timeline.resolve(r.spec, fromOriginal: r.fromOriginal, pitch: r.pitch, audio: r.audio, realTime: r.realTime)
        let window = try CopyWindow.make(timeline, trim: r.trim, map: map, container: formatName)
        let times = try RetimedPacketTimes(timeline: timeline, map: map, stored: stored, fromOriginal: r.fromOriginal, window: window)
        let demuxer = try MediaInput.openInput(r.input)

        let out = try OutputFile(path: r.output, overwrite: r.overwrite, inputs: [r.input])
        let muxer = try Muxer(path: out.temporaryPath, formatName: formatName, name: r.output)
        let vOut = try muxer.addStream(copying: timeline.video, from: demuxer, timeBase: times.timeBase, frameRate: times.averageRate)
        let audio = try RetimedOutput.finishHeader(
            muxer, demuxer: demuxer, timeline: timeline, video: vOut, map: map, stored: stored,
            .init(
                input: r.input, output: r.output, command: "retime", audio: r.audio, audioStreams: r.audioStreams,
                pitch: r.pitch, audioCodec: r.audioCodec, jobKey: r.jobKey, reencoded: false, window: window?.target,
                copyAudio: true))
        let outTB = muxer.timeBase(ofStream: vOut)
        var ticks = try times.ticks(in: outTB)
        demuxer.keepOnly(streams: [timeline.video])
        let reader = MediaTimeline.Reader(demuxer, damage: timeline.damage)
        let total = Int64(ticks.pts.count)
        var done: Int64 = 0
        let copied = try copyPackets(
            reader, video: timeline.video, to: vOut, of: muxer, times: times, ticks: &ticks, outTB: outTB,
            packets: window?.packets
        ) { dts in
            try audio.write(upTo: Rational(ticks: dts, timeBase: outTB))
            done += 1
            progress?(done, total)
        }
        try audio.finish()
        try muxer.finish()
        try out.commit()
        var report = RetimeReport(
            input: r.input, output: r.output, videoPackets: copied, sourceDuration: timeline.duration,
            outputDuration: window?.target.duration ?? map.target.duration, outputTimeBase: outTB, timestampsRounded: ticks.rounded,
            averageFrameRate: times.averageRate, audioFrames: audio.framesWritten,
            mappings: map.mappings.map {
                .init(
                    sourceStart: $0.source.start, sourceEnd: $0.source.end,
                    targetStart: $0.target.start, targetEnd: $0.target.end, rate: $0.rate)
            })
        report.damage = reader.damage
        report.trim = window.map { .init(sourceStart: $0.source.start, sourceEnd: $0.source.end, keyframe: $0.keyframe, prerollFrames: $0.preroll) }
        report.audioCodec = audio.codecs.first
        report.audioTracks = audio.writers.count
        report.audioPackets = audio.packets
        report.droppedStreams = audio.dropped
        report.captureRateTag = audio.captureRateTag
        report.rotationDropped = RetimedOutput.droppedRotation(timeline.info.rotation, muxer: muxer)
        return report
    }

    /// Copies the video packets in order with their mapped times (those of `packets`, file indices
    /// in order, when given: a `CopyWindow`); `beforeWrite` gets each packet's output dts first
    /// (the audio is written up to it). Returns the packets copied.
    static func copyPackets(
        _ reader: MediaTimeline.Reader, video: Int, to vOut: Int, of muxer: Muxer, times: RetimedPacketTimes,
        ticks: inout RetimedPacketTimes.Ticks, outTB: Rational, packets: [Int]? = nil,
        beforeWrite: (Int64) throws -> Void
    ) throws -> Int {
        let packet = Packet()
        var lastDTS: Int64 = .min
        var index = 0, fileIndex = -1
        while index < ticks.pts.count, try reader.next(into: packet, after: fileIndex + 1) {
            guard packet.streamIndex == video else { continue }
            fileIndex += 1
            if let packets, packets[index] != fileIndex { continue }
            let mappedPTS = ticks.pts[index]
            var pts = mappedPTS, dts = ticks.dts[index]
            index += 1
            // only where rounding made two times equal (a coarse output time base)
            if dts <= lastDTS {
                dts = lastDTS + 1
                ticks.rounded = true
            }
            if pts < dts {
                pts = dts
                ticks.rounded = true
            }
            lastDTS = dts
            // duration: until the mapped end of this frame's source interval
            let p = packet.pts ?? packet.dts ?? 0
            if packet.duration > 0 {
                let end = try (times.mapped(p + packet.duration) - times.offset).ticks(in: outTB, rounding: .nearest)
                packet.duration = Swift.max(1, end - mappedPTS)
            }
            packet.pts = pts
            packet.dts = dts
            packet.streamIndex = vOut
            try beforeWrite(dts)
            try muxer.write(packet)
        }
        return index
    }
}

/// Retime's exact output time for every video packet, from the one pass `MediaTimeline` made:
/// through the new map, or, for a file slomo retimed before read on its original timing, through
/// the stored map composed with it. The output time base is one in which all of them are exact
/// where one exists (`OutputTimeBase`), else 1/90000.
struct RetimedPacketTimes {
    let timeBase: Rational
    let averageRate: Rational
    /// The output time of the window's start (zero without one): subtracted from every mapped time.
    let offset: Rational
    private let timeline: MediaTimeline
    private let map: RetimeMap, stored: RetimeMap
    private let fromOriginal: Bool
    private let originTicks: Int64
    /// The packets copied, by file index (all of them without a window).
    private let selected: [Int]?

    /// Per packet, in file order: pts and dts in the output time base; `rounded` when a time did not fit it.
    struct Ticks {
        var pts: [Int64]
        var dts: [Int64]
        var rounded: Bool
    }

    init(timeline: MediaTimeline, map: RetimeMap, stored: RetimeMap, fromOriginal: Bool, window: CopyWindow? = nil) throws {
        let origin = try timeline.originTicks()
        let offset = window?.target.start ?? .zero
        let mapped = { (ticks: Int64) in Self.mapped(ticks, timeline, map, stored, fromOriginal, origin) - offset }
        self.timeline = timeline
        self.map = map
        self.stored = stored
        self.fromOriginal = fromOriginal
        originTicks = origin
        selected = window?.packets
        self.offset = offset
        // (computed where needed, not kept: an hour at 30 fps is 108,000 packets, and memory should
        // not grow with the input — Docs/Reliability.md, long runs)
        let packets = Self.packets(timeline, selected)
        let allTimes = packets.lazy.flatMap { p in [mapped(p.pts)] + (p.dts.map { [mapped($0)] } ?? []) }
        let end = window?.target.duration ?? map.target.end
        timeBase = OutputTimeBase.exact(for: allTimes, and: [end]) ?? Rational(1, 90000)
        let shown = window.map { $0.packets.count - $0.preroll } ?? timeline.frameTimes.count
        averageRate = Rational(Int64(shown)) / (window?.target.duration ?? map.target.duration)
    }

    /// The packets copied, in file order.
    private static func packets(_ timeline: MediaTimeline, _ selected: [Int]?) -> AnyCollection<(pts: Int64, dts: Int64?, key: Bool)> {
        guard let selected else { return AnyCollection(timeline.packetTimes) }
        return AnyCollection(selected.lazy.map { timeline.packetTimes[$0] })
    }

    /// A source timestamp (the stream's ticks) on the output timeline.
    func mapped(_ ticks: Int64) -> Rational { Self.mapped(ticks, timeline, map, stored, fromOriginal, originTicks) }

    private static func mapped(
        _ ticks: Int64, _ timeline: MediaTimeline, _ map: RetimeMap, _ stored: RetimeMap,
        _ fromOriginal: Bool, _ originTicks: Int64
    ) -> Rational {
        let t = timeline.time(ofTicks: ticks, originTicks: originTicks)
        if fromOriginal, timeline.previousMap != nil {
            return stored.targetTime(forSource: timeline.originalTime(t))
        }
        return map.targetTime(forSource: t)
    }

    /// Every copied packet's times in `outTB` (the muxer's, which may differ from the one asked for).
    func ticks(in outTB: Rational) throws -> Ticks {
        var rounded = false
        let packets = Self.packets(timeline, selected)
        let pts = try packets.map { p in
            let t = mapped(p.pts) - offset
            let ticks = try t.ticks(in: outTB, rounding: .nearest)
            if Rational(ticks: ticks, timeBase: outTB) != t { rounded = true }
            return ticks
        }
        // (a decode time that does not fit the time base counts as absent: rebuilt from the pts)
        let dts = DecodeTimestamps.make(
            pts: pts,
            mappedDTS: packets.lazy.map { p in
                p.dts.flatMap { try? (mapped($0) - offset).ticks(in: outTB, rounding: .nearest) }
            })
        return Ticks(pts: pts, dts: dts, rounded: rounded)
    }
}
