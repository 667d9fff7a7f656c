import Testing
@testable import SlomoCore

/// `--curve`: parsing, refusals, and the exact map (checked against the closed-form quadratic,
/// computed here independently of `SpeedCurve`'s trapezoids).
@Suite struct SpeedCurveTests {
    static let text = "0@1,1@1,1.5@1/4,2.5@1/4,3@1"

    /// O(t) from the key points: O(tᵢ) + sᵢ·d + (sᵢ₊₁ − sᵢ)·d²/(2Δ), summed piece by piece.
    static func closedForm(_ keys: [(Rational, Rational)], _ t: Rational) -> Rational {
        var total = Rational.zero
        for (k0, k1) in zip(keys, keys.dropFirst()) where t > k0.0 {
            let s0 = Rational.one / k0.1, s1 = Rational.one / k1.1
            let d = Rational.min(t, k1.0) - k0.0, span = k1.0 - k0.0
            total = total + s0 * d + (s1 - s0) * d * d / (Rational(2) * span)
        }
        return total
    }
    static let keys: [(Rational, Rational)] = [
        (Rational(0), .one), (.one, .one), (Rational(3, 2), Rational(1, 4)),
        (Rational(5, 2), Rational(1, 4)), (Rational(3), .one),
    ]

    @Test func mapPassesExactlyThroughEveryFrameTime() throws {
        let spec = RetimeSpec(curve: try SpeedCurve(parsing: Self.text))
        let frames = (0...720).map { Rational(Int64($0), 240) }
        let map = try spec.resolve(duration: Rational(3), frameRate: Rational(240), curveNodes: frames)
        // 1 + 1.25 + 4 + 1.25 s
        #expect(map.target.duration == Rational(15, 2))
        for t in frames { #expect(map.targetTime(forSource: t) == Self.closedForm(Self.keys, t), "at \(t)") }
        // the constant parts stay one mapping each; the glides are marked for the audio
        #expect(map.mappings.first?.source == TimeRange(start: .zero, end: .one))
        #expect(map.glides == [TimeRange(start: .zero, end: Rational(3))])
        // between two frames the map is a straight line: the next frame's time is never reached early
        let mid = map.targetTime(forSource: Rational(241, 240) + Rational(1, 480))
        #expect(mid > Self.closedForm(Self.keys, Rational(241, 240)) && mid < Self.closedForm(Self.keys, Rational(242, 240)))
    }

    @Test func withoutNodesTheFrameRateGridIsUsed() throws {
        let spec = RetimeSpec(curve: try SpeedCurve(parsing: "0.5@1,1.5@1/8"))
        let map = try spec.resolve(duration: Rational(2), frameRate: Rational(60))
        for k in 0...120 {
            #expect(
                map.targetTime(forSource: Rational(Int64(k), 60))
                    == Self.closedForm(
                        [(Rational(0), .one), (Rational(1, 2), .one), (Rational(3, 2), Rational(1, 8)), (Rational(2), Rational(1, 8))], Rational(Int64(k), 60)))
        }
        // after the last key its rate holds: 0.5 + (1 × (1 + 8) / 2) + 0.5 × 8
        #expect(map.target.duration == Rational(9))
    }

    @Test(arguments: [
        ("0@1,2@1/2,1@1", "key point 3 (1 s) is before key point 2 (2 s): sort them"),
        ("0@1,1@1,1@1/2", "key points 2 and 3 are both at 1 s"),
        ("0@1,1@0", "key point '1@0': rate must be > 0, got 0"),
        ("0@1,1@-1", "key point '1@-1': rate must be > 0, got -1"),
        ("0@1,1@1/2000", "key point '1@1/2000': rate 1/2000 is outside 1/1000...1000"),
        ("0@1", "a curve needs at least two key points"),
        ("0@1,1@x", "key point '1@x': rate 'x' is not a number"),
        ("0@1,f10@1/2,f5@1", "key point 3 (f5) is before key point 2 (f10): sort them"),
        ("0@1,1", "key point '1' is not TIME@RATE"),
    ])
    func badCurvesAreRefusedWithWhere(text: String, reason: String) {
        #expect(throws: RetimeError.self) { try SpeedCurve(parsing: text) }
        do {
            _ = try SpeedCurve(parsing: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.wording.parts.first == .setting(.curve) && "\(error)".hasPrefix("curve '\(text)': \(reason)"), "\(error)")
        }
    }

    @Test func pastTheEndOverlapsAndRateAreRefused() throws {
        func message(_ spec: RetimeSpec) -> String {
            do {
                _ = try spec.resolve(duration: Rational(3), frameRate: Rational(240))
                return "accepted"
            } catch { return "\(error)" }
        }
        let curve = try SpeedCurve(parsing: "1@1,2@1/4")
        #expect(message(RetimeSpec(curve: try SpeedCurve(parsing: "0@1,4@1/2"))) == "curve '0@1,4@1/2': key point 2 at 4 s is past the end of the media (3 s)")
        #expect(
            message(RetimeSpec(segments: [try SegmentSpec(parsing: "1.5-2.5@1/8")], curve: curve))
                == "curve '1@1,2@1/4': segment '1.5-2.5@1/8' overlaps the curve (1-2 s)")
        #expect(message(RetimeSpec(rate: Rational(1, 2), curve: curve)).contains("rate 1/2 and a curve together"))
        // a segment outside the curve is fine, and the curve's last rate holds up to it
        let map = try RetimeSpec(segments: [try SegmentSpec(parsing: "2.5-3@1")], curve: curve).resolve(duration: Rational(3), frameRate: Rational(240))
        #expect(map.rate(atSource: Rational(9, 4)) == Rational(1, 4) && map.rate(atSource: Rational(11, 4)) == .one)
        #expect(map.target.duration == Rational(1) + Rational(5, 2) + Rational(2) + Rational(1, 2))
    }

    /// The audio plan plays a glide as one segment with its pieces (engines that change rate),
    /// and piece by piece for the others; either way the length is exact to the sample.
    @Test func audioPlanGlides() throws {
        let map = try RetimeSpec(curve: try SpeedCurve(parsing: Self.text)).resolve(duration: Rational(3), frameRate: Rational(240))
        let spectral = try AudioRenderPlan(map: map, sampleRate: 48000, algorithm: .spectral)
        #expect(spectral.segments.count == 1 && spectral.segments[0].glide?.count == map.mappings.count)
        #expect(spectral.totalFrames == 360_000)
        let varispeed = try AudioRenderPlan(map: map, sampleRate: 48000, algorithm: .varispeed)
        #expect(varispeed.segments.count == map.mappings.count && varispeed.segments.allSatisfy { $0.glide == nil })
        #expect(varispeed.totalFrames == 360_000)
        // zero-latency snaps each piece and joins neighbours that snapped alike: a few steps
        let zl = try AudioRenderPlan(
            map: try RetimeSpec(curve: try SpeedCurve(parsing: "0@1,1@1/2,2@1")).resolve(duration: Rational(2), frameRate: Rational(240)),
            sampleRate: 48000, algorithm: .zeroLatency)
        #expect(zl.segments.count <= 9 && Set(zl.segments.map(\.rate)).isSubset(of: [Rational(1, 2), Rational(2, 3), Rational(4, 5), .one]))
    }

    /// Found in review: the edges of curves and ramps.
    @Test func edgesFoundInReview() throws {
        let curve = try SpeedCurve(parsing: "1@1/4,2@1/4")
        // two frames with one timestamp inside a curve are one node, not an empty piece (0/0)
        let nodes = [Rational(0), Rational(3, 2), Rational(3, 2), Rational(2)]
        // 1/4 throughout: before, in and after the curve
        #expect(try RetimeSpec(curve: curve).resolve(duration: Rational(3), frameRate: nil, curveNodes: nodes).target.duration == Rational(12))
        // a ramp beside a curve eases from the curve's rate on that side (1/4), not from 1
        let map = try RetimeSpec(segments: [try SegmentSpec(parsing: "3-5@1/8:1/2", allowRamp: true)], curve: curve)
            .resolve(duration: Rational(6), frameRate: Rational(240))
        #expect(map.rate(atSource: Rational(29, 10)) == Rational(1, 4) && map.rate(atSource: Rational(11, 2)) == Rational(1, 4))
        #expect(map.rate(atSource: Rational(3) + Rational(1, 480)) < Rational(1, 4))  // slower from there, not faster
        // a frame number too far to place is refused, not a trap
        let far = try SpeedCurve(parsing: "0@1,f9300000000000001@1/2")
        #expect(throws: RetimeError.self) { try RetimeSpec(curve: far).resolve(duration: Rational(3600), frameRate: Rational(30000, 1001)) }
        // without a frame rate a long curve keeps to 2000 pieces (a capture's map is stored in the file)
        let long = try RetimeSpec(curve: try SpeedCurve(parsing: "0@1,3600@1/2")).resolve(duration: Rational(3600), frameRate: nil)
        #expect(long.mappings.count <= 2001 && long.target.duration == Rational(5400))
        // a map read from the original timing keeps the glides (the audio plays the curve as one run)
        let stored = try RetimeSpec(segments: [try SegmentSpec(parsing: "1-2@1/2")]).resolve(duration: Rational(3), frameRate: nil)
        let composed = try stored.inverted().then(try RetimeSpec(curve: curve).resolve(duration: Rational(3), frameRate: nil))
        #expect(composed.glides == [TimeRange(start: Rational(1), end: Rational(3))])
    }

    /// `--real-time` on a phone's file converts the curve's keys, and leaves the spec's rate at 1.
    @Test func realTimeConvertsTheKeys() throws {
        let phone = try #require(CaptureRate(metadata: ["com.android.capture.fps": "240"], storedFrameRate: Rational(30)))
        let spec = phone.fileSpec(RetimeSpec(curve: try SpeedCurve(parsing: "0@1/8,1@1/16")))
        #expect(spec.rate == .one && spec.curve?.keys.map(\.rate) == [.one, Rational(1, 2)])
        #expect(throws: Never.self) { try spec.resolve(duration: Rational(2), frameRate: Rational(30)) }
    }
}
