import Foundation
import SlomoCore
import SlomoFFmpeg
import SlomoAudio

/// An audio track export and retime write beside the video, caught up to the video as it goes.
protocol RetimedTrack: AnyObject {
    var streamIndex: Int { get }
    /// The encoder of its encoded packets.
    var codecName: String { get }
    var framesWritten: Int64 { get }
    var copiedPackets: Int { get }
    var encodedPackets: Int { get }
    /// The largest shift of copied audio from the map's time (seconds; zero without copies).
    var largestShift: Rational { get }
    /// Call after `writeHeader`.
    func headerWritten()
    func writeTrack(upTo time: Rational) throws
    func finishTrack() throws
}

extension AudioTrackWriter: RetimedTrack {
    var codecName: String { encoder.codecName }
    var copiedPackets: Int { 0 }
    var encodedPackets: Int { packetsWritten }
    var largestShift: Rational { .zero }
    func writeTrack(upTo time: Rational) throws { try write(upTo: time) }
    func finishTrack() throws { try finish() }
}

extension SplicedAudioTrack: RetimedTrack {
    var largestShift: Rational { plan.largestShift }
    func writeTrack(upTo time: Rational) throws { try write(upTo: time) }
    func finishTrack() throws { try finish() }
}

/// What export and retime write beside their video: every audio track retimed alike, the
/// source's metadata with slomo's own beside it, the header; and what the output cannot keep.
enum RetimedOutput {
    /// What the video stream is next to: the request's audio and naming.
    struct Request {
        var input: String
        var output: String
        var command: String
        /// False: `--no-audio`.
        var audio: Bool
        /// `--audio-stream`: the audio streams to keep; empty: every one.
        var audioStreams: [Int]
        var pitch: String
        var audioCodec: String
        var jobKey: String?
        /// The video is re-encoded (export): the source's encoder names and a sensor-mosaic tag
        /// no longer describe it.
        var reencoded: Bool
        /// `--start`/`--end`: the output is this part of the target timeline (from its start).
        var window: TimeRange? = nil
        /// The output's constant frame rate (export); nil: every source frame kept (retime).
        var outputFrameRate: Rational? = nil
        /// Retime: copy the source's audio packets where the map plays them at rate 1 (`AudioSplice`).
        var copyAudio = false
    }

    /// The audio tracks written and the source's streams left out, one sentence each.
    struct Tracks {
        var writers: [any RetimedTrack]
        var dropped: [String]
        /// What became of a phone's capture-rate tag (`com.android.capture.fps`), one sentence.
        var captureRateTag: String? = nil
        /// Per track: the source stream, and why every packet is encoded (nil when some are copied).
        var origins: [(stream: Int, encodedWhole: String?)] = []

        /// Writes every track up to `time` on the output timeline.
        func write(upTo time: Rational) throws { for w in writers { try w.writeTrack(upTo: time) } }
        func finish() throws { for w in writers { try w.finishTrack() } }
        /// Frames written to the first track (every track has the same length).
        var framesWritten: Int64? { writers.first?.framesWritten }
        var codecs: [String] { writers.map(\.codecName) }
        /// Per track: packets copied and encoded (after `finish`).
        var packets: [RetimeReport.AudioPackets] {
            zip(writers, origins).map { w, o in
                RetimeReport.AudioPackets(
                    stream: o.stream, copied: w.copiedPackets, encoded: w.encodedPackets,
                    shift: w.largestShift, encodedWhole: o.encodedWhole)
            }
        }
    }

    /// After the video stream `video`: each audio track (codec chosen, or refused, before any
    /// source is opened; language, title and disposition kept), the source's container metadata
    /// (creation time, title, make and model, location…) with slomo's own tags over it (the map as
    /// `slomo_retime`, read back by probe and by a second retime; the source's name and rate; the
    /// batch job key), then the header (MP4/MOV keep every tag as a metadata atom).
    static func finishHeader(
        _ muxer: Muxer, demuxer: Demuxer, timeline: MediaTimeline, video: Int, map: RetimeMap,
        stored: RetimeMap, _ r: Request
    ) throws -> Tracks {
        copyStreamMetadata(muxer, demuxer, from: timeline.video, to: video, reencoded: r.reencoded)
        let chosen = r.audio ? try audioStreams(r.audioStreams, demuxer: demuxer) : []
        var writers: [any RetimedTrack] = [], origins: [(Int, String?)] = [], undecodable: [String] = [], firstFailure: Error?
        for a in chosen {
            let choice = try AudioCodecChoice.resolve(r.audioCodec, source: demuxer.streamInfo(a), muxer: muxer, output: r.output)
            let w: any RetimedTrack, why: String?
            do { (w, why) = try track(a, choice: choice, demuxer: demuxer, muxer: muxer, timeline: timeline, map: map, r) } catch let e as AudioFailure
                where r.audioStreams.isEmpty && chosen.count > 1 && [.unsupportedFormat, .decodeFailed, .emptyAudio].contains(e.code)
            {
                // one of several tracks this FFmpeg cannot decode (a phone's spatial audio): the
                // others are kept and this one is named; a track asked for by number fails the job
                undecodable.append(
                    droppedSentence(demuxer.streamInfo(a)).replacingOccurrences(of: ": this kind of stream is not retimed", with: "")
                        + ": it cannot be decoded (\(e.cause))")
                firstFailure = firstFailure ?? e
                continue
            }
            copyStreamMetadata(muxer, demuxer, from: a, to: w.streamIndex, reencoded: true)
            writers.append(w)
            origins.append((a, why))
        }
        let mov = muxer.isISOMedia
        let captureKey = timeline.captureRate?.source
        muxer.copyMetadata(from: demuxer) {
            staleContainerKey($0.lowercased(), reencoded: r.reencoded) || $0.lowercased() == captureKey ? nil : outputKey($0, mov: mov)
        }
        let captureRateTag = timeline.captureRate.map { writeCaptureRate($0, muxer, map: map, r) }
        if let window = r.window {
            // a part of the source: its map does not start at the source's start, and a later
            // retime must not read it as the original timing
            muxer.setMetadata(SlomoTag.trim.rawValue, "\(window.start)-\(window.end)")
        } else {
            muxer.setMetadata(MediaTimeline.retimeKey, try MediaTimeline.retimeTag(stored))
        }
        muxer.setMetadata(SlomoTag.source.rawValue, URL(fileURLWithPath: r.input).lastPathComponent)
        if let fr = timeline.frameRate { muxer.setMetadata(SlomoTag.sourceFrameRate.rawValue, fr.description) }
        muxer.setMetadata("encoder", "slomo \(r.command)")
        if let jobKey = r.jobKey { muxer.setMetadata(SlomoTag.job.rawValue, jobKey) }
        try muxer.writeHeader(options: muxer.isISOMedia ? ["movflags": "+use_metadata_tags"] : [:])
        for w in writers { w.headerWritten() }
        if writers.isEmpty, let firstFailure { throw firstFailure }
        let kept = Set([timeline.video] + chosen)
        let dropped = demuxer.streams.filter { !kept.contains($0.index) && !($0.kind == .audio && (!r.audio || !r.audioStreams.isEmpty)) }
        return Tracks(writers: writers, dropped: undecodable + dropped.map(droppedSentence), captureRateTag: captureRateTag, origins: origins)
    }

    /// A phone's capture-rate tag as it describes the output: rewritten where the output plays at
    /// one speed against real time, else left out (the source's value kept as
    /// `slomo_source_capture_fps`): a player that trusts it would show the wrong speed.
    static func writeCaptureRate(_ c: CaptureRate, _ muxer: Muxer, map: RetimeMap, _ r: Request) -> String {
        let before = Seconds(c.captureFrameRate, decimals: 6)
        guard let fps = c.outputCaptureRate(map: map, window: r.window, outputFrameRate: r.outputFrameRate) else {
            muxer.setMetadata(SlomoTag.sourceCaptureFps.rawValue, before.description)
            return "\(c.source) \(before) left out: the output's speed against real time varies (slomo_source_capture_fps keeps the source's)"
        }
        let after = Seconds(fps, decimals: 6)
        muxer.setMetadata(c.source, after.description)
        let speed = r.outputFrameRate.map { $0 / fps } ?? (c.storedFrameRate * (map.mappings.first?.rate ?? .one)) / fps
        return "\(c.source) \(before) → \(after): the output plays at \(speed) of real time"
    }

    /// Stream `a`'s output track: its packets copied where the map plays them at rate 1 (retime,
    /// `AudioSplice`), else rendered and encoded whole, with why.
    private static func track(
        _ a: Int, choice: AudioCodecChoice, demuxer: Demuxer, muxer: Muxer, timeline: MediaTimeline,
        map: RetimeMap, _ r: Request
    ) throws -> (any RetimedTrack, String?) {
        var why: String? = nil
        if r.copyAudio {
            let spliced: SplicedAudioTrack?
            (spliced, why) = try AudioSplice.track(
                a, choice: choice, demuxer: demuxer, muxer: muxer, timeline: timeline, map: map,
                input: r.input, output: r.output, pitch: r.pitch, window: r.window, requested: r.audioCodec)
            if let spliced { return (spliced, nil) }
        }
        var source: any RetimedAudio = try Retimer.audioSource(r.input, stream: a, map: map, pitch: r.pitch, origin: timeline.origin)
        if let window = r.window {
            let sr = Rational(Int64(source.sampleRate))
            let skip = (window.start * sr).rounded(.nearest), end = (window.end * sr).rounded(.nearest)
            source = TrimmedAudio(source, skip: skip, length: end - skip)
        }
        let w = try AudioTrackWriter(
            source: RenderAheadAudio(source), muxer: muxer, codec: choice.encoder,
            bitRate: choice.bitRate, path: r.output, deep: choice.deep)
        return (w, why)
    }

    /// The audio streams to write: those asked for (each checked, in the order given, each once),
    /// else every audio stream of the file in its order.
    static func audioStreams(_ requested: [Int], demuxer: Demuxer) throws -> [Int] {
        guard !requested.isEmpty else { return demuxer.streams.filter { $0.kind == .audio }.map(\.index) }
        var out: [Int] = []
        for n in requested where !out.contains(n) {
            do { out.append(try AudioFiles.audioStream(of: demuxer, requested: n)) } catch {
                throw SettingError(.audioStreams, String(n), "\(error.cause)")
            }
        }
        return out
    }

    /// A stream's tags and disposition onto its output stream, less the stale ones. MP4 and MOV
    /// keep a track's name as its handler name: a title (from Matroska) goes there when the
    /// source gave none.
    static func copyStreamMetadata(_ muxer: Muxer, _ demuxer: Demuxer, from source: Int, to index: Int, reencoded: Bool) {
        let mov = muxer.isISOMedia
        muxer.copyStreamMetadata(from: demuxer, stream: source, to: index) {
            staleStreamKey($0.lowercased(), reencoded: reencoded) ? nil : outputKey($0, mov: mov)
        }
        if mov, muxer.metadata("handler_name", ofStream: index) == nil, let title = muxer.metadata("title", ofStream: index) {
            muxer.setMetadata("handler_name", title, ofStream: index)
        }
    }

    /// A key as the output writes it: Matroska's demuxer gives tags in capitals
    /// (`COM.APPLE.QUICKTIME.MAKE`); MP4 and MOV write keys as they are, and Apple's and Android's
    /// readers look for them in lower case.
    static func outputKey(_ key: String, mov: Bool) -> String {
        mov && key == key.uppercased() && key != key.lowercased() ? key.lowercased() : key
    }

    /// Container tags the output must not repeat: the brands the MP4 demuxer reports (the muxer
    /// writes its own), the writing software (slomo's `encoder` replaces it), an earlier job's key,
    /// and, once the video is re-encoded and coloured, a capture's sensor mosaic.
    static func staleContainerKey(_ key: String, reencoded: Bool) -> Bool {
        // (slomo's own map and trim tags are written anew for this output, never copied)
        ["major_brand", "minor_version", "compatible_brands", "encoder", SlomoTag.job.rawValue, MediaTimeline.retimeKey, SlomoTag.trim.rawValue].contains(key)
            || (reencoded && key == SlomoTag.cfaPattern.rawValue)
    }

    /// Stream tags that describe the old stream, not the new one: Matroska's statistics (duration,
    /// frame and byte counts, bit rate; mkvmerge writes them, possibly per language as `DURATION-eng`)
    /// and, for a stream slomo encodes, the old encoder's name.
    static func staleStreamKey(_ key: String, reencoded: Bool) -> Bool {
        let base = key.split(separator: "-").first.map(String.init) ?? key
        return ["duration", "number_of_frames", "number_of_bytes", "bps"].contains(base) || key.hasPrefix("_statistics")
            || (reencoded && base == "encoder")
    }

    /// One stream left out, as a sentence: which, what it is, why.
    static func droppedSentence(_ s: StreamInfo) -> String {
        var what = "stream \(s.index) (\(s.kind.rawValue), \(s.codecName)"
        if let lang = s.metadata["language"], lang != "und" { what += ", \(lang)" }
        if let title = s.metadata["title"] ?? s.metadata["handler_name"] { what += ", '\(title)'" }
        what += ")"
        switch s.kind {
        case .video: return "\(what): only one video stream is retimed"
        case .subtitle: return "\(what): subtitles are not retimed"
        case .attachment: return "\(what): attachments are not carried"
        default: return "\(what): \(s.kind == .data ? "timed data (timecode, sensor metadata)" : "this kind of stream") is not retimed"
        }
    }

    /// `rotation` when it is not a whole turn and `muxer`'s container cannot store it.
    static func droppedRotation(_ rotation: Double?, muxer: Muxer) -> Double? {
        guard let r = rotation, r.truncatingRemainder(dividingBy: 360) != 0, !muxer.storesDisplayMatrix else { return nil }
        return r
    }
}
