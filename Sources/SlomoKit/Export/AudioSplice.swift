import Foundation
import SlomoCore
import SlomoFFmpeg

/// `retime`'s audio packet copy (#43): whether a track's packets can be copied into the output
/// (`refusal`), where they follow each other exactly (`runs`), and the track that copies them
/// (`track`). Export re-encodes its video and never copies audio.
///
/// Copying is exact only where an encoded packet can stand next to a copied one: AAC-LC, whose
/// packets are self-contained 1024-sample frames that overlap only their neighbour (the encoder
/// starts two frames early and its first kept packet completes the last copied one). FFmpeg's
/// encoder must write the same AudioSpecificConfig prefix (object type, rate, channels, frame
/// length) as the source. Other codecs are encoded whole: MP3's bit reservoir reaches into earlier
/// frames, Vorbis packets need the source's own codebooks, Opus and FLAC carry state or frame
/// numbers, and PCM is cheap to encode and loses nothing.
enum AudioSplice {
    /// Why `source`'s packets are not copied into an output that writes them with `choice`
    /// (`requested` being `--audio-codec`), or nil when they may be wherever the plan finds room.
    static func refusal(
        source: StreamInfo, requested: String, choice: AudioCodecChoice, algorithm: TimePitchAlgorithm,
        encoder: () throws -> Encoder
    ) -> String? {
        if requested != "auto" { return "--audio-codec \(requested) encodes the whole track" }
        if Encoder.codecName(ofEncoder: choice.encoder) != source.codecName {
            return "the output holds \(choice.encoder), not the source's \(source.codecName)"
        }
        if source.codecName != "aac" { return "\(source.codecName) is encoded whole (packets are copied for AAC)" }
        if source.profile != "LC" { return "\(source.profile ?? "unknown") AAC is encoded whole (the encoder writes AAC-LC)" }
        if algorithm == .mute { return "--pitch mute silences the whole track" }
        guard let e = try? encoder() else { return "the \(choice.encoder) encoder did not open" }
        guard source.frameSize > 0, e.frameSize == source.frameSize, e.initialPadding % source.frameSize == 0 else {
            return "the encoder's frames (\(e.frameSize) samples, \(e.initialPadding) of priming) do not fit the source's (\(source.frameSize))"
        }
        let config = { (b: [UInt8]) in b.prefix(2).map { String($0, radix: 16) }.joined(separator: " ") }
        guard source.extradata.count >= 2, e.extradata.prefix(2) == source.extradata.prefix(2) else {
            return "the encoder's AAC configuration (\(config(e.extradata))) differs from the source's (\(config(source.extradata)))"
        }
        return nil
    }

    /// Stream `stream`'s packets of `path` in runs that follow each other exactly, one codec frame
    /// (`frameSize` samples at `sampleRate`) each, placed on the source sample grid whose sample 0
    /// is media time `origin`. A run ends at a packet without a time, empty, marked corrupt or
    /// discarded or carrying skip samples (a stream's priming), and where the next packet is not
    /// where the last one ends (within one tick of a coarse time base such as Matroska's 1 ms:
    /// positions follow the count, not the rounded times). An MP4 or MOV that read whole
    /// (`whole`: no damage seen in its video) lists every packet in its index, read when the file
    /// opens: no pass over the file (packets past its end still end a run). Other files are read
    /// through, stopping quietly at a read error once packets were read (a truncated file: the
    /// copy never asks past what was read here). The copy checks each packet's time again.
    /// `opened`: the file, already open (its index is read, not its packets).
    static func runs(_ opened: Demuxer, stream: Int, origin: Rational, sampleRate: Int, frameSize: Int, whole: Bool) throws -> [AudioSplicePlan.PacketRun] {
        let path = opened.path
        var runs = Runs(timeBase: opened.streamInfo(stream).timeBase, origin: origin, sampleRate: sampleRate, frameSize: frameSize)
        let index = whole && opened.formatName.hasPrefix("mov,") ? opened.indexEntries(stream: stream) : []
        if !index.isEmpty {
            let size = ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int).map(Int64.init) ?? .max
            for e in index { runs.add(e.discard || e.size == 0 || e.position + Int64(e.size) > size ? nil : e.timestamp, duration: 0) }
            return runs.found
        }
        let d = try MediaInput.openInput(path)
        d.keepOnly(streams: [stream])
        let p = Packet()
        let reader = MediaTimeline.Reader(d)
        var read = 0
        while try reader.next(into: p, after: read) {
            guard p.streamIndex == stream else { continue }
            read += 1
            let usable = !p.isCorrupt && !p.isDiscarded && !p.hasSkipSamples && p.size > 0
            runs.add(usable ? p.pts ?? p.dts : nil, duration: p.duration)
        }
        return runs.found
    }

    /// Runs of packets that follow each other exactly, built one packet at a time (see `runs`).
    struct Runs {
        let timeBase: Rational, origin: Rational, sr: Rational, frame: Int64, tolerance: Int64
        private(set) var all: [AudioSplicePlan.PacketRun] = []
        private var index = 0, open = false

        /// The origin in samples when the time base is 1/sampleRate and the origin a whole sample
        /// (MP4's usual audio): positions are then plain subtractions.
        private let originSamples: Int64?

        init(timeBase: Rational, origin: Rational, sampleRate: Int, frameSize: Int) {
            self.timeBase = timeBase
            self.origin = origin
            sr = Rational(Int64(sampleRate))
            frame = Int64(frameSize)
            tolerance = Swift.max(1, (timeBase * sr).ceiling)
            let o = origin * sr
            originSamples = timeBase * sr == .one && o.isInteger ? o.numerator : nil
        }

        /// Source sample of a time in the stream's ticks.
        func position(_ ticks: Int64) -> Int64 {
            if let o = originSamples, case (let p, false) = ticks.subtractingReportingOverflow(o) { return p }
            return ((Rational(ticks: ticks, timeBase: timeBase) - origin) * sr).rounded(.nearest)
        }

        /// The next packet: its time (nil: unusable) and duration in ticks (0: unknown).
        mutating func add(_ time: Int64?, duration: Int64) {
            defer { index += 1 }
            guard let time else {
                open = false
                return
            }
            let pos = position(time)
            let fits = duration == 0 || abs((Rational(ticks: duration, timeBase: timeBase) * sr).rounded(.nearest) - frame) <= tolerance
            if open, let last = all.last, abs(pos - (last.start + Int64(last.count) * frame)) <= tolerance {
                all[all.count - 1].count += 1
            } else {
                all.append(AudioSplicePlan.PacketRun(first: index, count: 1, start: pos))
            }
            open = fits
        }

        /// The runs long enough to copy from (a run's first and last packets are never copied).
        var found: [AudioSplicePlan.PacketRun] { all.filter { $0.count > 2 } }
    }

    /// Stream `a`'s track with its packets copied where the plan finds room, or nil and why not.
    static func track(
        _ a: Int, choice: AudioCodecChoice, demuxer: Demuxer, muxer: Muxer, timeline: MediaTimeline, map: RetimeMap,
        input: String, output: String, pitch: String, window: TimeRange?, requested: String
    ) throws -> (SplicedAudioTrack?, String?) {
        let source = demuxer.streamInfo(a)
        let algorithm = try TimePitchAlgorithm(parsing: pitch)
        let settings = AudioEncoderSettings(
            codec: choice.encoder, sampleRate: source.sampleRate, channels: source.channels,
            bitRate: choice.bitRate, options: EncoderDefaults.audioOptions(choice.encoder), deep: choice.deep,
            layout: EncoderDefaults.keepsLayout(choice.encoder) ? source.channelLayout : nil)
        let globalHeader = muxer.wantsGlobalHeader
        let makeEncoder = { @Sendable () throws -> Encoder in try Encoder(path: output, audio: settings, globalHeader: globalHeader) }
        if let why = refusal(source: source, requested: requested, choice: choice, algorithm: algorithm, encoder: makeEncoder) {
            return (nil, why)
        }
        let runs = try runs(
            demuxer, stream: a, origin: timeline.origin, sampleRate: source.sampleRate, frameSize: source.frameSize,
            whole: timeline.damage.isEmpty)
        let plan = AudioSplicePlan(
            map: map, window: window, sampleRate: source.sampleRate, frameSize: source.frameSize,
            runs: runs, algorithm: algorithm)
        guard plan.copiedPackets > 0 else { return (nil, "no part played at rate 1 is long enough to copy a packet from") }
        let origin = timeline.origin
        let render = { @Sendable (e: AudioSplicePlan.Encode) throws -> any RetimedAudio in
            try TimePitchAudioSource(path: input, streamIndex: a, map: e.map, algorithm: algorithm, sourceOrigin: origin + e.sourceStart)
        }
        let grid = Runs(timeBase: source.timeBase, origin: timeline.origin, sampleRate: source.sampleRate, frameSize: source.frameSize)
        let track = try SplicedAudioTrack(
            plan: plan, input: input, source: source, grid: grid, demuxer: demuxer, muxer: muxer,
            encoderName: choice.encoder, render: render, makeEncoder: makeEncoder)
        return (track, nil)
    }
}
