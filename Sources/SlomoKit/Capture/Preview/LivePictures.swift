import Foundation
import SlomoCore
import SlomoSystem
import SlomoFFmpeg

/// One JPEG of the live picture: the camera frame it shows (its index in the ring, its sequence
/// number and kernel time) and when slomo made it (CLOCK_MONOTONIC), for the client's latency.
public struct LivePicture: Sendable {
    public let jpeg: [UInt8]
    public let frameIndex: Int64
    public let sequence: UInt64
    public let frameTime: Rational
    public let made: Rational
    public let width: Int
    public let height: Int
}

/// Where the live pictures go: `capture --preview`'s stream (`PreviewStream`) and serve's viewers
/// (built into `LivePictures`). Called on the stage's thread only.
protocol PictureSink: AnyObject {
    /// Pictures are made only while a sink wants them (viewers: while someone watches).
    var wantsPictures: Bool { get }
    /// Before the first picture; an error stops the pictures (never the capture).
    func open(format: CaptureFormat, width: Int, height: Int) throws
    func take(_ picture: LivePicture) throws
    /// After the last picture (a stream's trailer written).
    func close() throws
}

/// The live-picture stage: a reader of the ring that takes the newest frame at its rate, unpinned
/// (the camera never waits for it), on its own thread at the lowest priority (nice 19), and only
/// while a sink wants pictures; raw frames are scaled and made JPEGs, an MJPEG camera's own JPEGs
/// are passed through. Its sinks: `--preview`'s stream, and serve's viewers, each of whom holds at
/// most one picture it has not taken (a newer one replaces it, counted in `replaced`), so a slow
/// client loses pictures, never the camera's frames.
public final class LivePictures: RingTap, @unchecked Sendable {
    // Safe: `fps`, `maxWidth`, `stopping`, the counters under `lock`; `thread` only by the
    // session's or rig's control calls (start/stop), one at a time.
    private let lock = NSLock()
    private let viewers = Subscribers<LivePicture>(keep: 1)
    private let sinks: [PictureSink]
    private let bitsPerPixel: Int
    /// The label on each picture: the camera frame's sequence number and time (`--preview-burn-in`).
    private let burnIn: BurnInSettings?
    private var stopping = false
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    public private(set) var fps: Rational
    public private(set) var maxWidth: Int
    private var made: Int64 = 0, skipped: Int64 = 0, failed: String?

    /// `bitsPerPixel`: the JPEG encoder's bit rate per pixel and picture.
    init(fps: Rational, maxWidth: Int, sinks: [PictureSink], bitsPerPixel: Int = 2, burnIn: BurnInSettings? = nil) {
        self.fps = fps
        self.maxWidth = maxWidth
        self.sinks = sinks
        self.bitsPerPixel = bitsPerPixel
        self.burnIn = burnIn
    }

    /// Serve's live pictures: their one sink, the viewers (`watch`).
    public convenience init(fps: Rational = Rational(10), maxWidth: Int = 640, burnIn: BurnInSettings? = nil) {
        self.init(fps: fps, maxWidth: maxWidth, sinks: [], burnIn: burnIn)
    }

    private func label(_ m: FrameRing.Meta) -> String? { burnIn.map { _ in Self.label(sequence: m.sequence, time: m.timestamp) } }

    /// A picture's label: the camera's sequence number and the frame's time on the capture clock
    /// (CLOCK_MONOTONIC, as a recording's `slomo_trigger_frame_time`), in seconds.
    static func label(sequence: UInt64, time: Rational) -> String {
        "seq \(sequence)\n" + BurnInSource.decimal(time, places: 3) + " s"
    }

    /// What the live pictures did so far.
    public struct Counts: Codable, Sendable, Equatable {
        public var viewers: Int
        public var pictures: Int64
        /// Pictures a viewer had not taken before a newer one replaced it.
        public var replaced: Int64
        public var fps: Rational
        public var width: Int
        public var error: String?
    }

    public var counts: Counts {
        lock.lock()
        defer { lock.unlock() }
        return Counts(viewers: viewers.count, pictures: made, replaced: viewers.replacedCount, fps: fps, width: maxWidth, error: failed)
    }

    /// Ticks that found no new frame, or whose frame was overwritten while it was copied.
    var skippedTicks: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return skipped
    }

    /// The rate and width of the pictures (applied from the next picture on).
    public func set(fps: Rational? = nil, width: Int? = nil) {
        lock.lock()
        if let fps { self.fps = fps }
        if let width { maxWidth = width }
        lock.unlock()
    }

    /// A new viewer: its pictures, one pending at most. `stopWatching` with its id ends it.
    public func watch() -> (id: Int, pictures: AsyncStream<LivePicture>) {
        let (id, values) = viewers.add()
        return (id, values)
    }

    public func stopWatching(_ id: Int) { viewers.remove(id) }

    /// One picture now (a viewer for as long as it takes; nil after `timeout` seconds without a frame).
    public func snapshot(timeout: Double = 3) async -> LivePicture? {
        let (id, pictures) = watch()
        defer { stopWatching(id) }
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
            self?.stopWatching(id)
        }
        defer { timer.cancel() }
        for await p in pictures { return p }
        return nil
    }

    // MARK: the stage

    func start(ring: FrameRing, format: CaptureFormat) {
        lock.lock()
        stopping = false
        failed = nil
        lock.unlock()
        let t = Thread { [self] in
            _ = ThreadPriority.nice(19)
            do { try loop(ring, format: format) } catch {
                lock.lock()
                failed = "\(error)"
                lock.unlock()
            }
            for s in sinks { try? s.close() }
            done.signal()
        }
        t.name = "slomo-live"
        t.stackSize = 1 << 20
        thread = t
        t.start()
    }

    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        if thread != nil {
            done.wait()
            thread = nil
        }
    }

    /// Whether the stage's thread runs now (between `start` and `stop`).
    var isRunning: Bool { thread != nil }

    private var wanted: Bool { viewers.count > 0 || sinks.contains { $0.wantsPictures } }

    private func loop(_ ring: FrameRing, format: CaptureFormat) throws {
        let pixels = format.samples()
        if format.nalCodec != nil || (!format.isCompressed && pixels == nil) {
            throw CaptureError.previewNeedsIntraFrames(fourcc: format.fourcc)
        }
        let layout = try format.planeLayout()
        lock.lock()
        var maker = JPEGMaker(maxWidth: maxWidth, bitsPerPixel: bitsPerPixel, burnIn: burnIn)
        lock.unlock()
        let size = format.isCompressed ? (format.width, format.height) : maker.outputSize(width: format.width, height: format.height)
        for s in sinks { try s.open(format: format, width: size.0, height: size.1) }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(1, format.maxFrameBytes, layout?.size ?? 0), alignment: 64)
        defer { copy.deallocate() }
        var last: Int64 = -1
        var next = CaptureClock.now()
        while true {
            lock.lock()
            let stop = stopping, fps = self.fps, width = maxWidth
            lock.unlock()
            if stop { return }
            // pictures are made only while someone watches
            guard wanted else {
                CurrentProcess.sleep(microseconds: 10_000)
                next = CaptureClock.now()
                continue
            }
            let wait = ((next - CaptureClock.now()) * Rational(1_000_000)).rounded(.up)
            if wait > 0 {
                CurrentProcess.sleep(microseconds: Int(Swift.min(wait, 100_000)))
                continue
            }
            next = Swift.max(next + Rational.one / fps, CaptureClock.now() - Rational.one / fps)
            // the newest frame, unpinned: the pictures never hold the camera back
            guard let f = RingReader.newest(in: ring), f.index != last else {
                count(skipped: 1)
                continue
            }
            let m = f.meta, n = f.bytes.count
            copy.copyMemory(from: f.bytes.baseAddress!, byteCount: n)
            guard f.isIntact else {
                count(skipped: 1)
                continue
            }  // overwritten while copied
            last = f.index
            let bytes = UnsafeRawBufferPointer(start: copy, count: n)
            if pixels != nil, maker.maxWidth != width { maker = JPEGMaker(maxWidth: width, bitsPerPixel: bitsPerPixel, burnIn: burnIn) }
            let encoded = try pixels.flatMap { px in try layout.flatMap { try maker.picture(bytes, format, px, $0, label: label(m)) } }
            if pixels != nil && encoded == nil {
                count(skipped: 1)
                continue
            }
            // an MJPEG camera: its own JPEG, not decoded
            let j = encoded ?? (Array(bytes), format.width, format.height)
            let picture = LivePicture(
                jpeg: j.0, frameIndex: f.index, sequence: m.sequence, frameTime: m.timestamp, made: CaptureClock.now(), width: j.1, height: j.2)
            count(made: 1)
            viewers.yield(picture)
            for s in sinks where s.wantsPictures { try s.take(picture) }
        }
    }

    private func count(made: Int64 = 0, skipped: Int64 = 0) {
        lock.lock()
        self.made += made
        self.skipped += skipped
        lock.unlock()
    }
}

/// Raw camera frames or decoded ones into JPEGs at most `maxWidth` wide (the height follows the aspect).
final class JPEGMaker {
    private let scaler = Scaler()
    private let packet = Packet()
    private var encoder: Encoder?
    private var size = (0, 0)
    private var pts: Int64 = 0
    let maxWidth: Int
    /// The encoder's bit rate, per pixel of a picture.
    let bitsPerPixel: Int
    /// The label drawn on each picture (`--preview-burn-in`); nil: none.
    let burnIn: BurnInSettings?
    private var stage: BurnInStage?
    init(maxWidth: Int, bitsPerPixel: Int = 2, burnIn: BurnInSettings? = nil) {
        self.maxWidth = maxWidth
        self.bitsPerPixel = bitsPerPixel
        self.burnIn = burnIn
    }

    /// The picture's size for a frame of `width`×`height`: even, at most `maxWidth` wide.
    func outputSize(width: Int, height: Int) -> (Int, Int) {
        let w = Swift.max(2, Swift.min(maxWidth, width) & ~1)
        return (w, Swift.max(2, (w * height / Swift.max(1, width)) & ~1))
    }

    /// A raw ring frame's bytes as a JPEG; nil when they do not hold a whole frame of `format`.
    func picture(
        _ bytes: UnsafeRawBufferPointer, _ format: CaptureFormat, _ samples: PixelFormat, _ layout: PlaneLayout, label: String? = nil
    ) throws -> ([UInt8], Int, Int)? {
        let base = UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
        guard let f = Frame(borrowing: base, count: bytes.count, width: format.width, height: format.height, pixelFormat: samples, layout: layout)
        else { return nil }
        let j = try jpeg(f, label: label)
        return (j.bytes, j.width, j.height)
    }

    func jpeg(_ frame: Frame, label: String? = nil) throws -> (bytes: [UInt8], width: Int, height: Int) {
        let (w, h) = outputSize(width: frame.width, height: frame.height)
        if encoder == nil || size != (w, h) {
            encoder = try Encoder(
                path: "live picture",
                video: VideoEncoderSettings(
                    codec: "mjpeg", width: w, height: h, pixelFormat: .yuvj420p, frameRate: Rational(10), timeBase: Rational(1, 1000),
                    options: ["b": String(w * h * bitsPerPixel)]), globalHeader: false)
            size = (w, h)
            // larger than an export's: a small, quickly compressed picture read at a glance
            stage = try burnIn.map { b in
                var big = b
                big.size = b.size ?? Swift.max(16, h / 12)
                return try BurnInStage(big, width: w, height: h, pixelFormat: .yuvj420p, threads: 1)
            }
        }
        var small = try scaler.convert(frame, width: w, height: h, pixelFormat: .yuvj420p)
        if let stage, let label { small = try stage.draw(small, label: label, pts: pts) }
        small.pts = pts
        pts += 100
        let e = encoder!
        var out: [UInt8] = []
        while try !e.send(small) { out += try drain(e) }
        out += try drain(e)
        return (out, w, h)
    }

    private func drain(_ e: Encoder) throws -> [UInt8] {
        var out: [UInt8] = []
        while case .got = try e.receive(into: packet) {
            packet.withBytes { out += $0 }
            packet.unref()
        }
        return out
    }
}
