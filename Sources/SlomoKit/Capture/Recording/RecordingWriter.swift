import Foundation
#if canImport(Glibc)
    import SlomoSystem
#endif
import SlomoCore
import SlomoFFmpeg

/// Writes camera frames to a crash-safe file: fragmented MP4/MOV (a fragment at least every second,
/// each flushed to disk) or Matroska/NUT written as it goes; timestamps in microseconds from the
/// first frame (kernel times kept exactly); compressed formats copied, raw formats encoded.
/// `prepare()` opens the encoder (and so loads FFmpeg) before the camera streams.
final class RecordingWriter {
    let settings: RecordingSettings
    let format: CaptureFormat
    let sourceName: String
    /// Made by `prepare()` (no file yet: `Muxer` opens it in `writeHeader`), its header written on the first frame.
    private var muxer: Muxer?
    private var headerWritten = false
    /// The camera's plane layout (padded rows, plane offsets), computed once.
    private var layout: PlaneLayout?
    private var encodedSize = (width: 0, height: 0)
    private var encoder: Encoder?
    private var scaler = Scaler()
    private var stream = 0
    private var streamTB = Rational(1, 1_000_000)
    private var first: Rational?
    private var lastDTS: Int64 = .min
    private let packet = Packet()
    /// The camera's samples as FFmpeg names them, and what the encoder is given.
    private let sourcePixels: PixelFormat?
    /// Which of the camera's frames stand alone (looked up once, not per frame).
    private let keyframes: CapturePixelFormat.Keyframes
    private(set) var storedPixels: PixelFormat?
    private(set) var framesWritten: Int64 = 0
    /// Container metadata added when the file opens (a shot's trigger facts, known after the writer was made).
    var metadata: [String: String] = [:]
    private(set) var bytesWritten: Int64 = 0
    /// The sound card recorded next to the camera (`--audio`): set before the first frame.
    var audio: AudioCapture?
    private var audioTrack: AudioTrackWriter?
    private(set) var capturedAudio: CapturedAudio?
    /// Kernel time of the latest frame written (the sound ends with it).
    private var lastTimestamp: Rational?
    /// `fdatasync`s done, their total and longest time (µs), and why syncing stopped (a file system that refuses it).
    private(set) var syncs = FileSyncs()
    private var syncFile: FileDescriptor?
    private var lastSync: Rational?
    /// The codec the sound is stored with: lossless, as a capture is a master — PCM where the
    /// container holds it, ALAC in MP4 (which in FFmpeg 5.1 holds neither PCM nor, without
    /// `-strict experimental`, FLAC).
    var audioCodec: String { audioEncoder?.name ?? "pcm_s16le" }
    /// The sound's encoder, resolved once (the session checked it before the camera opened).
    private lazy var audioEncoder: (name: String, bitRate: Int)? = try? audio?.settings.encoder(for: settings.output)
    var audioFramesWritten: Int64 { audioTrack?.framesWritten ?? 0 }
    static let timeBase = Rational(1, 1_000_000)

    init(settings: RecordingSettings, format: CaptureFormat, sourceName: String) throws {
        self.settings = settings
        self.format = format
        self.sourceName = sourceName
        _ = try ContainerFormat.forOutput(settings.output)
        try OutputFile.check(settings.output, overwrite: settings.overwrite)
        // Bayer kept as the sensor's samples (FFV1, raw); x264 is given colour (swscale demosaics)
        sourcePixels = format.samples(demosaic: settings.rawCodec == .x264)
        keyframes = format.pixels?.keyframes ?? .everyFrame
        if !format.isCompressed && sourcePixels == nil {
            throw CaptureError.rawFormatUnsupported(source: sourceName, fourcc: format.fourcc)
        }
        if settings.rawCodec == .raw, let pixels = sourcePixels, let container = try? ContainerFormat.forOutput(settings.output), container == "matroska",
            let muxer = try? Muxer(path: settings.output, formatName: container), let why = muxer.rawRefusal(pixelFormat: pixels.name)
        {
            throw CaptureError.containerRefused(output: settings.output, "raw \(pixels.name) frames cannot be stored: \(why)")
        }
    }

    /// The format the encoder stores: x264 gets 8-bit 4:2:0; FFV1 the camera's own sampling and
    /// depth (4:2:2 stays 4:2:2, 10-bit stays 10-bit, Bayer stays undebayered gray); raw the
    /// camera's samples unchanged.
    static func storage(for source: PixelFormat, codec: RecordingSettings.RawCodec) -> PixelFormat {
        switch codec {
        case .raw: return source
        case .x264: return .yuv420p
        case .ffv1:
            let supported = Encoder.pixelFormats(codec: "ffv1")
            if supported.contains(source) { return source }
            switch source.name {
            case "yuyv422", "uyvy422", "yvyu422", "nv16": return .yuv422p
            case "nv12", "nv21": return .yuv420p
            case "nv24", "nv42": return .yuv444p
            default: return .bgr0  // RGB: 8-bit per component, padded
            }
        }
    }

    /// Opens the encoder now (loading FFmpeg's libraries and, for x264, starting its threads), so
    /// none of that happens while the camera streams. All or nothing: the muxer is kept only once
    /// the encoder is open, so a later call tries again and throws the real error.
    func prepare() throws {
        guard muxer == nil else { return }
        let m = try Muxer(path: settings.output, formatName: ContainerFormat.forOutput(settings.output))
        guard let src = sourcePixels else {
            muxer = m
            return
        }
        layout = try format.planeLayout(as: src)
        let fps = format.frameDuration.flatMap { try? $0.reciprocal() }
        let rate = fps ?? Rational(30)
        let stored = RecordingWriter.storage(for: src, codec: settings.rawCodec)
        // only x264 needs even sizes for subsampled chroma; FFV1 and raw keep every row and column
        let even = stored.subsamplesChroma && settings.rawCodec == .x264
        encodedSize = (even ? format.width & ~1 : format.width, even ? format.height & ~1 : format.height)
        let n = settings.referenceInterval ?? Swift.max(1, Swift.min(17, Int((rate / Rational(30)).rounded(.nearest))))
        var options: [String: String] = [:]
        switch settings.rawCodec {
        case .x264:
            let keyint = Swift.max(n, Int(rate.ceiling) / n * n)
            options = [
                "preset": settings.preset, "crf": String(settings.crf),
                "x264-params": n > 1
                    ? "bframes=\(n - 1):b-adapt=0:b-pyramid=none:scenecut=0:keyint=\(keyint):min-keyint=\(keyint)"
                    : "bframes=0:keyint=\(keyint)",
            ]
        case .ffv1: options = ["g": String(Int(rate.ceiling))]
        case .raw: break
        }
        encoder = try Encoder(
            path: settings.output,
            video: VideoEncoderSettings(
                codec: settings.rawCodec.encoder, width: encodedSize.width, height: encodedSize.height,
                pixelFormat: stored, frameRate: rate, timeBase: RecordingWriter.timeBase, options: options), globalHeader: m.wantsGlobalHeader)
        storedPixels = stored
        muxer = m
    }

    /// Opens the file on the first frame (its timestamp becomes time zero) and writes the header.
    /// H.264/HEVC: the first frame's parameter sets become the stream's extradata (Matroska needs
    /// them in the header; a camera sends them with each keyframe).
    private func open(at t: Rational, first bytes: UnsafeRawBufferPointer? = nil) throws {
        try prepare()
        let m = muxer!
        let formatName = m.formatName
        let fps = format.frameDuration.flatMap { try? $0.reciprocal() }
        if let encoder {
            stream = try m.addStream(for: encoder)
        } else {
            let codec = format.nalCodec.map { $0 == .h264 ? "h264" : "hevc" } ?? "mjpeg"
            let sets = bytes.flatMap { b in format.nalCodec.map { RecordingWriter.parameterSets(b, codec: $0) } } ?? []
            stream = try m.addStream(
                encodedVideo: codec, width: format.width, height: format.height, timeBase: RecordingWriter.timeBase,
                extradata: codec == "mjpeg" ? [] : sets)
        }
        m.setMetadata("encoder", "slomo capture")
        // the first frame's wall-clock time: when the recording was made, for every tool that sorts by it
        m.setMetadata("creation_time", CaptureClock.iso8601Micros(CaptureClock.wallTime(ofMonotonic: t)))
        m.setMetadata(SlomoTag.device.rawValue, sourceName)
        m.setMetadata(SlomoTag.captureFormat.rawValue, "\(format.fourcc) \(format.width)x\(format.height)")
        if let fps { m.setMetadata(SlomoTag.captureFps.rawValue, fps.description) }
        m.setMetadata(SlomoTag.captureClock.rawValue, "CLOCK_MONOTONIC")
        m.setMetadata(SlomoTag.captureStart.rawValue, t.description)
        if let cfa = format.bayerPattern, settings.rawCodec != .x264 { m.setMetadata(SlomoTag.cfaPattern.rawValue, cfa) }
        for (k, v) in settings.metadata.merging(metadata, uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) { m.setMetadata(k, v) }
        if let map = settings.map {
            m.setMetadata(MediaTimeline.retimeKey, try MediaTimeline.retimeTag(map))
        }
        if let audio {
            // the sound from the sample captured at this first frame's kernel time on
            let captured = try CapturedAudio(capture: audio, start: t)
            capturedAudio = captured
            guard let codec = audioEncoder else { throw CaptureError.noSoundEncoder(output: settings.output) }
            // slowed while recording: the sound through the same map (`RecordingSettings.soundAlgorithm`)
            let sound: any RetimedAudio =
                try settings.map.map {
                    try TimePitchAudioSource(
                        source: LiveSampleSource(captured, path: settings.output), map: $0,
                        algorithm: RecordingSettings.soundAlgorithm(for: $0))
                } ?? captured
            audioTrack = try AudioTrackWriter(source: sound, muxer: m, codec: codec.name, bitRate: codec.bitRate, path: settings.output)
            m.setMetadata(SlomoTag.audioDevice.rawValue, audio.settings.device)
        }
        // Fragmented MP4/MOV: the moov goes out with the first fragment (`delay_moov`), so its edit
        // list can start the video at the first frame's time even with B-frames (with `empty_moov`
        // every frame sat one reorder delay late, and the sound that much early); then a moof+mdat
        // at every keyframe and at least every second, flushed as written. Matroska and NUT write
        // as they go (a cluster at least every second).
        let mov = Muxer.isISOMedia(formatName)
        try m.writeHeader(
            options: mov
                ? [
                    "movflags": "+frag_keyframe+delay_moov+default_base_moof+use_metadata_tags",
                    "frag_duration": "1000000", "flush_packets": "1",
                ]
                : formatName == "matroska" ? ["cluster_time_limit": "1000", "flush_packets": "1"] : ["flush_packets": "1"])
        streamTB = m.timeBase(ofStream: stream)
        audioTrack?.headerWritten()
        headerWritten = true
        first = t
    }

    /// Stores one frame (its bytes as the ring holds them). Its output time is its kernel time from
    /// the first frame, through the map. Returns false, storing nothing, for a raw frame with fewer
    /// bytes than its format needs (a short `bytesused`): it is counted, never read past its end.
    func write(_ bytes: UnsafeRawBufferPointer, timestamp: Rational) throws -> Bool {
        if let src = sourcePixels {
            try prepare()
            guard let e = encoder, let stored = storedPixels, let layout,
                let f = Frame(
                    borrowing: bytes.baseAddress!, count: bytes.count, width: format.width, height: format.height,
                    pixelFormat: src, layout: layout)
            else { return false }
            if !headerWritten { try open(at: timestamp) }
            let t = outputTime(timestamp)
            lastTimestamp = timestamp
            let input: Frame =
                stored == src && encodedSize == (format.width, format.height)
                ? f
                : try scaler.convert(f, width: encodedSize.width, height: encodedSize.height, pixelFormat: stored)
            input.pts = try t.ticks(in: RecordingWriter.timeBase, rounding: .nearest)
            while try !e.send(input) { try drain() }
            try drain()
            try audioTrack?.write(upTo: t, notPast: true)
        } else {
            if !headerWritten { try open(at: timestamp, first: bytes) }
            let m = muxer!
            let t = outputTime(timestamp)
            lastTimestamp = timestamp
            packet.unref()
            try packet.setPayload(bytes.baseAddress!, count: bytes.count)
            let ticks = try t.ticks(in: streamTB, rounding: .nearest)
            packet.pts = Swift.max(ticks, lastDTS + 1)
            packet.dts = packet.pts
            lastDTS = packet.pts!
            packet.streamIndex = stream
            packet.markKeyframe(keyframes.isKeyframe(bytes))
            try m.write(packet)
            bytesWritten += Int64(bytes.count)
            try audioTrack?.write(upTo: t, notPast: true)
        }
        framesWritten += 1
        try syncIfDue(timestamp)
        return true
    }

    /// `fdatasync` when a second of frames has gone out since the last one (on the writer's thread,
    /// never the camera's). EINVAL/EROFS (a file system without sync): noted once, syncing stops.
    private func syncIfDue(_ timestamp: Rational, force: Bool = false) throws {
        guard settings.sync, syncs.refused == nil else { return }
        if !force, let last = lastSync, timestamp - last < Rational(1) { return }
        if lastSync == nil && !force {
            lastSync = timestamp
            return
        }
        lastSync = timestamp
        if syncFile == nil {
            // only a regular file is synced (a FIFO or device output is not a file on a disk)
            guard (try? Files.status(settings.output).isRegular) == true else {
                syncs.refused = "the output is not a regular file"
                return
            }
            do throws(Errno) { syncFile = try FileDescriptor.openForReading(settings.output) } catch {
                syncs.refused = "cannot open for fdatasync: \(error.words)"
                return
            }
        }
        let start = CaptureClock.now()
        do throws(Errno) { try syncFile?.dataSync() } catch {
            if [.invalidArgument, .readOnlyFileSystem, .notSupported].contains(error) {
                syncs.refused = "the file system refuses fdatasync (\(error.words))"
                return
            }
            throw CaptureError.syncFailed(output: settings.output, errno: error.rawValue)
        }
        let micros = ((CaptureClock.now() - start) * Rational(1_000_000)).rounded(.nearest)
        syncs.count += 1
        syncs.totalMicros += micros
        syncs.maxMicros = Swift.max(syncs.maxMicros, micros)
    }

    deinit { syncFile?.close() }

    private func outputTime(_ timestamp: Rational) -> Rational {
        let t = timestamp - first!
        return settings.map.map { $0.targetTime(forSource: t) } ?? t
    }

    private func drain() throws {
        guard let e = encoder, let m = muxer, headerWritten else { return }
        while case .got = try e.receive(into: packet) {
            packet.streamIndex = stream
            packet.rescaleTimestamps(from: e.timeBase, to: streamTB)
            bytesWritten += Int64(packet.size)
            try m.write(packet)
        }
    }

    /// Flushes the encoder and writes the trailer. After a failure (disk full) the fragments already
    /// on disk stay playable.
    func finish() throws {
        guard let m = muxer, headerWritten else { return }
        if let e = encoder {
            _ = try e.send(nil)
            try drain()
        }
        if let track = audioTrack, let captured = capturedAudio, let last = lastTimestamp {
            let lastSourceTime = last - first!, lastOutputTime = outputTime(last)
            // the sound ends where the last frame ends (through the map when slowed while recording)
            let frame = format.frameDuration ?? .zero
            if let map = settings.map {
                captured.end(at: lastSourceTime + frame)
                try track.finish(at: map.targetTime(forSource: lastSourceTime + frame))
            } else {
                captured.end(at: lastOutputTime + frame)
                try track.finish()
            }
        }
        try m.finish()
        if let last = lastTimestamp { try syncIfDue(last, force: true) }
    }

    /// The parameter-set NAL units (H.264 SPS/PPS; HEVC VPS/SPS/PPS) before the first picture NAL,
    /// each after a 4-byte start code: Annex B extradata, which muxers turn into avcC/hvcC.
    static func parameterSets(_ bytes: UnsafeRawBufferPointer, codec: NALUnits.Codec) -> [UInt8] {
        var out: [UInt8] = []
        NALUnits(codec, framing: .annexB).forEach(in: bytes, limit: 65_536) { u in
            if u.isPicture { return false }
            if u.isParameterSet { out += [0, 0, 0, 1] + bytes[u.bytes] }
            return true
        }
        return out
    }
}
