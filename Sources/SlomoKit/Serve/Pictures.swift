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

/// Raw camera frames or decoded ones into JPEGs at most `width` wide (the height follows the aspect).
final class JPEGMaker {
    private let scaler = Scaler()
    private let packet = Packet()
    private var encoder: Encoder?
    private var size = (0, 0)
    private var pts: Int64 = 0
    let maxWidth: Int
    init(maxWidth: Int) { self.maxWidth = maxWidth }

    /// The picture's size for a frame of `width`×`height`: even, at most `maxWidth` wide.
    func outputSize(width: Int, height: Int) -> (Int, Int) {
        let w = Swift.max(2, Swift.min(maxWidth, width) & ~1)
        return (w, Swift.max(2, (w * height / Swift.max(1, width)) & ~1))
    }

    func jpeg(_ frame: Frame) throws -> (bytes: [UInt8], width: Int, height: Int) {
        let (w, h) = outputSize(width: frame.width, height: frame.height)
        if encoder == nil || size != (w, h) {
            encoder = try Encoder(
                path: "live picture",
                video: VideoEncoderSettings(
                    codec: "mjpeg", width: w, height: h, pixelFormat: .yuvj420p, frameRate: Rational(10), timeBase: Rational(1, 1000),
                    options: ["b": String(w * h * 2)]), globalHeader: false)
            size = (w, h)
        }
        let small = try scaler.convert(frame, width: w, height: h, pixelFormat: .yuvj420p)
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

/// The camera as JPEGs for the server's viewers: a reader of the ring that takes the newest frame
/// at the preview rate, unpinned (the camera never waits for it), and only while someone watches.
/// Each viewer holds at most one picture it has not taken yet; a newer one replaces it (counted
/// in `replaced`), so a slow or stalled client loses pictures, never the camera's frames.
public final class LivePictures: RingTap, @unchecked Sendable {
    // Safe: `viewers`, `format`, `ring`, `stopping`, the counters under `lock`; `thread` only by
    // the rig's control calls (start/stop), one at a time.
    private let lock = NSLock()
    private let viewers = Subscribers<LivePicture>(keep: 1)
    private var format: CaptureFormat?
    private var ring: FrameRing?
    private var stopping = false
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    public private(set) var fps: Rational
    public private(set) var maxWidth: Int
    private var made: Int64 = 0, failed: String?

    public init(fps: Rational = Rational(10), maxWidth: Int = 640) { self.fps = fps; self.maxWidth = maxWidth }

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
        lock.lock(); defer { lock.unlock() }
        return Counts(viewers: viewers.count, pictures: made, replaced: viewers.replacedCount, fps: fps, width: maxWidth, error: failed)
    }

    /// The rate and width of the pictures (applied from the next picture on).
    public func set(fps: Rational? = nil, width: Int? = nil) {
        lock.lock(); if let fps { self.fps = fps }; if let width { maxWidth = width }; lock.unlock()
    }

    /// The camera's format for the next `start` (the rig's session is about to open it).
    func use(format: CaptureFormat) { lock.lock(); self.format = format; failed = nil; lock.unlock() }

    /// A new viewer: its pictures, one pending at most. `stop` with its id ends it.
    public func watch() -> (id: Int, pictures: AsyncStream<LivePicture>) {
        let (id, values) = viewers.add()
        return (id, values)
    }

    public func stopWatching(_ id: Int) { viewers.remove(id) }

    /// One picture now (a viewer for as long as it takes; nil after `timeout` seconds without a frame).
    public func snapshot(timeout: Double = 3) async -> LivePicture? {
        let (id, pictures) = watch()
        defer { stopWatching(id) }
        let deadline = CaptureClock.now() + Rational(Int64(timeout * 1000), 1000)
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
            self?.stopWatching(id)
        }
        defer { timer.cancel() }
        for await p in pictures { return p }
        _ = deadline
        return nil
    }

    // MARK: RingTap

    func start(ring: FrameRing) {
        lock.lock(); self.ring = ring; stopping = false; lock.unlock()
        let t = Thread { [self] in
            _ = ThreadPriority.nice(19)
            run(ring)
            done.signal()
        }
        t.name = "slomo-live"
        t.stackSize = 1 << 20
        thread = t
        t.start()
    }

    func stop() {
        lock.lock(); stopping = true; lock.unlock()
        if thread != nil { done.wait(); thread = nil }
        lock.lock(); ring = nil; lock.unlock()
    }

    /// The ring the camera fills now (nil between sessions).
    var currentRing: FrameRing? { lock.lock(); defer { lock.unlock() }; return ring }

    private func run(_ ring: FrameRing) {
        lock.lock(); let format = self.format; lock.unlock()
        guard let format else { return }
        do { try loop(ring, format: format) } catch {
            lock.lock(); failed = "\(error)"; lock.unlock()
        }
    }

    private func loop(_ ring: FrameRing, format: CaptureFormat) throws {
        let pixels = format.samples()
        if format.nalCodec != nil || (!format.isCompressed && pixels == nil) {
            throw CaptureError.previewNeedsIntraFrames(fourcc: format.fourcc)
        }
        let layout = try format.planeLayout()
        let copy = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(1, format.maxFrameBytes, layout?.size ?? 0), alignment: 64)
        defer { copy.deallocate() }
        var maker: JPEGMaker?
        var last: Int64 = -1
        var next = CaptureClock.now()
        while true {
            lock.lock()
            let stop = stopping, fps = self.fps, width = maxWidth
            lock.unlock()
            if stop { return }
            let watched = viewers.count > 0
            // pictures are made only while someone watches
            guard watched else { CurrentProcess.sleep(microseconds: 10_000); next = CaptureClock.now(); continue }
            let wait = ((next - CaptureClock.now()) * Rational(1_000_000)).rounded(.up)
            if wait > 0 { CurrentProcess.sleep(microseconds: Int(Swift.min(wait, 100_000))); continue }
            next = Swift.max(next + Rational.one / fps, CaptureClock.now() - Rational.one / fps)
            guard let f = RingReader.newest(in: ring), f.index != last else { continue }
            let m = f.meta, n = f.bytes.count
            copy.copyMemory(from: f.bytes.baseAddress!, byteCount: n)
            guard f.isIntact else { continue }  // overwritten while copied
            last = f.index
            let picture: LivePicture
            if let px = pixels, let layout {
                if maker?.maxWidth != width { maker = JPEGMaker(maxWidth: width) }
                guard let frame = Frame(borrowing: copy, count: n, width: format.width, height: format.height, pixelFormat: px, layout: layout) else {
                    continue
                }
                let j = try maker!.jpeg(frame)
                picture = LivePicture(
                    jpeg: j.bytes, frameIndex: f.index, sequence: m.sequence, frameTime: m.timestamp,
                    made: CaptureClock.now(), width: j.width, height: j.height)
            } else {
                // an MJPEG camera: its own JPEG, not decoded
                picture = LivePicture(
                    jpeg: Array(UnsafeRawBufferPointer(start: copy, count: n)), frameIndex: f.index, sequence: m.sequence,
                    frameTime: m.timestamp, made: CaptureClock.now(), width: format.width, height: format.height)
            }
            publish(picture)
        }
    }

    private func publish(_ p: LivePicture) {
        lock.lock(); made += 1; lock.unlock()
        viewers.yield(p)
    }
}

/// A saved shot's frames as JPEGs, for the page's scrubber and `frames/{n}.jpg`: the file is decoded
/// once, front to back, on its own thread, and every frame kept as a JPEG (so scrubbing backwards
/// costs nothing); a request waits until its frame is decoded.
final class ShotPictures: @unchecked Sendable {
    // Safe: `pictures`, `finished`, `failure` under `cond`.
    private let cond = NSCondition()
    private var pictures: [[UInt8]] = []
    private var finished = false
    private var failure: Error?
    private var cancelled = false
    let path: String

    /// Stops the decoding (the shot was let go or deleted); waiting requests get what is decoded.
    func cancel() { cond.lock(); cancelled = true; cond.broadcast(); cond.unlock() }
    private var isCancelled: Bool { cond.lock(); defer { cond.unlock() }; return cancelled }

    init(path: String, width: Int) {
        self.path = path
        let t = Thread { [self] in
            _ = ThreadPriority.nice(10)
            do { try decode(width: width) } catch {
                cond.lock(); failure = error; cond.unlock()
            }
            cond.lock(); finished = true; cond.broadcast(); cond.unlock()
        }
        t.name = "slomo-shot-frames"
        t.start()
    }

    /// Frame `index` of the file (0: its first), nil when the file has no such frame.
    func picture(_ index: Int) throws -> [UInt8]? {
        cond.lock(); defer { cond.unlock() }
        while pictures.count <= index && !finished && !cancelled { cond.wait() }
        if index < pictures.count { return pictures[index] }
        if let failure { throw failure }
        return nil
    }

    private func decode(width: Int) throws {
        let demuxer = try Demuxer(path: path)
        guard let stream = demuxer.streams.first(where: { $0.kind == .video })?.index else { return }
        demuxer.keepOnly(streams: [stream])
        let decoder = try demuxer.makeDecoder(stream: stream)
        let packet = Packet(), frame = Frame()
        let maker = JPEGMaker(maxWidth: width)
        func drain() throws {
            while case .got = try decoder.receive(into: frame) {
                let j = try maker.jpeg(frame)
                frame.unref()
                cond.lock(); pictures.append(j.bytes); cond.broadcast(); cond.unlock()
            }
        }
        while try demuxer.readPacket(into: packet) {
            if isCancelled { return }
            guard packet.streamIndex == stream else { packet.unref(); continue }
            while try !decoder.send(packet) { try drain() }
            packet.unref()
            try drain()
        }
        _ = try decoder.send(Packet?.none)
        try drain()
    }
}
