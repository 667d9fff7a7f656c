import Foundation
import SlomoCore
import SlomoFFmpeg

/// How a recording is encoded and stored.
public struct RecordingSettings: Sendable {
    public enum RawCodec: String, Sendable, CaseIterable { case x264, ffv1 }
    public var output: String
    public var rawCodec = RawCodec.x264
    /// x264 preset for raw cameras (real-time by default).
    public var preset = "superfast"
    public var crf = 20
    /// Raw → x264: a reference frame every N frames, non-reference B-frames between (nil: frames per 1/30 s).
    public var referenceInterval: Int?
    /// Per-segment time scaling applied while recording (source time from the first frame).
    public var map: RetimeMap?
    public var overwrite = false
    public init(output: String) { self.output = output }
}

/// Writes camera frames to a crash-safe file: fragmented MP4/MOV (a fragment at least every second,
/// each flushed to disk), timestamps in microseconds from the first frame (kernel times kept exactly),
/// compressed formats copied, raw formats encoded.
final class RecordingWriter {
    let settings: RecordingSettings
    let format: CaptureFormat
    let sourceName: String
    private var muxer: Muxer?
    private var encoder: Encoder?
    private var scaler = Scaler()
    private var stream = 0
    private var streamTB = Rational(1, 1_000_000)
    private var first: Rational?
    private var lastDTS: Int64 = .min
    private let packet = Packet()
    private(set) var framesWritten: Int64 = 0
    private(set) var bytesWritten: Int64 = 0
    static let timeBase = Rational(1, 1_000_000)

    init(settings: RecordingSettings, format: CaptureFormat, sourceName: String) throws {
        self.settings = settings
        self.format = format
        self.sourceName = sourceName
        _ = try ContainerFormat.forOutput(settings.output)
        if FileManager.default.fileExists(atPath: settings.output) && !settings.overwrite {
            throw SimpleFailure("\(settings.output): output already exists (use --overwrite to replace it)", .cannotCreate)
        }
        let dir = URL(fileURLWithPath: settings.output).deletingLastPathComponent().path
        guard access(dir, W_OK) == 0 else { throw SimpleFailure("\(settings.output): cannot write output: directory \(dir) is not writable or does not exist", .cannotCreate) }
        if !format.isCompressed && PixelFormat(v4l2FourCC: format.fourcc) == nil {
            throw SimpleFailure("\(sourceName): raw format \(format.fourcc) is not supported for recording", .dataError)
        }
    }

    /// Opens the file on the first frame (its timestamp becomes time zero) and writes the header.
    private func open(at t: Rational) throws {
        let path = settings.output
        let formatName = try ContainerFormat.forOutput(path)
        let m = try Muxer(path: path, formatName: formatName)
        let fps = format.frameDuration.flatMap { try? $0.reciprocal() }
        if format.isCompressed {
            let codec = format.fourcc == "H264" ? "h264" : format.fourcc == "HEVC" ? "hevc" : "mjpeg"
            stream = try m.addStream(encodedVideo: codec, width: format.width, height: format.height, timeBase: RecordingWriter.timeBase)
        } else {
            let rate = fps ?? Rational(30)
            let n = settings.referenceInterval ?? Swift.max(1, Swift.min(17, Int((rate / Rational(30)).rounded(.nearest))))
            var options: [String: String] = [:]
            let codec: String
            switch settings.rawCodec {
            case .x264:
                codec = "libx264"
                let keyint = Swift.max(n, Int(rate.ceiling) / n * n)
                options = ["preset": settings.preset, "crf": String(settings.crf),
                           "x264-params": n > 1 ? "bframes=\(n - 1):b-adapt=0:b-pyramid=none:scenecut=0:keyint=\(keyint):min-keyint=\(keyint)"
                                                : "bframes=0:keyint=\(keyint)"]
            case .ffv1:
                codec = "ffv1"
                options = ["g": String(Int(rate.ceiling))]
            }
            let e = try Encoder(path: path, video: VideoEncoderSettings(
                codec: codec, width: format.width & ~1, height: format.height & ~1, pixelFormat: .yuv420p,
                frameRate: rate, timeBase: RecordingWriter.timeBase, options: options), globalHeader: m.wantsGlobalHeader)
            stream = try m.addStream(for: e)
            encoder = e
        }
        m.setMetadata("encoder", "slomo capture")
        m.setMetadata("slomo_device", sourceName)
        m.setMetadata("slomo_capture_format", "\(format.fourcc) \(format.width)x\(format.height)")
        if let fps { m.setMetadata("slomo_capture_fps", fps.description) }
        m.setMetadata("slomo_capture_clock", "CLOCK_MONOTONIC")
        m.setMetadata("slomo_capture_start", t.description)
        if let map = settings.map {
            m.setMetadata(MediaTimeline.retimeKey, String(decoding: try JSONEncoder().encode(map), as: UTF8.self))
        }
        // Fragmented MP4/MOV: a moof+mdat at every keyframe and at least every second, flushed as written.
        try m.writeHeader(options: ["movflags": "+frag_keyframe+empty_moov+default_base_moof+use_metadata_tags",
                                    "frag_duration": "1000000", "flush_packets": "1"])
        streamTB = m.timeBase(ofStream: stream)
        muxer = m
        first = t
    }

    /// Stores one frame. Its output time is its kernel time from the first frame, through the map.
    func write(_ frame: CapturedFrame) throws {
        if muxer == nil { try open(at: frame.timestamp) }
        let m = muxer!
        var t = frame.timestamp - first!
        if let map = settings.map { t = map.targetTime(forSource: t) }
        if let e = encoder {
            let f = try Frame(borrowing: frame.bytes.baseAddress!, width: format.width, height: format.height,
                              pixelFormat: PixelFormat(v4l2FourCC: format.fourcc)!)
            let converted = try scaler.convert(f, width: format.width & ~1, height: format.height & ~1, pixelFormat: .yuv420p)
            converted.pts = try t.ticks(in: RecordingWriter.timeBase, rounding: .nearest)
            while try !e.send(converted) { try drain() }
            try drain()
        } else {
            packet.unref()
            try packet.setPayload(frame.bytes.baseAddress!, count: frame.count)
            let ticks = try t.ticks(in: streamTB, rounding: .nearest)
            packet.pts = Swift.max(ticks, lastDTS + 1)
            packet.dts = packet.pts
            lastDTS = packet.pts!
            packet.streamIndex = stream
            packet.markKeyframe(format.fourcc != "H264" && format.fourcc != "HEVC" || frame.isLikelyKeyframe)
            try m.write(packet)
            bytesWritten += Int64(frame.count)
        }
        framesWritten += 1
    }

    private func drain() throws {
        guard let e = encoder, let m = muxer else { return }
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
        guard let m = muxer else { return }
        if let e = encoder { _ = try e.send(nil); try drain() }
        try m.finish()
    }
}

extension CapturedFrame {
    /// H.264/HEVC from a camera: an IDR/IRAP NAL near the start marks a keyframe (Annex B).
    var isLikelyKeyframe: Bool {
        let n = Swift.min(count, 256)
        var i = 0
        while i + 4 < n {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                let h = bytes[i + 3]
                if h & 0x1F == 5 || h & 0x1F == 7 { return true }          // H.264 IDR or SPS
                let hevc = h >> 1 & 0x3F
                if hevc >= 16 && hevc <= 23 || hevc == 32 { return true }     // HEVC IRAP or VPS
            }
            i += 1
        }
        return false
    }
}
