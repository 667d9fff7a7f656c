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
    public init(output: String) { self.output = output }

    /// The ranges the preview takes (`SettingError`, the same words for every front end).
    public func validate() throws(SettingError) {
        guard fps.isPositive, fps <= Rational(60) else {
            throw SettingError(.previewFps, Seconds(fps).description, "must be > 0 and at most 60", quoted: false)
        }
        guard (64...3840).contains(width) else { throw SettingError(.previewWidth, String(width), "must be in 64...3840", quoted: false) }
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

/// Reads the newest frame of the ring at the preview rate — without pinning anything, so the
/// camera never waits for it — scales it and sends it as MJPEG (MJPEG cameras: their own JPEGs,
/// not decoded). Runs on its own thread at the lowest priority (nice 19).
final class PreviewWriter: @unchecked Sendable {
    let settings: PreviewSettings
    let format: CaptureFormat
    private let lock = NSLock()
    private var stopping = false
    private var thread: Thread?
    private var done = DispatchSemaphore(value: 0)
    private(set) var report: PreviewReport

    init(_ settings: PreviewSettings, format: CaptureFormat) throws {
        self.settings = settings
        self.format = format
        guard format.nalCodec == nil else {
            throw CaptureError.previewNeedsIntraFrames(fourcc: format.fourcc)
        }
        let w = min(settings.width, format.width) & ~1
        let h = max(2, (w * format.height / max(1, format.width)) & ~1)
        report = PreviewReport(
            output: settings.output, fps: settings.fps, width: format.isCompressed ? format.width : w,
            height: format.isCompressed ? format.height : h, framesSent: 0, framesSkipped: 0, error: nil)
    }

    func start(ring: FrameRing) {
        let t = Thread { [self] in
            run(ring)
            done.signal()
        }
        t.name = "slomo-preview"
        t.stackSize = 1 << 20
        thread = t
        t.start()
    }

    /// Ends the preview (its file or stream is finished) and returns what it did.
    func stop() -> PreviewReport {
        lock.lock(); stopping = true; lock.unlock()
        if thread != nil { done.wait(); thread = nil }
        return report
    }

    private var isStopping: Bool { lock.lock(); defer { lock.unlock() }; return stopping }

    private func run(_ ring: FrameRing) {
        _ = ThreadPriority.nice(19)
        do { try loop(ring) } catch {
            report.error = "\(error)"
        }
    }

    /// The preview's muxer, its one MJPEG stream (the camera's own JPEGs, or raw frames encoded
    /// small), the header written and flushed packet by packet.
    private func openOutput(timeBase tb: Rational) throws -> (muxer: Muxer, encoder: Encoder?, stream: Int) {
        let path = settings.output == "-" ? "pipe:1" : settings.output
        let container =
            try settings.format
            ?? (settings.output == "-" || settings.output.contains("://") ? "nut" : ContainerFormat.forOutput(settings.output))
        let muxer = try Muxer(path: path, formatName: container, name: settings.output)
        let (w, h) = (report.width, report.height)
        var encoder: Encoder?
        let stream: Int
        if format.isCompressed {
            stream = try muxer.addStream(encodedVideo: "mjpeg", width: w, height: h, timeBase: tb)
        } else {
            let e = try Encoder(
                path: settings.output,
                video: VideoEncoderSettings(
                    codec: "mjpeg", width: w, height: h, pixelFormat: .yuvj420p, frameRate: settings.fps, timeBase: tb,
                    options: ["b": String(w * h * 3)]), globalHeader: muxer.wantsGlobalHeader)
            stream = try muxer.addStream(for: e)
            encoder = e
        }
        try muxer.writeHeader(options: ["flush_packets": "1"])
        return (muxer, encoder, stream)
    }

    private func loop(_ ring: FrameRing) throws {
        let tb = Rational(1, 1000)
        let (w, h) = (report.width, report.height)
        let (muxer, encoder, stream) = try openOutput(timeBase: tb)
        let streamTB = muxer.timeBase(ofStream: stream)
        defer { try? muxer.finish() }
        let pixels = format.samples()
        let layout = try format.planeLayout()
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(1, format.maxFrameBytes, layout?.size ?? 0), alignment: 64)
        defer { copy.deallocate() }
        let scaler = Scaler()
        let packet = Packet()
        let period = Rational.one / settings.fps
        var next = CaptureClock.now()
        var last: Int64 = -1
        var origin: Rational?
        while !isStopping {
            next = next + period
            let wait = ((next - CaptureClock.now()) * Rational(1_000_000)).rounded(.up)
            if wait > 0 { CurrentProcess.sleep(microseconds: Int(min(wait, 1_000_000))) }
            // the newest frame, unpinned: the preview never holds the camera back
            guard let f = RingReader.newest(in: ring), f.index != last else { report.framesSkipped += 1; continue }
            let m = f.meta
            let n = f.bytes.count
            copy.copyMemory(from: f.bytes.baseAddress!, byteCount: n)
            guard f.isIntact else { report.framesSkipped += 1; continue }  // overwritten while copied
            last = f.index
            if origin == nil { origin = m.timestamp }
            let pts = try (m.timestamp - origin!).ticks(in: tb, rounding: .nearest)
            if let e = encoder, let px = pixels, let layout {
                guard let f = Frame(borrowing: copy, count: n, width: format.width, height: format.height, pixelFormat: px, layout: layout) else {
                    report.framesSkipped += 1; continue
                }
                let small = try scaler.convert(f, width: w, height: h, pixelFormat: .yuvj420p)
                small.pts = pts
                while try !e.send(small) { try drain(e, muxer, stream, streamTB, packet) }
                try drain(e, muxer, stream, streamTB, packet)
            } else {
                packet.unref()
                try packet.setPayload(copy, count: n)
                packet.pts = pts; packet.dts = pts
                packet.streamIndex = stream
                packet.markKeyframe(true)
                packet.rescaleTimestamps(from: tb, to: streamTB)
                try muxer.write(packet)
                report.framesSent += 1
            }
        }
        if let e = encoder { _ = try e.send(nil); try drain(e, muxer, stream, streamTB, packet) }
    }

    private func drain(_ e: Encoder, _ m: Muxer, _ stream: Int, _ tb: Rational, _ packet: Packet) throws {
        while case .got = try e.receive(into: packet) {
            packet.streamIndex = stream
            packet.rescaleTimestamps(from: e.timeBase, to: tb)
            try m.write(packet)
            report.framesSent += 1
        }
    }
}
