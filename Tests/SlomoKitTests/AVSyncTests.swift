import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// A/V sync measured from the calibration soundtrack: every click (a 2 ms 6 kHz burst at each
/// quarter second of source time) must sit in the output audio where the retime map puts that
/// source instant — which is where the video shows it (the schedule and packet-time tests prove
/// the video side). Clips: 240 fps, 2 s, 48 kHz AAC; the slowed segment's ends fall between clicks.
@Suite struct AVSyncTests {
    static let spec = RetimeSpec(segments: [try! SegmentSpec(parsing: "0.6-1.1@1/4")])

    static func clip(_ dir: TemporaryDirectory) throws -> String {
        let r = GenerateRequest(output: dir.file("src.mp4"), frameRate: Rational(240), duration: Rational(2), width: 160, height: 96)
        _ = try Generator.generate(r)
        return r.output
    }

    /// The output's audio as mono Float, decoded by FFmpeg through slomo's own reader at rate 1 (passed through).
    /// The first channel of `path`'s audio from its video's first frame on (time 0 of the map):
    /// Matroska shifts both streams by AAC's priming (the video starts at 21 ms), and a
    /// measurement from the file's time 0 would read every click 21 ms late.
    static func decodedAudio(_ path: String, duration: Rational) throws -> (samples: [Float], sampleRate: Int) {
        let map = try RetimeSpec().resolve(duration: duration, frameRate: nil)
        let origin = try MediaTimeline(path: path).origin
        let src = try TimePitchAudioSource(path: path, map: map, algorithm: .varispeed, sourceOrigin: origin)
        var x: [Float] = []
        while let b = try src.read(maxFrames: 8192) { x += b[0] }
        return (x, src.sampleRate)
    }

    /// Where the click near `expected` is (seconds): the peak of the squared second difference
    /// (which passes the click — 6 kHz, or 1.5 kHz when varispeed slows it 4× — and stops the 1 kHz
    /// tone) within ±`search`, then the energy centre of ±`window` around that peak. NaN when no peak
    /// stands out (30× the median) or it lies at the search's edge. Searching first is what lets
    /// it fail: an energy centre over a fixed ±10 ms window always lies within 10 ms, and read an
    /// empty window's middle when the click was 130 ms late.
    static func clickCentre(
        _ x: [Float], sampleRate: Int, near expected: Rational, window: Rational = Rational(1, 100),
        search: Rational = Rational(12, 100)
    ) -> Double {
        let sr = Rational(Int64(sampleRate))
        let c = Int((expected * sr).rounded(.nearest)), w = Int((window * sr).rounded(.nearest))
        let s = Int((search * sr).rounded(.nearest))
        let a = Swift.max(1, c - s), b = Swift.min(x.count - 1, c + s)
        guard b - a > 2 * w else { return .nan }
        func d2(_ i: Int) -> Double {
            let d = Double(x[i + 1]) - 2 * Double(x[i]) + Double(x[i - 1])
            return d * d
        }
        let energies = (a..<b).map(d2)
        guard let top = energies.indices.max(by: { energies[$0] < energies[$1] }) else { return .nan }
        let median = energies.sorted()[energies.count / 2]
        let peak = a + top
        guard energies[top] > 30 * Swift.max(median, 1e-20), peak - a > w, b - peak > w else { return .nan }
        var sum = 0.0, weighted = 0.0
        for i in (peak - w)..<(peak + w) {
            sum += d2(i)
            weighted += d2(i) * Double(i)
        }
        return sum > 0 ? weighted / sum / Double(sampleRate) : .nan
    }

    /// Offsets (ms, audio − expected) of every click of the 2 s source, for an output made through `map`.
    /// `window`: the energy centre's half-width around the click's peak; a grain-repeating
    /// algorithm (zero-latency) plays a slowed click twice, and its place is the centre of both.
    static func offsets(_ output: String, map: RetimeMap, window: Rational = Rational(1, 100)) throws -> [Double] {
        let (x, sr) = try decodedAudio(output, duration: map.target.duration)
        #expect(Int64(x.count) == (map.target.duration * Rational(Int64(sr))).rounded(.nearest))
        let clicks = CalibrationTone(sampleRate: sr).clickTimes(duration: Rational(2)).dropFirst()  // the first is cut by AAC priming
        // the Hann burst's energy centre is 1 ms after its onset
        return clicks.map { onset in
            let expected = map.targetTime(forSource: onset + Rational(1, 1000))
            return (clickCentre(x, sampleRate: sr, near: expected, window: window) - expected.doubleValue) * 1000
        }
    }

    /// Varispeed moves every sample through the map (measured ≤ 0.06 ms after AAC). Rubber Band R3
    /// smears a click slowed 4× and places it early — `rubberband -3` itself puts its onset 12–24 ms
    /// early on this clip, slomo's spectral 20–24 ms (measured since the click is searched for, not
    /// averaged over a fixed ±10 ms window, which could not read more than 10 ms) — so spectral is
    /// held to 30 ms: an uncompensated start delay (43 ms) or a glide timed by the feed fails.
    static func limit(_ pitch: String) -> Double { pitch == "varispeed" ? 0.2 : 30 }

    /// Export (constant-rate video) and retime (copied packets) put every click where the map says.
    /// Retime copies the AAC packets at rate 1 (#43): after the slowed segment they sit on the AAC
    /// frame grid, 320 samples (6.7 ms) early here, the segment's audio absorbing it, so the clicks
    /// there may be that far off besides; with `--audio-codec aac` the whole track is encoded.
    @Test(arguments: ["export", "retime", "retime-encoded"], ["varispeed", "spectral"])
    func audioIsWhereTheVideoShowsIt(command: String, pitch: String) throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        let output: String, audioFrames: Int64?
        var shift = 0.0
        if command == "export" {
            var e = ExportRequest(input: src, output: dir.file("e.mp4"), spec: Self.spec)
            e.pitch = pitch
            let r = try Exporter.export(e)
            (output, audioFrames) = (r.output, r.audioFrames)
        } else {
            var q = RetimeRequest(input: src, output: dir.file("r.mp4"), spec: Self.spec)
            q.pitch = pitch
            if command == "retime-encoded" { q.audioCodec = "aac" }
            let r = try Retimer.retime(q)
            #expect(r.outputDuration == Rational(7, 2))
            (output, audioFrames) = (r.output, r.audioFrames)
            let copied = try #require(r.audioPackets.first)
            #expect((copied.copied > 0) == (command == "retime"))
            shift = abs(copied.shift.doubleValue) * 1000
            #expect(abs(shift - (command == "retime" ? 320.0 / 48 : 0)) < 1e-9, "shift \(shift) ms")
        }
        #expect(audioFrames == 168_000)  // 0.6 + 0.5 × 4 + 0.9 = 3.5 s at 48 kHz
        let map = try Self.spec.resolve(duration: Rational(2), frameRate: Rational(240))
        let off = try Self.offsets(output, map: map)
        #expect(off.count == 7)
        #expect(off.allSatisfy { abs($0) < Self.limit(pitch) + shift }, "click offsets (ms): \(off)")
    }

    /// Zero-latency plays its table's rates: asked for 0.55 it plays 1/2, and the video follows the
    /// same snapped map (without that, 3.64 s of video would carry 4 s of audio).
    @Test func zeroLatencySnapsVideoAndAudioTogether() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        var e = ExportRequest(input: src, output: dir.file("z.mp4"), spec: RetimeSpec(rate: Rational(11, 20)))
        e.pitch = "zero-latency"
        let r = try Exporter.export(e)
        #expect(r.outputDuration == Rational(4) && r.outputFrames == 120 && r.audioFrames == 192_000)
        let v = try #require(try Prober.probe(path: r.output).streams.first(where: { $0.kind == "video" }))
        #expect(v.frameCount == 120)
        var q = RetimeRequest(input: src, output: dir.file("z.mkv"), spec: RetimeSpec(rate: Rational(11, 20)))
        q.pitch = "zero-latency"
        let t = try Retimer.retime(q)
        #expect(t.outputDuration == Rational(4) && t.audioFrames == 192_000)
        let off = try Self.offsets(
            t.output, map: try RetimeSpec(rate: Rational(1, 2)).resolve(duration: Rational(2), frameRate: nil),
            window: Rational(4, 100))
        #expect(off.allSatisfy { abs($0) < 10 }, "click offsets (ms): \(off)")
    }
}
