import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// Retimed files read by parsers that are not FFmpeg: MediaInfo for MP4, mkvinfo (MKVToolNix) for
/// Matroska. Both are installed by `scripts/dev.sh deps`. (MP4Box is not in Debian 12.)
@Suite struct IndependentReaderTests {
    static let spec = RetimeSpec(segments: [try! SegmentSpec(parsing: "0.6-1.1@1/4")])

    static func output(of tool: String, _ args: [String]) throws -> String {
        String(decoding: try bytes(of: tool, args), as: UTF8.self)
    }

    /// A tool's standard output as bytes (stderr dropped); its exit status is expected to be 0.
    static func bytes(of tool: String, _ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(tool) \(args) exited \(p.terminationStatus) (installed by scripts/dev.sh deps?)")
        return data
    }

    static func retimed(_ dir: TemporaryDirectory, _ name: String) throws -> RetimeReport {
        let g = GenerateRequest(output: dir.file("src.mp4"), frameRate: Rational(240), duration: Rational(2), width: 160, height: 96)
        _ = try Generator.generate(g)
        return try Retimer.retime(RetimeRequest(input: g.output, output: dir.file(name), spec: spec))
    }

    @Test func mediaInfoSeesAVariableRateMP4WithTheRetimedDuration() throws {
        let dir = TemporaryDirectory()
        let r = try Self.retimed(dir, "r.mp4")
        let json = try Self.output(of: "mediainfo", ["--Output=JSON", r.output])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let tracks = try #require((root["media"] as? [String: Any])?["track"] as? [[String: Any]])
        let video = try #require(tracks.first { $0["@type"] as? String == "Video" })
        let audio = try #require(tracks.first { $0["@type"] as? String == "Audio" })
        #expect(video["FrameRate_Mode"] as? String == "VFR")
        #expect(video["FrameCount"] as? String == "480")
        #expect(video["Duration"] as? String == "3.500")
        // 240 fps outside the segment, 60 fps inside it; no "240 fps" header on the whole clip
        #expect(video["FrameRate_Maximum"] as? String == "240.000" && video["FrameRate_Minimum"] as? String == "60.000")
        #expect(video["FrameRate"] as? String == "137.143")
        #expect(audio["SamplingCount"] as? String == "168000")
    }

    @Test func mkvinfoReadsEveryFrameAtItsMappedTime() throws {
        let dir = TemporaryDirectory()
        let r = try Self.retimed(dir, "r.mkv")
        let text = try Self.output(of: "mkvinfo", ["-s", r.output])
        // "P frame, track 1, timestamp 00:00:00.617000000, size 318, adler 0x…"
        var ms: [Double] = []
        for line in text.split(separator: "\n") where line.contains("track 1, timestamp ") {
            let stamp = line.split(separator: " ").first { $0.hasPrefix("00:") }.map { String($0.dropLast()) } ?? ""
            let hms = stamp.split(separator: ":").compactMap { Double($0) }
            guard hms.count == 3 else {
                Issue.record("unreadable line: \(line)")
                continue
            }
            ms.append((hms[0] * 3600 + hms[1] * 60 + hms[2]) * 1000)
        }
        #expect(ms.count == 480)
        let map = try Self.spec.resolve(duration: Rational(2), frameRate: Rational(240))
        let exact = (0..<480).map { map.targetTime(forSource: Rational(Int64($0), 240)).doubleValue * 1000 }
        // FFmpeg's Matroska muxer moves every stream later by the AAC priming (1024 samples at
        // 48 kHz = 21 ms in 1 ms ticks) so that the first audio packet is not negative; audio and
        // video keep their relation. Matroska stores milliseconds: after that shift each video
        // timestamp is the exact one rounded to the nearest ms.
        let start = ms.min() ?? -1
        #expect(start == 21, "video starts at \(start) ms")
        let worst = zip(ms.sorted().map { $0 - start }, exact).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst <= 0.5 + 1e-6, "worst deviation \(worst) ms")
    }
}
