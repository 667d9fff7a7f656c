import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// `--start`/`--end` (#30): the output is exactly the kept source range through the speed map;
/// frames by their own painted index, sound by its clicks, both from 0 on the output's timeline.
@Suite struct TrimExportTests {
    @Test(arguments: [("1", "2", Rational(1, 2)), ("f90", "f150", Rational(1, 4)), ("0.5", nil, Rational(1))] as [(String, String?, Rational)])
    func keepsExactlyThePartAsked(start: String, end: String?, rate: Rational) throws {
        let dir = TemporaryDirectory()
        let input = dir.file("src.mp4")
        _ = try Generator.generate(GenerateRequest(output: input, frameRate: Rational(60), duration: Rational(3), width: 160, height: 96))
        var e = ExportRequest(input: input, output: dir.file("t.mkv"), spec: RetimeSpec(rate: rate))
        e.trim = try SourceTrim.parse(start: start, end: end)
        e.audioCodec = "pcm-float"
        let r = try Exporter.export(e)
        let s = start.hasPrefix("f") ? Rational(Int64(start.dropFirst())!, 60) : try Rational(parsing: start)
        let t = end.map { $0.hasPrefix("f") ? Rational(Int64($0.dropFirst())!, 60) : try! Rational(parsing: $0) } ?? Rational(3)
        let duration = (t - s) / rate
        #expect(r.outputDuration == duration && r.outputFrames == (duration * Rational(30)).ceiling)
        #expect(r.audioFrames == (duration * Rational(48_000)).rounded(.nearest))
        // output frame n shows the source frame at s + n/30 × rate (painted index = its number)
        let got = try Prober.probe(path: r.output, frames: true).frames?.map(\.calibrationIndex) ?? []
        let want = (0..<r.outputFrames).map { n in Int(((s + Rational(n, 30) * rate) * Rational(60)).floor) }
        #expect(got == want.map { Optional($0) }, "\(got.prefix(8)) vs \(want.prefix(8))")
        // each click in the kept range is heard where the map puts it, counted from the new start
        let (x, sr) = try AVSyncTests.decodedAudio(r.output, duration: duration)
        let clicks = CalibrationTone(sampleRate: sr).clickTimes(duration: Rational(3)).filter { $0 >= s + Rational(1, 20) && $0 < t - Rational(1, 20) }
        #expect(!clicks.isEmpty)
        for c in clicks {
            let expected = (c + Rational(1, 1000) - s) / rate
            let off = (AVSyncTests.clickCentre(x, sampleRate: sr, near: expected) - expected.doubleValue) * 1000
            #expect(abs(off) < 30, "click at \(c) s: \(off) ms off")
        }
    }
}
