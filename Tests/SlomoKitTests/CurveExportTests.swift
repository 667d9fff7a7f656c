import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// `--curve` end to end on calibration clips: every output frame is the source frame the exact
/// quadratic map predicts (computed here independently, from the key points' closed form), packets
/// copied by retime carry their exact mapped times, the audio is exactly as long as the curve's
/// output, and its clicks sit where the curve puts them.
@Suite struct CurveExportTests {
    static let text = "0@1,1@1,1.5@1/4,2.5@1/4,3@1"
    static let keys: [(Rational, Rational)] = [
        (Rational(0), .one), (.one, .one), (Rational(3, 2), Rational(1, 4)),
        (Rational(5, 2), Rational(1, 4)), (Rational(3), .one),
    ]
    static var spec: RetimeSpec { RetimeSpec(curve: try! SpeedCurve(parsing: text)) }

    /// O(t), the closed-form quadratic of the key points.
    static func mapped(_ t: Rational, keys: [(Rational, Rational)] = keys) -> Rational {
        var total = Rational.zero
        for (k0, k1) in zip(keys, keys.dropFirst()) where t > k0.0 {
            let s0 = Rational.one / k0.1, s1 = Rational.one / k1.1
            let d = Rational.min(t, k1.0) - k0.0, span = k1.0 - k0.0
            total = total + s0 * d + (s1 - s0) * d * d / (Rational(2) * span)
        }
        return total
    }

    /// For output frame n at n/30: the last source frame k with O(k/fps) ≤ n/30, and how far the
    /// output time is from it towards k + 1 (the blend weight; 0 = exactly on frame k).
    static func expected(sourceFPS: Int64, frames: Int, outputFrames: Int) -> [(index: Int, weight: Rational)] {
        let times = (0..<frames).map { mapped(Rational(Int64($0), sourceFPS)) }
        var k = 0
        return (0..<outputFrames).map { n in
            let tau = Rational(Int64(n), 30)
            while k + 1 < frames, times[k + 1] <= tau { k += 1 }
            return (k, k + 1 < frames ? (tau - times[k]) / (times[k + 1] - times[k]) : .zero)
        }
    }

    static func clip(_ dir: TemporaryDirectory, fps: Int64) throws -> String {
        let r = GenerateRequest(output: dir.file("src\(fps).mp4"), frameRate: Rational(fps), duration: Rational(3), width: 160, height: 96)
        _ = try Generator.generate(r)
        return r.output
    }

    @Test(arguments: [240, 60] as [Int64], [ExportRequest.FrameBlend.none, .blend])
    func everyOutputFrameIsTheOneTheExactMapPredicts(fps: Int64, blend: ExportRequest.FrameBlend) throws {
        let dir = TemporaryDirectory()
        var e = ExportRequest(input: try Self.clip(dir, fps: fps), output: dir.file("out.mp4"), spec: Self.spec)
        e.frameBlend = blend
        e.audio = false
        let r = try Exporter.export(e)
        #expect(r.outputFrames == 225)  // 7.5 s at 30 fps
        let got = try Prober.probe(path: r.output, frames: true).frames?.map(\.calibrationIndex) ?? []
        let want = Self.expected(sourceFPS: fps, frames: Int(3 * fps), outputFrames: 225)
        #expect(got.count == want.count)
        for (n, (g, w)) in zip(got, want).enumerated() {
            if blend == .none || w.weight.isZero {
                #expect(g == w.index, "output frame \(n): showed \(String(describing: g)), the map says \(w.index)")
            } else if w.weight < Rational(35, 100) {  // mostly frame k: the code still reads k
                #expect(g == nil || g == w.index, "output frame \(n): a \(w.weight) blend read as \(String(describing: g)), not \(w.index)")
            } else if w.weight <= Rational(65, 100) {  // an even mix: no readable code
                #expect(g == nil, "output frame \(n): a \(w.weight) blend of \(w.index) and \(w.index + 1) read as \(String(describing: g))")
            } else {  // mostly the next frame: it reads k + 1 (never k)
                #expect(g == nil || g == w.index + 1, "output frame \(n): a \(w.weight) blend read as \(String(describing: g)), not \(w.index + 1)")
            }
        }
        // 60 fps: the slow part shows each source frame several times, the exact ones included
        if fps == 60 && blend == .none { #expect(Set(got.compactMap { $0 }).count < 180) }
    }

    @Test func retimeGivesEveryPacketItsExactMappedTime() throws {
        let dir = TemporaryDirectory()
        var q = RetimeRequest(input: try Self.clip(dir, fps: 240), output: dir.file("r.mp4"), spec: Self.spec)
        q.pitch = "spectral"
        let r = try Retimer.retime(q)
        #expect(r.outputDuration == Rational(15, 2) && !r.timestampsRounded)
        #expect(r.audioFrames == 360_000)
        let times = try Planner.sourceFrameTimes(path: r.output)
        #expect(times.count == 720)
        for (k, t) in times.enumerated() { #expect(t == Self.mapped(Rational(Int64(k), 240)), "packet \(k)") }
    }

    /// Clicks at the key points (1, 1.5 and 2.5 s) and between, against the curve's mapped times,
    /// through export (constant-rate video) and retime (copied packets), down to 1/4 and 1/8.
    /// Varispeed moves every sample (limit 1 ms); Rubber Band plays the curve as one run of changing
    /// time ratios and SoundTouch as one of changing tempi (their transient spread: 30 ms for
    /// spectral as in AVSyncTests, 25 ms for WSOLA's sequences). The click is searched for within
    /// ±120 ms, so a click 130 ms late fails (it was, before rate changes were timed by Rubber
    /// Band's own analysis: `GlideSyncTests`).
    @Test(arguments: [("varispeed", 1.0), ("spectral", AVSyncTests.limit("spectral")), ("time-domain", 25.0)], ["export", "retime"])
    func audioFollowsTheCurve(pitch: (name: String, limit: Double), command: String) throws {
        for slowest in pitch.name == "time-domain" ? [Rational(1, 2)] : [Rational(1, 4), Rational(1, 8)] {
            // time-domain covers 1/2…2: the same shape, down to 1/2
            let keys = Self.keys.map { ($0.0, $0.1 < .one ? slowest : $0.1) }
            let offsets = try Self.clickOffsets(keys: keys, pitch: pitch.name, command: command)
            #expect(offsets.count == 11)
            #expect(
                offsets.allSatisfy { abs($0) < pitch.limit },
                "\(command) \(pitch.name) to \(slowest): click offsets (ms) at 0.25…2.75 s: \(offsets.map { ($0 * 1000).rounded() / 1000 })")
        }
    }

    /// Offsets (ms, heard − mapped) of the clicks of a 3 s clip through the curve through `keys`.
    static func clickOffsets(keys: [(Rational, Rational)], pitch: String, command: String) throws -> [Double] {
        let dir = TemporaryDirectory()
        let text = keys.map { "\(Seconds($0.0))@\($0.1)" }.joined(separator: ",")
        let input = try clip(dir, fps: 240), output = dir.file("a.mkv")
        let spec = RetimeSpec(curve: try SpeedCurve(parsing: text))
        let frames: Int64?
        if command == "export" {
            var e = ExportRequest(input: input, output: output, spec: spec)
            e.pitch = pitch
            e.audioCodec = "pcm-float"
            frames = try Exporter.export(e).audioFrames
        } else {
            var q = RetimeRequest(input: input, output: output, spec: spec)
            q.pitch = pitch
            q.audioCodec = "pcm-float"
            frames = try Retimer.retime(q).audioFrames
        }
        let outSeconds = mapped(Rational(3), keys: keys)
        #expect(frames == (outSeconds * Rational(48_000)).rounded(.nearest))
        let (x, sr) = try AVSyncTests.decodedAudio(output, duration: outSeconds)
        #expect(Int64(x.count) == (outSeconds * Rational(48_000)).rounded(.nearest))
        return CalibrationTone(sampleRate: sr).clickTimes(duration: Rational(3)).dropFirst().map { onset in
            let expected = mapped(onset + Rational(1, 1000), keys: keys)
            return (AVSyncTests.clickCentre(x, sampleRate: sr, near: expected) - expected.doubleValue) * 1000
        }
    }
}
