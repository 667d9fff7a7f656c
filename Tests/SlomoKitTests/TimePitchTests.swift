import Foundation
import Testing
import SlomoCore
import SlomoTimePitch
@testable import SlomoKit

/// The time-pitch engine on real decoded audio (tones made by FFmpeg's own lavfi sine source).
@Suite struct TimePitchTests {
    /// A WAV tone: `freq` Hz, `seconds`, `channels` (each channel the same tone), 48 kHz.
    static func tone(_ dir: TemporaryDirectory, freq: Int = 1000, seconds: Int = 2, channels: Int = 1, rate: Int = 48000) throws -> String {
        let out = dir.file("tone-\(freq)-\(channels)-\(rate).wav")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=\(freq):d=\(seconds):sample_rate=\(rate)",
                       "-ac", String(channels), "-c:a", "pcm_f32le", out]
        try p.run(); p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return out
    }

    func render(_ path: String, _ spec: RetimeSpec, _ alg: PitchAlgorithm, duration: Rational = Rational(2)) throws -> [[Float]] {
        let map = try spec.resolve(duration: duration, frameRate: nil)
        let src = try RetimedAudioSource(path: path, map: map, algorithm: alg, sourceOrigin: .zero)
        var out = Array(repeating: [Float](), count: src.channels)
        while let b = try src.read(maxFrames: 4096) { for c in out.indices { out[c] += b[c] } }
        #expect(Int64(out[0].count) == src.totalFrames)
        return out
    }

    /// Frequency from interpolated zero crossings over the middle of `x`.
    func frequency(_ x: [Float], sampleRate: Double = 48000) -> Double {
        let a = x.count / 4, b = x.count * 3 / 4
        var crossings: [Double] = []
        for i in a..<b where x[i] < 0 && x[i + 1] >= 0 {
            crossings.append(Double(i) + Double(-x[i] / (x[i + 1] - x[i])))
        }
        guard crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / sampleRate)
    }

    func cents(_ f: Double, _ ref: Double) -> Double { 1200 * log2(f / ref) }

    @Test(arguments: [
        (PitchAlgorithm.spectral, Rational(1, 8)), (.spectral, Rational(1, 2)), (.spectral, Rational(4)),
        (.timeDomain, Rational(1, 2)), (.timeDomain, Rational(2)), (.zeroLatency, Rational(2, 3)), (.zeroLatency, Rational(3, 2)),
    ])
    func exactLengthAndPitchKept(alg: PitchAlgorithm, rate: Rational) throws {
        let dir = TemporaryDirectory()
        let out = try render(try Self.tone(dir), RetimeSpec(rate: rate), alg)
        #expect(Int64(out[0].count) == (Rational(96_000) / rate).rounded(.nearest))
        let f = frequency(out[0])
        #expect(abs(cents(f, 1000)) < 1, "\(alg) at \(rate): \(f) Hz")
    }

    @Test(arguments: [Rational(1, 4), Rational(2)])
    func varispeedShiftsPitchByExactlyTheRate(rate: Rational) throws {
        let dir = TemporaryDirectory()
        let out = try render(try Self.tone(dir), RetimeSpec(rate: rate), .varispeed)
        #expect(Int64(out[0].count) == (Rational(96_000) / rate).rounded(.nearest))
        #expect(abs(cents(frequency(out[0]), 1000 * rate.doubleValue)) < 1)
    }

    @Test func zeroLatencySnapsToItsTable() {
        let z = PitchAlgorithm.zeroLatency
        #expect(z.effectiveRate(Rational(55, 100)) == Rational(1, 2))
        #expect(z.effectiveRate(Rational(7, 10)) == Rational(2, 3))
        #expect(z.effectiveRate(Rational(19, 20)) == Rational(1))
        #expect(z.effectiveRate(Rational(13, 10)) == Rational(5, 4))
        #expect(z.effectiveRate(Rational(19, 10)) == Rational(2))
        #expect(PitchAlgorithm.spectral.effectiveRate(Rational(7, 10)) == Rational(7, 10))
    }

    @Test func ratesOutsideARangeNameTheAlternatives() {
        do { try PitchAlgorithm.timeDomain.check(Rational(1, 8)); Issue.record("accepted") } catch {
            #expect(error.description.contains("0.5") == false)   // ranges are printed as fractions
            #expect(error.description.contains("1/2...2") && error.description.contains("spectral") && error.description.contains("varispeed"))
            #expect(error.exitStatus == .usage)
        }
        #expect(throws: SimpleFailure.self) { try PitchAlgorithm.spectral.check(Rational(64)) }
    }

    @Test func segmentsHaveExactTotalsWithoutDrift() throws {
        let dir = TemporaryDirectory()
        // rates whose sample counts do not divide evenly: rounding is carried, never accumulated
        let spec = RetimeSpec(rate: Rational(1, 3), segments: [try SegmentSpec(parsing: "0.1-0.45@1/7"), try SegmentSpec(parsing: "1/2-1@3/2"),
                                                               try SegmentSpec(parsing: "1.2-1.9@1/32")])
        let map = try spec.resolve(duration: Rational(2), frameRate: nil)
        for alg in [PitchAlgorithm.spectral, .varispeed, .mute] {
            let out = try render(try Self.tone(dir), spec, alg)
            #expect(Int64(out[0].count) == (map.target.end * Rational(48_000)).rounded(.nearest), "\(alg)")
        }
    }

    @Test func channelsAndRatesAreKept() throws {
        let dir = TemporaryDirectory()
        for (channels, rate) in [(1, 8000), (6, 48000), (8, 96000)] {
            let path = try Self.tone(dir, seconds: 1, channels: channels, rate: rate)
            let map = try RetimeSpec(rate: Rational(1, 2)).resolve(duration: Rational(1), frameRate: nil)
            let src = try RetimedAudioSource(path: path, map: map, algorithm: .spectral, sourceOrigin: .zero)
            #expect(src.channels == channels && src.sampleRate == rate)
            var n = 0
            while let b = try src.read(maxFrames: 8192) { #expect(b.count == channels); n += b[0].count }
            #expect(n == 2 * rate)
        }
    }

    @Test func stretchCommandWritesTheFileAndRefusesBadInput() throws {
        let dir = TemporaryDirectory()
        let t = try Self.tone(dir)
        let r = try Stretch.run(StretchRequest(input: t, output: dir.file("slow.flac"), spec: RetimeSpec(rate: Rational(1, 2))))
        #expect(r.outputFrames == 192_000)
        let p = try Prober.probe(path: dir.file("slow.flac"))
        #expect(p.streams.first?.codec == "flac" && p.streams.first?.sampleCount == 192_000)
        var bad = StretchRequest(input: t, output: dir.file("x.wav"), spec: RetimeSpec(rate: Rational(1, 8)))
        bad.pitch = "time-domain"
        #expect(throws: SimpleFailure.self) { try Stretch.run(bad) }
        // a video without audio
        var g = GenerateRequest(output: dir.file("v.mkv"), frameRate: Rational(30), duration: Rational(1), width: 160, height: 96)
        g.audio = false
        _ = try Generator.generate(g)
        #expect(throws: SimpleFailure.self) { try Stretch.run(StretchRequest(input: g.output, output: dir.file("y.wav"), spec: RetimeSpec())) }
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.wav")) && !FileManager.default.fileExists(atPath: dir.file("y.wav")))
    }

    @Test func exportKeepsAudioInSyncToTheSample() throws {
        let dir = TemporaryDirectory()
        let g = try Generator.generate(GenerateRequest(output: dir.file("c.mkv"), frameRate: Rational(120), duration: Rational(1), width: 160, height: 96))
        var e = ExportRequest(input: g.output, output: dir.file("e.mp4"), spec: RetimeSpec(segments: [try SegmentSpec(parsing: "0.25-0.5@1/4")]))
        e.pitch = "varispeed"
        let r = try Exporter.export(e)
        // 0.25 + 1 + 0.5 s = 1.75 s of audio, to the sample
        #expect(r.audioFrames == 84_000)
        #expect(r.outputFrames == 53)     // ceil(1.75 × 30)
    }
}
