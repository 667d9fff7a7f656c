import Foundation
import Testing
import SlomoCore
import SlomoFFmpeg
@testable import SlomoKit

/// A camera that hands over given bytes, plane by plane: layouts the synthetic camera does not
/// make (Bayer, odd sizes, three-plane multi-planar buffers with padded plane sizes).
final class ScriptedSource: CaptureSource {
    let format: CaptureFormat
    let name = "scripted"
    let timestampClock: TimestampClock? = TimestampClock(.monotonic, .endOfFrame)
    let frames: [[[UInt8]]]
    private var next = 0

    init(format: CaptureFormat, frames: [[[UInt8]]]) {
        self.format = format
        self.frames = frames
    }
    func start() throws {}
    func stop() {}
    func next(_ body: (BorrowedFrame) -> Void) throws -> CaptureEnd? {
        guard next < frames.count else { return .finished }
        let planes = frames[next]
        func lend(_ k: Int, _ views: [UnsafeRawBufferPointer]) {
            if k == planes.count {
                body(BorrowedFrame(planes: views, timestamp: Rational(Int64(next), 60), sequence: UInt64(next)))
                return
            }
            planes[k].withUnsafeBytes { lend(k + 1, views + [$0]) }
        }
        lend(0, [])
        next += 1
        return nil
    }
}

/// FFV1 and raw store the camera's samples exactly: what a decoder gives back is the bytes handed over.
@Suite(.serialized) struct LosslessLayoutTests {
    func store(
        _ format: CaptureFormat, _ frames: [[[UInt8]]], codec: RecordingSettings.RawCodec, _ dir: TemporaryDirectory,
        _ name: String
    ) throws -> String {
        var settings = RecordingSettings(output: dir.file(name))
        settings.rawCodec = codec
        var limits = CaptureLimits()
        limits.realtime = false
        limits.lockMemory = false
        let r = try CaptureSession(source: ScriptedSource(format: format, frames: frames), settings: settings, limits: limits).run()
        #expect(r.framesWritten == Int64(frames.count) && r.shortFrames == 0)
        return settings.output
    }

    /// `ffmpeg -i FILE -f rawvideo -pix_fmt PIX -`: the decoded bytes, and the stream's `codec,pix_fmt,WxH`.
    func decoded(_ path: String, _ pix: String) throws -> ([UInt8], String) {
        let bytes = try IndependentReaderTests.bytes(of: "ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", pix, "-"])
        let info = try IndependentReaderTests.output(
            of: "ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,pix_fmt,width,height", "-of", "csv=p=0", path])
        return ([UInt8](bytes), info.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func pattern(_ n: Int, seed: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 61 * 13 + seed * 31) } }

    @Test(arguments: [RecordingSettings.RawCodec.ffv1, .raw])
    func bayerIsStoredUndebayeredAtAnOddSize(codec: RecordingSettings.RawCodec) throws {
        let dir = TemporaryDirectory()
        let format = CaptureFormat(
            fourcc: "BA81", width: 63, height: 31, bytesPerLine: 63, frameDuration: Rational(1, 60),
            planes: [CapturePlane(bytesPerLine: 63, size: 63 * 31)])
        let frames = (0..<3).map { [pattern(63 * 31, seed: $0)] }
        let path = try store(format, frames, codec: codec, dir, "bayer.mkv")
        let (bytes, info) = try decoded(path, "gray")
        #expect(info == "\(codec == .raw ? "rawvideo" : "ffv1"),63,31,gray")
        #expect(bytes == frames.flatMap { $0[0] }, "\(bytes.count) bytes")  // the sensor's samples, not demosaiced ones
        // (Matroska stores tag names in capitals)
        #expect(try Prober.probe(path: path).container.metadata.first { $0.key.lowercased() == "slomo_cfa_pattern" }?.value == "BGGR")
    }

    /// A flat colour seen through an RGGB mosaic (R 200, G 120, B 40 in 8-bit terms), stored
    /// undebayered, comes out of export in colour: the samples are read as the mosaic and demosaiced.
    /// Without that the export would be gray (R = G = B). 12-bit samples (RG12) are widened first.
    @Test(arguments: ["RGGB", "RG12"])
    func exportDebayersARawSensorCapture(fourcc: String) throws {
        let dir = TemporaryDirectory()
        let (w, h) = (64, 32)
        let wide = fourcc == "RG12"
        let bpl = wide ? w * 2 : w
        var mosaic = [UInt8](repeating: 0, count: bpl * h)
        for y in 0..<h {
            for x in 0..<w {
                let v = y % 2 == 0 ? (x % 2 == 0 ? 200 : 120) : (x % 2 == 0 ? 120 : 40)
                if wide {
                    let s = v * 16  // 12-bit sample, little-endian in 16 bits
                    mosaic[y * bpl + 2 * x] = UInt8(s & 0xff)
                    mosaic[y * bpl + 2 * x + 1] = UInt8(s >> 8)
                } else {
                    mosaic[y * bpl + x] = UInt8(v)
                }
            }
        }
        let format = CaptureFormat(
            fourcc: fourcc, width: w, height: h, bytesPerLine: bpl, frameDuration: Rational(1, 60),
            planes: [CapturePlane(bytesPerLine: bpl, size: bpl * h)])
        let master = try store(format, Array(repeating: [mosaic], count: 4), codec: .ffv1, dir, "sensor.mkv")
        let e = try Exporter.export(ExportRequest(input: master, output: dir.file("colour.mp4"), spec: RetimeSpec()))
        let (rgb, info) = try decoded(e.output, "rgb24")
        #expect(info.hasPrefix("h264,64,32,"), "\(info)")
        let i = (16 * w + 32) * 3
        let px = rgb.count > i + 2 ? [Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2])] : []
        #expect(px.count == 3 && abs(px[0] - 200) <= 10 && abs(px[1] - 120) <= 10 && abs(px[2] - 40) <= 10, "\(px)")
    }

    @Test func threePlaneBuffersWithPaddedPlaneSizesLandWhereTheirPlanesAre() throws {
        let dir = TemporaryDirectory()
        // YM12: Y, Cb, Cr in three buffers; drivers often round each plane's size up to a page
        let format = CaptureFormat(
            fourcc: "YM12", width: 64, height: 32, bytesPerLine: 64, frameDuration: Rational(1, 60),
            planes: [
                CapturePlane(bytesPerLine: 64, size: 64 * 32 + 4096),
                CapturePlane(bytesPerLine: 32, size: 32 * 16 + 4096),
                CapturePlane(bytesPerLine: 32, size: 32 * 16 + 4096),
            ])
        let frames = (0..<2).map { i in [pattern(64 * 32, seed: i), pattern(32 * 16, seed: i + 10), pattern(32 * 16, seed: i + 20)] }
        let path = try store(format, frames, codec: .raw, dir, "ym12.mkv")
        let (bytes, info) = try decoded(path, "yuv420p")
        #expect(info == "rawvideo,64,32,yuv420p")
        #expect(bytes == frames.flatMap { $0.flatMap { $0 } }, "\(bytes.count) bytes")
    }

    @Test func ffv1KeepsAnOddSizedPlanarPicture() throws {
        let dir = TemporaryDirectory()
        let n = 65 * 33 + 2 * 33 * 17  // 4:2:0 chroma of 65x33: 33x17
        let format = CaptureFormat(
            fourcc: "YU12", width: 65, height: 33, bytesPerLine: 65, frameDuration: Rational(1, 60),
            planes: [CapturePlane(bytesPerLine: 65, size: n)])
        let frames = (0..<2).map { [pattern(n, seed: $0)] }
        let (bytes, info) = try decoded(try store(format, frames, codec: .ffv1, dir, "odd.mkv"), "yuv420p")
        #expect(info == "ffv1,65,33,yuv420p")  // every row and column kept
        #expect(bytes == frames.flatMap { $0[0] }, "\(bytes.count) bytes")
    }
}

/// Two cameras on one event (`MultiCapture`) with the synthetic camera (its SIGUSR1 test is in
/// `TriggerCaptureTests`).
@Suite(.serialized) struct MultiCaptureTests {
    @Test func camerasAtDifferentRatesAreRefused() throws {
        let dir = TemporaryDirectory()
        let a = try CaptureSession(
            source: try SyntheticSource(spec: "synthetic:fps=100,size=320x180"), settings: RecordingSettings(output: dir.file("a.mp4")), limits: CaptureLimits()
        )
        let b = try CaptureSession(
            source: try SyntheticSource(spec: "synthetic:fps=60,size=320x180"), settings: RecordingSettings(output: dir.file("b.mp4")), limits: CaptureLimits())
        #expect(throws: CaptureError.self) { try MultiCapture.checkRates([a, b]) }
        do { try MultiCapture.checkRates([a, b]) } catch let e as CaptureError {
            #expect(
                e.description.hasPrefix("synthetic: runs at 60 fps, synthetic at 100 fps: cameras on one event must run at one rate") && e.kind == .unavailable,
                "\(e.description)")
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        n += 1
        return n
    }
}
