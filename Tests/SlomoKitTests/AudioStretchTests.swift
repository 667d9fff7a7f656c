import Foundation
import SlomoAudio
import SlomoCore
import SlomoKit
import SlomoTestSupport
import Testing

/// Files through `TimePitchAudioSource` and `slomo stretch`'s use case: decoding, origin, bad input.
@Suite struct AudioStretchTests {
    @Test func sourceOriginDropsEarlierAudioAndOutputIsExact() throws {
        let dir = TemporaryDirectory()
        let sr = 32_000
        // clicks at 0.75 s and 1.25 s of a 2 s file
        let x = Signal.clicks(at: [24_000, 40_000], count: 64_000, sampleRate: sr)
        writeWAV(dir.file("c.wav"), [x], sampleRate: sr)
        let map = wholeMap(seconds: Rational(1), rate: Rational(1, 2))
        let src = try TimePitchAudioSource(path: dir.file("c.wav"), map: map, algorithm: .varispeed, sourceOrigin: Rational(1, 2))
        #expect(src.sampleRate == sr && src.channels == 1 && src.totalFrames == 64_000)
        var out: [Float] = []
        while let b = try src.read(maxFrames: 5000) {
            #expect(b[0].count <= 5000)
            out += b[0]
        }
        #expect(out.count == 64_000)
        // source 0.75 s is map time 0.25 s → output 0.5 s; 1.25 s → 0.75 → 1.5 s
        let first = Signal.burstCentre(out, near: 16_000, window: 2000), second = Signal.burstCentre(out, near: 48_000, window: 2000)
        #expect(abs(first - (16_000 + 32)) < 3 && abs(second - (48_000 + 32)) < 3, "\(first) \(second)")
        #expect(src.corruptPackets == 0)
    }

    /// A source starting late in a file seeks there (play makes one at every seek and rate change)
    /// and still places every sample exactly: the click at 3.25 s is at 0.25 s of the output.
    @Test func aLateOriginSeeksAndStaysSampleExact() throws {
        let dir = TemporaryDirectory()
        let sr = 16_000
        writeWAV(dir.file("long.wav"), [Signal.clicks(at: [52_000], count: 80_000, sampleRate: sr)], sampleRate: sr)
        let src = try TimePitchAudioSource(
            path: dir.file("long.wav"), map: wholeMap(seconds: Rational(1), rate: .one),
            algorithm: .varispeed, sourceOrigin: Rational(3))
        var out: [Float] = []
        while let b = try src.read(maxFrames: 4096) { out += b[0] }
        #expect(out.count == 16_000)
        #expect(abs(Signal.burstCentre(out, near: 4000, window: 400) - (4000 + 7.5)) < 1)
        #expect(Signal.rms(out[0..<3900]) == 0)
    }

    /// AAC in MP4 starts with a packet at −1024 samples (encoder priming) that the decoder trims, and
    /// ends with padding the edit list cuts: `stretch` must start at the stream's start and stop at
    /// its declared end, so a rate-1 pass keeps every click where it was and the length exact.
    @Test func aacPrimingAndPaddingAreNotAudio() throws {
        let dir = TemporaryDirectory()
        var g = GenerateRequest(output: dir.file("c.mp4"), frameRate: Rational(30), duration: Rational(2), width: 96, height: 64)
        g.codec = .mjpeg
        _ = try Generator.generate(g)
        let r = try AudioStretch.run(AudioStretchRequest(input: g.output, output: dir.file("c.wav"), spec: RetimeSpec(), algorithm: .varispeed))
        #expect(r.inputFrames == 96_000 && r.outputFrames == 96_000)
        let src = try TimePitchAudioSource(
            path: dir.file("c.wav"), map: wholeMap(seconds: Rational(2), rate: .one),
            algorithm: .varispeed, sourceOrigin: .zero)
        var x: [Float] = []
        while let b = try src.read(maxFrames: 8192) { x += b[0] }
        #expect(x.count == 96_000)
        // clicks: 2 ms Hann bursts at every quarter second, energy centre 1 ms (48 frames) after the onset
        var hp = [Float](repeating: 0, count: x.count - 2)
        for i in hp.indices {
            let next = x[i + 2], mid = x[i + 1], prev = x[i]
            hp[i] = next - 2 * mid + prev
        }
        for k in 1..<8 {
            let c = Signal.burstCentre(hp, near: k * 12_000 + 48 - 1, window: 480) + 1
            #expect(abs(c - Double(k * 12_000 + 48)) < 2, "click \(k) at \(c)")
        }
    }

    @Test func audioEndingEarlyIsPaddedWithSilenceToTheExactLength() throws {
        let dir = TemporaryDirectory()
        writeWAV(dir.file("t.wav"), [Signal.tone(440, seconds: 0.5, sampleRate: 16_000)], sampleRate: 16_000)
        // the map covers 1 s but the file has 0.5 s of audio
        let src = try TimePitchAudioSource(
            path: dir.file("t.wav"), map: wholeMap(seconds: Rational(1), rate: Rational(2)),
            algorithm: .spectral, sourceOrigin: .zero)
        var out: [Float] = []
        while let b = try src.read(maxFrames: 4096) { out += b[0] }
        #expect(out.count == 8000)
        #expect(Signal.rms(out[0..<3000]) > 0.2 && Signal.rms(out[4500..<8000]) < 0.01)
    }

    @Test(arguments: [1, 2, 6, 8])
    func channelLayoutsAreKept(channels: Int) throws {
        let dir = TemporaryDirectory()
        let planes = (0..<channels).map { Signal.tone(200 + 100 * Double($0), seconds: 1, sampleRate: 48_000) }
        writeWAV(dir.file("in.wav"), planes, sampleRate: 48_000)
        // a FLAC with the standard layout for the count (mono, stereo, 5.1, 7.1)
        _ = try AudioStretch.run(AudioStretchRequest(input: dir.file("in.wav"), output: dir.file("in.flac"), spec: RetimeSpec()))
        let layout = try Prober.probe(path: dir.file("in.flac")).streams.first?.channelLayout
        #expect(layout == ["mono", "stereo", "5.1", "7.1"][[1, 2, 6, 8].firstIndex(of: channels)!])
        let report = try AudioStretch.run(
            AudioStretchRequest(
                input: dir.file("in.flac"), output: dir.file("out.flac"),
                spec: RetimeSpec(rate: Rational(1, 2)), algorithm: .spectral))
        #expect(report.channels == channels && report.outputFrames == 96_000 && report.channelLayout == layout)
        let probe = try Prober.probe(path: dir.file("out.flac"))
        #expect(probe.streams.first?.channels == channels && probe.streams.first?.sampleCount == 96_000)
        #expect(probe.streams.first?.channelLayout == layout)
    }

    /// Layouts other than FFmpeg's default for their count are kept too (they used to become the
    /// default: 5.1(side) was written as 5.1), in FLAC, WAV and Matroska; AAC gets the default,
    /// which reads back by name (FFmpeg writes 5.1(side) AAC as an "unknown" layout).
    @Test(arguments: [("5.1(side)", 6, "5.1"), ("quad", 4, "4.0"), ("7.1(wide)", 8, "7.1"), ("2.1", 3, "2.1")])
    func nonDefaultChannelLayoutsAreKept(layout: String, channels: Int, aacLayout: String) throws {
        let dir = TemporaryDirectory()
        let tones = (0..<channels).map { "0.2*sin(2*PI*\(200 + 100 * $0)*t)" }.joined(separator: "|")
        try ffmpegCLI(["-f", "lavfi", "-i", "aevalsrc=\(tones):s=48000:d=1:channel_layout=\(layout)", "-c:a", "flac", dir.file("in.flac")])
        #expect(try Prober.probe(path: dir.file("in.flac")).streams.first?.channelLayout == layout)
        for (ext, expected) in [("flac", layout), ("wav", layout), ("mka", layout), ("m4a", aacLayout)] {
            let out = dir.file("out.\(ext)")
            let report = try AudioStretch.run(
                AudioStretchRequest(
                    input: dir.file("in.flac"), output: out,
                    spec: RetimeSpec(rate: Rational(1, 2)), algorithm: .varispeed))
            #expect(report.channelLayout == layout && report.outputFrames == 96_000)
            let stream = try Prober.probe(path: out).streams.first
            #expect(stream?.channels == channels && stream?.channelLayout == expected, "\(layout) → .\(ext): \(stream?.channelLayout ?? "none")")
        }
    }

    @Test func stretchWritesExactLengthsInEveryFormatAndRefusesToOverwrite() throws {
        let dir = TemporaryDirectory()
        writeWAV(dir.file("in.wav"), [Signal.tone(440, seconds: 1, sampleRate: 44_100)], sampleRate: 44_100)
        let spec = RetimeSpec(rate: .one, segments: [try SegmentSpec(parsing: "0.25-0.5@1/2")])
        for ext in ["wav", "flac", "aiff", "mka"] {
            let r = try AudioStretch.run(AudioStretchRequest(input: dir.file("in.wav"), output: dir.file("o.\(ext)"), spec: spec, algorithm: .timeDomain))
            #expect(r.outputFrames == 55_125, "\(ext)")  // 0.25 + 0.5 + 0.5 s
            // (Matroska stores millisecond timestamps, so probe cannot count its samples exactly)
            if ext != "mka" { #expect(try Prober.probe(path: dir.file("o.\(ext)")).streams.first?.sampleCount == 55_125, "\(ext)") }
        }
        let again = AudioStretchRequest(input: dir.file("in.wav"), output: dir.file("o.wav"), spec: spec)
        #expect(throws: OutputError(dir.file("o.wav"), .exists)) { try AudioStretch.run(again) }
        var overwrite = again
        overwrite.overwrite = true
        #expect(try AudioStretch.run(overwrite).outputFrames == 55_125)
        // unknown output extension: usage, nothing written
        do {
            _ = try AudioStretch.run(AudioStretchRequest(input: dir.file("in.wav"), output: dir.file("o.xyz"), spec: spec))
            Issue.record("no error")
        } catch let e as StretchError { #expect(e.kind == .badRequest && e.description.contains(".xyz")) }
    }

    @Test func rateOutOfRangeFailsBeforeWritingAnything() throws {
        let dir = TemporaryDirectory()
        writeWAV(dir.file("in.wav"), [Signal.tone(440, seconds: 1, sampleRate: 44_100)], sampleRate: 44_100)
        do {
            _ = try AudioStretch.run(
                AudioStretchRequest(
                    input: dir.file("in.wav"), output: dir.file("x.wav"),
                    spec: RetimeSpec(rate: Rational(1, 8)), algorithm: .timeDomain))
            Issue.record("no error")
        } catch let e as AudioFailure {
            #expect(e.kind == .badRequest)
            #expect(e.description.contains("in.wav") && e.description.contains("1/2…2") && e.description.contains("spectral, varispeed or mute"))
        }
        #expect(dir.entries == ["in.wav"])
    }

    @Test func aFileWithoutAudioIsADataError() throws {
        let dir = TemporaryDirectory()
        var g = GenerateRequest(output: dir.file("v.mkv"), frameRate: Rational(30), duration: Rational(1, 2), width: 96, height: 64)
        g.audio = false
        g.codec = .mjpeg
        _ = try Generator.generate(g)
        for run in [
            { _ = try TimePitchAudioSource(path: g.output, map: wholeMap(seconds: Rational(1), rate: .one), algorithm: .spectral, sourceOrigin: .zero) },
            { _ = try AudioStretch.run(AudioStretchRequest(input: g.output, output: dir.file("y.wav"), spec: RetimeSpec())) },
        ] {
            do {
                try run()
                Issue.record("no error")
            } catch let e as AudioFailure {
                #expect(e.code == .noAudioStream && e.kind == .badData && e.description.contains("v.mkv"))
            }
        }
        #expect(!dir.entries.contains("y.wav"))
    }

    @Test func emptyAudioIsADataError() throws {
        let dir = TemporaryDirectory()
        writeWAV(dir.file("empty.wav"), [[]], sampleRate: 48_000)
        do {
            _ = try TimePitchAudioSource(
                path: dir.file("empty.wav"), map: wholeMap(seconds: Rational(1), rate: .one), algorithm: .spectral, sourceOrigin: .zero)
            Issue.record("no error")
        } catch let e as AudioFailure {
            #expect(e.code == .emptyAudio && e.kind == .badData)
        }
        #expect(throws: (any Error).self) {
            try AudioStretch.run(AudioStretchRequest(input: dir.file("empty.wav"), output: dir.file("o.wav"), spec: RetimeSpec()))
        }
    }

    @Test func unsupportedSampleRatesAndChannelCountsAreDataErrors() throws {
        let dir = TemporaryDirectory()
        writeWAV(dir.file("4k.wav"), [Signal.tone(440, seconds: 0.2, sampleRate: 4000)], sampleRate: 4000)
        writeWAV(dir.file("10ch.wav"), (0..<10).map { _ in Signal.tone(440, seconds: 0.2, sampleRate: 8000) }, sampleRate: 8000)
        for name in ["4k.wav", "10ch.wav"] {
            do {
                _ = try TimePitchAudioSource(
                    path: dir.file(name), map: wholeMap(seconds: Rational(1, 5), rate: .one), algorithm: .spectral, sourceOrigin: .zero)
                Issue.record("no error for \(name)")
            } catch let e as AudioFailure {
                #expect(e.code == .unsupportedFormat && e.kind == .badData && e.description.contains(name), "\(e)")
            }
        }
    }

    @Test func corruptPacketsAreSkippedAndCounted() throws {
        let dir = TemporaryDirectory()
        writeWAV(dir.file("in.wav"), [Signal.tone(440, seconds: 2, sampleRate: 44_100)], sampleRate: 44_100)
        _ = try AudioStretch.run(AudioStretchRequest(input: dir.file("in.wav"), output: dir.file("good.aac"), spec: RetimeSpec(), algorithm: .varispeed))
        // damage the middle of the AAC (ADTS) stream
        var data = try Data(contentsOf: URL(fileURLWithPath: dir.file("good.aac")))
        let mid = data.count / 2
        for i in stride(from: mid, to: mid + 4000, by: 3) { data[i] ^= 0x5A }
        try data.write(to: URL(fileURLWithPath: dir.file("bad.aac")))
        let src = try TimePitchAudioSource(
            path: dir.file("bad.aac"), map: wholeMap(seconds: Rational(2), rate: Rational(1, 2)),
            algorithm: .spectral, sourceOrigin: .zero)
        var n = 0
        while let b = try src.read(maxFrames: 8192) { n += b[0].count }
        #expect(n == 176_400)  // still exactly 4 s
        #expect(src.corruptPackets > 0)
    }

    @Test func latencyIsReportedWithoutAFile() throws {
        #expect(try TimePitchAudioSource.latency(of: .zeroLatency, rate: Rational(2), sampleRate: 48_000) <= 480)
        #expect(try TimePitchAudioSource.latency(of: .zeroLatency, rate: Rational(21, 20), sampleRate: 48_000) == 0)  // snaps to 1
        #expect(try TimePitchAudioSource.latency(of: .spectral, rate: Rational(1, 2), sampleRate: 48_000) > 0)
        #expect(throws: AudioFailure.self) { try TimePitchAudioSource.latency(of: .timeDomain, rate: Rational(4), sampleRate: 48_000) }
    }
}
