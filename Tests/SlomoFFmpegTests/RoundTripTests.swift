import Foundation
import SlomoCore
import SlomoFFmpeg
import SlomoTestSupport
import Testing

/// The FFmpeg wrappers on their own (no use case above them): frames through a real encoder and
/// muxer into a file, read back by the demuxer and decoder with the same times and pictures.
@Suite struct RoundTripTests {
    /// A gray frame whose luma is `level` (an index one can read back after lossless coding).
    static func frame(level: UInt8, pts: Int64) throws -> Frame {
        let f = try Frame(width: 64, height: 32, pixelFormat: .yuv420p)
        for plane in 0..<3 {
            f.withPlane(plane) { p, stride in
                let rows = plane == 0 ? 32 : 16, cols = plane == 0 ? 64 : 32
                for y in 0..<rows { for x in 0..<cols { p[y * stride + x] = plane == 0 ? level : 128 } }
            }
        }
        f.pts = pts
        return f
    }

    @Test(arguments: [("ffv1", "mkv"), ("ffv1", "nut"), ("libx264", "mp4")])
    func framesComeBackWithTheirTimesAndPictures(codec: String, container: String) throws {
        let dir = ScratchDirectory()
        let path = dir.file("rt.\(container)")
        let rate = Rational(240)
        let muxer = try Muxer(path: path)
        var options: [String: String] = [:]
        if codec == "libx264" { options = ["qp": "0", "preset": "ultrafast"] }
        let encoder = try Encoder(
            path: path,
            video: VideoEncoderSettings(
                codec: codec, width: 64, height: 32, pixelFormat: .yuv420p,
                frameRate: rate, options: options, threads: 1),
            globalHeader: muxer.wantsGlobalHeader)
        let stream = try muxer.addStream(for: encoder)
        try muxer.writeHeader()
        let packet = Packet()
        func drain() throws {
            while case .got = try encoder.receive(into: packet) {
                packet.streamIndex = stream
                packet.rescaleTimestamps(from: encoder.timeBase, to: muxer.timeBase(ofStream: stream))
                try muxer.write(packet)
            }
        }
        for n in 0..<24 {
            while try !encoder.send(try Self.frame(level: UInt8(16 + n * 8), pts: Int64(n))) { try drain() }
            try drain()
        }
        _ = try encoder.send(nil)
        try drain()
        try muxer.finish()

        let demuxer = try Demuxer(path: path)
        let video = try #require(demuxer.bestStream(.video))
        let info = demuxer.streamInfo(video)
        #expect(info.width == 64 && info.height == 32 && info.codecName == (codec == "libx264" ? "h264" : "ffv1"))
        let decoder = try demuxer.makeDecoder(stream: video, threads: 1)
        var levels: [Int] = [], times: [Rational] = []
        let out = Frame()
        func receive() throws {
            while case .got = try decoder.receive(into: out) {
                times.append(Rational(ticks: try #require(out.bestEffortTimestamp), timeBase: info.timeBase))
                levels.append(out.withPlane(0) { p, _ in Int(p[32 * 0 + 10]) })
            }
        }
        while try demuxer.readPacket(into: packet) {
            guard packet.streamIndex == video else { continue }
            while try !decoder.send(packet) { try receive() }
            try receive()
        }
        _ = try decoder.send(nil)
        try receive()
        #expect(levels == (0..<24).map { 16 + $0 * 8 }, "lossless: every picture back as written")
        let first = try #require(times.first)
        // each time n/240 s to within half a tick of the stream's time base: exact where 1/240 s is
        // a whole number of ticks (NUT, MP4), within 0.5 ms in Matroska's 1/1000
        let expected = (0..<24).map { Rational(Int64($0)) / rate }
        let halfTick = info.timeBase / Rational(2)
        #expect(zip(times.map { $0 - first }, expected).allSatisfy { ($0 - $1).magnitude <= halfTick }, "\(info.timeBase): \(times)")
    }

    @Test func aMissingInputIsTypedAndNamed() {
        do {
            _ = try Demuxer(path: "/nonexistent/clip.mp4")
            Issue.record("opened a missing file")
        } catch {
            #expect(error.category == .inputMissing)
            #expect(error.systemErrno == ENOENT)
            #expect("\(error)".contains("/nonexistent/clip.mp4"))
        }
    }

    /// A system error FFmpeg passes on is typed as its errno; FFmpeg's own codes are not errnos.
    @Test func systemErrorsKeepTheirErrno() {
        #expect(FFmpegError(path: "x.mp4", operation: "av_write_frame", code: -ENOSPC).systemErrno == ENOSPC)
        #expect(FFmpegError(path: "x.mp4", operation: "avcodec_send_packet", code: -1094995529).systemErrno == nil)  // AVERROR_INVALIDDATA
        #expect(FFmpegError(path: "x.mp4", operation: "open", message: "no video stream", category: .invalidData).systemErrno == nil)
    }

    @Test func rationalsAndTicksConvertExactly() throws {
        #expect(try Rational(1, 240).ticks(in: Rational(1, 90000), rounding: .nearest) == 375)
        #expect(Rational(ticks: 375, timeBase: Rational(1, 90000)) == Rational(1, 240))
        #expect(Encoder.pixelFormats(codec: "ffv1").contains(.yuv420p))
    }
}
