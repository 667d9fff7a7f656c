import Foundation
import SlomoCore
import SlomoSystem
import SlomoFFmpeg

/// A camera stand-in: calibration frames (the generator's picture and code) at a given rate, paced
/// in real time on CLOCK_MONOTONIC like a V4L2 driver, or as fast as possible (`pace=0`, ideal
/// timestamps) for benchmarks. `format=mjpeg` behaves like an MJPEG camera (frames JPEG-encoded by the
/// source), `format=yuv420p`/`yuyv` like a raw one, `format=gray` like a Mono8 machine-vision camera,
/// `format=gray16` or `bayer-rggb8`…`bayer-rggb16` like a lab camera's sensor (`SyntheticSensor`: each
/// sample a known function of the frame's sequence number).
/// Like a driver with `buffers` queued buffers, a paced source drops (skips sequence numbers) the
/// frames its reader is more than `buffers` frame periods late for; timestamps are the frames' due
/// times, as a driver stamps each frame when it is filled.
/// A machine-vision camera's numbering and damage are played too: `counter=gev16` numbers frames as
/// GigE Vision 1.x does (1…65535, then 1), `first-id` sets the first number (to cross a wrap soon),
/// `damage-every=N` delivers every Nth frame incomplete (packets missing).
/// Spec: `synthetic:fps=240,size=1280x720,format=mjpeg|h264|yuv420p|yuyv|gray|gray16|bayer-rggb16|…,gop=30,pace=1,drop-every=0,buffers=8,still-until=0,preload=0,counter=v4l2|gev16|wide,first-id=0,damage-every=0`.
public final class SyntheticSource: CaptureSource {
    public let format: CaptureFormat
    public let name = "synthetic"
    public let timestampClock: TimestampClock? = TimestampClock(.monotonic, .endOfFrame)
    public var isPaced: Bool { pace }
    /// Frames a late reader may fall behind before the source drops (a driver's queued buffers).
    let buffers: Int
    /// Frames before this one show a still picture (only the code band changes): the image
    /// trigger's test scene, whose first moving frame is known.
    let stillUntil: Int
    /// Frames given before the camera hangs (0: never).
    let stallAfter: Int
    /// Frames given before the camera is unplugged (0: never).
    let goneAfter: Int
    let fps: Rational
    let pace: Bool
    /// Skip a sequence number every N frames (simulates driver drops; 0 = never).
    let dropEvery: Int
    /// Every Nth frame arrives damaged (0 = never).
    let damageEvery: Int
    public let frameCounter: FrameCounter
    /// The sensor format's samples, for the formats that are not the calibration picture.
    let sensor: SyntheticSensor?
    private var index: Int64 = 0
    private var sequence: UInt64 = 0
    private var startTime: Rational = .zero
    private let yuv: Frame
    private let packed: Frame?
    private var jpeg: Encoder?
    private let packet = Packet()
    private let scaler = Scaler()
    /// Pre-rendered frames (benchmarks): when set, frames are taken round-robin from here.
    private var preloaded: [UnsafeMutableRawBufferPointer] = []
    private var preloadedCounts: [Int] = []
    /// Where frames are rendered (one frame, reused).
    private let scratch: UnsafeMutableRawBufferPointer

    public init(spec text: String) throws {
        let spec = try SyntheticSpec(parsing: text)
        let fps = spec.fps, size = spec.size, fmt = spec.format, gop = spec.gop, preload = spec.preload
        self.fps = fps
        pace = spec.pace
        dropEvery = spec.dropEvery
        damageEvery = spec.damageEvery
        frameCounter = spec.counter
        sequence = spec.firstID
        buffers = spec.buffers
        stillUntil = spec.stillUntil
        stallAfter = spec.stallAfter
        goneAfter = spec.goneAfter
        let sensor = SyntheticSensor(fmt)
        self.sensor = sensor
        let fourcc = sensor?.fourcc ?? (fmt == "mjpeg" ? "MJPG" : fmt == "h264" ? "H264" : fmt == "yuyv" ? "YUYV" : fmt == "gray" ? "GREY" : "YU12")
        let bpl = sensor.map { size.0 * $0.bytesPerSample } ?? (fmt == "yuyv" ? size.0 * 2 : fmt == "yuv420p" || fmt == "gray" ? size.0 : 0)
        let frameBytes =
            sensor != nil
            ? bpl * size.1
            : fmt == "yuyv" ? size.0 * size.1 * 2 : fmt == "yuv420p" ? size.0 * size.1 * 3 / 2 : fmt == "gray" ? size.0 * size.1 : size.0 * size.1 * 3 + 4096
        format = CaptureFormat(
            fourcc: fourcc, width: size.0, height: size.1, bytesPerLine: bpl, frameDuration: Rational.one / fps,
            planes: [CapturePlane(bytesPerLine: bpl, size: frameBytes)])
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: frameBytes, alignment: 64)
        do {
            yuv = try Frame(width: size.0, height: size.1, pixelFormat: fmt == "mjpeg" ? .yuvj420p : .yuv420p)
            packed = fmt == "yuyv" ? try Frame(width: size.0, height: size.1, pixelFormat: PixelFormat(v4l2FourCC: "YUYV")!) : nil
            if fmt == "mjpeg" {
                jpeg = try Encoder(
                    path: "synthetic",
                    video: VideoEncoderSettings(
                        codec: "mjpeg", width: size.0, height: size.1, pixelFormat: .yuvj420p, frameRate: fps,
                        options: ["b": String(size.0 * size.1 * 8)]), globalHeader: false)
            } else if fmt == "h264" {
                // like a UVC H.264 camera: Annex B, SPS/PPS repeated at every IDR, an IDR every `gop`
                // frames, P-frames only (no reordering), one access unit out per frame in
                jpeg = try Encoder(
                    path: "synthetic",
                    video: VideoEncoderSettings(
                        codec: "libx264", width: size.0, height: size.1, pixelFormat: .yuv420p, frameRate: fps,
                        options: [
                            "preset": "ultrafast", "tune": "zerolatency", "g": String(gop), "keyint_min": String(gop),
                            "sc_threshold": "0", "bf": "0",
                        ]), globalHeader: false)
            }
            if preload > 0 { try self.preload(preload) }
        } catch { throw CaptureError.synthetic("synthetic source: \(error)") }
    }

    deinit {
        scratch.deallocate()
        for p in preloaded { p.deallocate() }
    }

    /// Renders `count` frames now, so a benchmark times only dequeue → store.
    public func preload(_ count: Int) throws {
        for k in 0..<count {
            let n = try render(index: Int64(k), sequence: frameCounter.advanced(sequence, by: UInt64(k)))
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(n, 1), alignment: 64)
            copy.copyMemory(from: UnsafeRawBufferPointer(rebasing: scratch[0..<n]))
            preloaded.append(copy)
            preloadedCounts.append(n)
        }
    }

    public func start() throws { startTime = CaptureClock.now() }

    public func next(_ body: (BorrowedFrame) -> Void) throws -> CaptureEnd? {
        if goneAfter > 0 && index >= Int64(goneAfter) {
            return .disconnected("the synthetic camera was unplugged after \(goneAfter) frames (gone-after)")
        }
        if stallAfter > 0 && index >= Int64(stallAfter) {
            usleep(10_000)  // hung: open, answering nothing
            return .idle
        }
        if dropEvery > 0 && index > 0 && index % Int64(dropEvery) == 0 {
            index += 1
            sequence = frameCounter.advanced(sequence, by: 1)
        }
        if pace {
            // a reader more than `buffers` periods late finds only the newest frames (driver drops)
            let now = CaptureClock.now()
            let latest = ((now - startTime) * fps).floor
            if latest - index >= Int64(buffers) {
                let lost = latest - index - Int64(buffers) + 1
                index += lost
                sequence = frameCounter.advanced(sequence, by: UInt64(lost))
            }
        }
        let due = startTime + Rational(index) / fps
        if pace {
            while true {
                let now = CaptureClock.now()
                if now >= due { break }
                let wait = ((due - now) * Rational(1_000_000)).rounded(.up)
                CurrentProcess.sleep(microseconds: Int(Swift.min(wait, 100_000)))
            }
        }
        let view: UnsafeRawBufferPointer
        if !preloaded.isEmpty {
            let k = Int(index % Int64(preloaded.count))
            view = UnsafeRawBufferPointer(rebasing: preloaded[k][0..<preloadedCounts[k]])
        } else {
            let n = try render(index: index, sequence: sequence)
            view = UnsafeRawBufferPointer(rebasing: scratch[0..<n])
        }
        let damaged = damageEvery > 0 && index > 0 && index % Int64(damageEvery) == 0
        body(BorrowedFrame(planes: [view], timestamp: due, sequence: sequence, damage: damaged ? .incomplete(missingPackets: 3) : nil))
        index += 1
        sequence = frameCounter.advanced(sequence, by: 1)
        return nil
    }

    public func stop() {}

    /// Paints frame `index` (sequence number `sequence`) into `scratch`; returns its byte count.
    private func render(index: Int64, sequence: UInt64) throws -> Int {
        if let sensor { return sensor.render(sequence: sequence, width: format.width, height: format.height, into: scratch.baseAddress!) }
        try yuv.makeWritable()
        yuv.withPlane(0) { y, ys in
            yuv.withPlane(1) { u, cs in
                yuv.withPlane(2) { v, _ in
                    let n = Int(index % Int64(CalibrationCode.maxIndex))
                    CalibrationPicture.paint(
                        index: n < stillUntil ? 0 : n, fps: fps, y: y, yStride: ys,
                        u: u, v: v, chromaStride: cs, width: format.width, height: format.height)
                    if n < stillUntil { CalibrationCode.paint(index: n, luma: y, width: format.width, height: format.height, stride: ys) }
                }
            }
        }
        if let jpeg {
            yuv.pts = index
            _ = try jpeg.send(yuv)
            guard case .got = try jpeg.receive(into: packet) else { throw CaptureError.synthetic("synthetic: \(format.fourcc) encoder gave no frame") }
            return packet.withBytes { b in
                let n = Swift.min(b.count, scratch.count)
                scratch.baseAddress!.copyMemory(from: b.baseAddress!, byteCount: n)
                return n
            }
        }
        let src: Frame =
            packed == nil ? yuv : try scaler.convert(yuv, width: format.width, height: format.height, pixelFormat: PixelFormat(v4l2FourCC: "YUYV")!)
        var offset = 0
        let planes =
            packed != nil
            ? [(0, format.width * 2, format.height)]
            : format.fourcc == "GREY"
                ? [(0, format.width, format.height)]  // a Mono8 machine-vision camera: the luma alone
                : [(0, format.width, format.height), (1, format.width / 2, format.height / 2), (2, format.width / 2, format.height / 2)]
        for (i, w, h) in planes {
            src.withPlane(i) { p, stride in
                for row in 0..<h { (scratch.baseAddress! + offset + row * w).copyMemory(from: p + row * stride, byteCount: w) }
            }
            offset += w * h
        }
        return offset
    }
}

/// `synthetic:fps=240,size=1280x720,format=…,gop=30,pace=1,drop-every=0,buffers=8,still-until=0,preload=0,stall-after=0`
/// (`stall-after=N`: a camera that hangs after N frames, still open but giving none;
/// `gone-after=N`: one unplugged after N frames, as a driver's ENODEV),
/// parsed and checked (a `SettingError` naming the whole spec).
struct SyntheticSpec {
    var fps = Rational(240), size = (640, 360), format = "mjpeg", pace = true
    var dropEvery = 0, preload = 0, buffers = 8, stillUntil = 0, gop = 30, damageEvery = 0, stallAfter = 0, goneAfter = 0
    var counter = FrameCounter.v4l2, firstID: UInt64 = 0

    /// The keys whose value is a count of frames (0 or more): the field and how to say it.
    static func count(_ key: String) -> (WritableKeyPath<SyntheticSpec, Int>, String)? {
        switch key {
        case "drop-every": (\.dropEvery, "a whole number")
        case "damage-every": (\.damageEvery, "a whole number")
        case "still-until": (\.stillUntil, "a frame number")
        case "stall-after": (\.stallAfter, "a frame count")
        case "gone-after": (\.goneAfter, "a frame count")
        default: nil
        }
    }

    init(parsing text: String) throws(SettingError) {
        let body = text.hasPrefix("synthetic:") ? String(text.dropFirst("synthetic:".count)) : (text == "synthetic" ? "" : text)
        for item in body.split(separator: ",") where !item.isEmpty {
            let kv = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { throw SettingError(.source, text, "'\(item)' is not key=value", quoted: false) }
            switch kv[0] {
            case "fps":
                do { fps = try Rational(parsing: kv[1]) } catch { throw SettingError(.source, text, "fps '\(kv[1])': \(error)", quoted: false) }
                guard fps >= Rational(1), fps <= Rational(2000) else { throw SettingError(.source, text, "fps must be in 1...2000", quoted: false) }
            case "size":
                let p = kv[1].split(separator: "x").compactMap { Int($0) }
                guard p.count == 2, p[0] >= 96, p[1] >= 64, p[0] <= 3840, p[1] <= 2160, p[0] % 2 == 0, p[1] % 2 == 0 else {
                    throw SettingError(.source, text, "size must be even WIDTHxHEIGHT within 96x64...3840x2160", quoted: false)
                }
                size = (p[0], p[1])
            case "format":
                guard ["mjpeg", "h264", "yuv420p", "yuyv", "gray"].contains(kv[1]) || SyntheticSensor(kv[1]) != nil else {
                    throw SettingError(.source, text, "format must be mjpeg, h264, yuv420p, yuyv, gray, \(SyntheticSensor.names)", quoted: false)
                }
                format = kv[1]
            case "gop":
                guard let n = Int(kv[1]), (1...1000).contains(n) else { throw SettingError(.source, text, "gop must be in 1...1000", quoted: false) }
                gop = n
            case "pace": pace = kv[1] != "0"
            case "counter":
                let counters = ["v4l2": FrameCounter.v4l2, "gev16": .gigEVision16, "wide": .wide]
                guard let c = counters[kv[1]] else { throw SettingError(.source, text, "counter must be v4l2, gev16 or wide", quoted: false) }
                counter = c
            case "first-id":
                guard let n = UInt64(kv[1]) else { throw SettingError(.source, text, "first-id must be a whole number", quoted: false) }
                firstID = n
            case "buffers":
                guard let n = Int(kv[1]), (1...64).contains(n) else { throw SettingError(.source, text, "buffers must be in 1...64", quoted: false) }
                buffers = n
            case "preload":
                guard let n = Int(kv[1]), (0...10_000).contains(n) else { throw SettingError(.source, text, "preload must be in 0...10000", quoted: false) }
                preload = n
            case let key where Self.count(key) != nil:
                let (field, what) = Self.count(key)!
                guard let n = Int(kv[1]), n >= 0 else { throw SettingError(.source, text, "\(key) must be \(what)", quoted: false) }
                self[keyPath: field] = n
            default:
                throw SettingError(
                    .source, text,
                    "unknown key '\(kv[0])' (fps, size, format, gop, pace, drop-every, buffers, still-until, preload, counter, first-id, damage-every, stall-after, gone-after)",
                    quoted: false)
            }
        }
        guard (counter.first...counter.last).contains(firstID) else {
            throw SettingError(.source, text, "first-id must be in \(counter.first)...\(counter.last) for this counter", quoted: false)
        }
    }
}
