import Foundation
import SlomoCore
import SlomoSystem
import SlomoFFmpeg

/// `capture --preview OUT`: a low-rate picture of what the camera sees, while recording or armed,
/// so a headless rig can be aimed and focused from another machine (`ffplay`, `mpv`).
public struct PreviewSettings: Sendable {
    /// `-` (stdout), a file, or any URL FFmpeg writes (`udp://10.0.0.2:5000?pkt_size=1316`).
    public var output: String
    /// Pictures per second.
    public var fps = Rational(10)
    /// Width at most (the height follows the camera's aspect, even).
    public var width = 640
    /// FFmpeg's container name; default NUT for `-` and URLs, else from the extension.
    public var format: String?
    /// `--preview-burn-in`: each picture labelled with its camera frame's sequence number and time.
    public var burnIn = false
    public init(output: String) { self.output = output }

    /// The ranges the preview takes (`SettingError`, the same words for every front end): the
    /// rig's live-picture rows of `RigOption`.
    public func validate() throws(SettingError) {
        guard RigOption.previewFps.accepts(fps) else {
            throw SettingError(.previewFps, Seconds(fps).description, Wording(verbatim: RigOption.previewFps.rangeWords), quoted: false)
        }
        guard RigOption.previewWidth.accepts(Rational(width)) else {
            throw SettingError(.previewWidth, String(width), Wording(verbatim: RigOption.previewWidth.rangeWords), quoted: false)
        }
    }
}

/// What the preview did, in the capture report.
public struct PreviewReport: Codable, Sendable {
    public var output: String
    public var fps: Rational
    public var width: Int
    public var height: Int
    public var framesSent: Int64
    /// Ticks whose newest frame was overwritten while it was being copied (the preview never holds
    /// a frame the camera needs), or that found no new frame.
    public var framesSkipped: Int64
    /// Why the preview stopped early (the URL could not be opened, the reader went away); the
    /// capture itself is never stopped by it.
    public var error: String?
}

/// `--preview`'s sink of the live pictures: an MJPEG stream (the camera's own JPEGs, or raw frames
/// made small JPEGs) muxed and flushed picture by picture to a file, stdout or a URL, each picture
/// at its frame's kernel time from the first.
final class PreviewStream: PictureSink {
    let settings: PreviewSettings
    private var muxer: Muxer?
    private var stream = 0
    private var streamTB = Rational(1, 1000)
    private var origin: Rational?
    private let packet = Packet()
    private(set) var sent: Int64 = 0
    private static let timeBase = Rational(1, 1000)

    init(_ settings: PreviewSettings) { self.settings = settings }

    var wantsPictures: Bool { true }

    func open(format: CaptureFormat, width: Int, height: Int) throws {
        let path = settings.output == "-" ? "pipe:1" : settings.output
        let container =
            try settings.format
            ?? (settings.output == "-" || settings.output.contains("://") ? "nut" : ContainerFormat.forOutput(settings.output))
        let m = try Muxer(path: path, formatName: container, name: settings.output)
        stream = try m.addStream(encodedVideo: "mjpeg", width: width, height: height, timeBase: PreviewStream.timeBase)
        try m.writeHeader(options: ["flush_packets": "1"])
        streamTB = m.timeBase(ofStream: stream)
        muxer = m
    }

    func take(_ picture: LivePicture) throws {
        guard let muxer else { return }
        if origin == nil { origin = picture.frameTime }
        let pts = try (picture.frameTime - origin!).ticks(in: PreviewStream.timeBase, rounding: .nearest)
        packet.unref()
        try picture.jpeg.withUnsafeBytes { try packet.setPayload($0.baseAddress!, count: $0.count) }
        packet.pts = pts
        packet.dts = pts
        packet.streamIndex = stream
        packet.markKeyframe(true)
        packet.rescaleTimestamps(from: PreviewStream.timeBase, to: streamTB)
        try muxer.write(packet)
        sent += 1
    }

    func close() throws {
        defer { muxer = nil }
        try muxer?.finish()
    }
}

/// `capture --preview`: the live-picture stage with one sink, the preview's stream.
struct CapturePreview {
    let settings: PreviewSettings
    let stream: PreviewStream
    let pictures: LivePictures
    let width: Int, height: Int

    init(_ settings: PreviewSettings, format: CaptureFormat) throws {
        guard format.nalCodec == nil else { throw CaptureError.previewNeedsIntraFrames(fourcc: format.fourcc) }
        self.settings = settings
        stream = PreviewStream(settings)
        pictures = LivePictures(
            fps: settings.fps, maxWidth: settings.width, sinks: [stream], bitsPerPixel: 3, burnIn: settings.burnIn ? BurnInSettings() : nil)
        let size = JPEGMaker(maxWidth: settings.width).outputSize(width: format.width, height: format.height)
        (width, height) = format.isCompressed ? (format.width, format.height) : size
    }

    /// Ends the preview (its stream finished) and returns what it did.
    func stop() -> PreviewReport {
        pictures.stop()
        return PreviewReport(
            output: settings.output, fps: settings.fps, width: width, height: height, framesSent: stream.sent,
            framesSkipped: pictures.skippedTicks, error: pictures.counts.error)
    }
}
