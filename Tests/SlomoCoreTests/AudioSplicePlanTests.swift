import Testing
@testable import SlomoCore

/// `AudioSplicePlan` (#43): where retime copies AAC packets and where it encodes, checked on the
/// plan alone: the spans tile the output in whole frames, copies stay inside rate-1 parts away
/// from every change, and the encoded spans render exactly their length.
@Suite struct AudioSplicePlanTests {
    static let sr = 48_000, frame: Int64 = 1024

    /// One run of packets like an MP4's AAC from FFmpeg: the priming packet at −1024, then `seconds` of audio.
    static func runs(seconds: Int64) -> [AudioSplicePlan.PacketRun] {
        [AudioSplicePlan.PacketRun(first: 1, count: Int(seconds * Int64(sr) / frame) + 1, start: 0)]
    }

    static func map(_ segments: String..., seconds: Int64) throws -> RetimeMap {
        try RetimeSpec(segments: segments.map { try SegmentSpec(parsing: $0) }).resolve(duration: Rational(seconds), frameRate: nil)
    }

    /// The spans in order tile the output: encode, copy, …, encode; every encoded span's kept
    /// packets fill its gap with whole frames; its render is exactly as long as its input.
    static func checkTiling(_ plan: AudioSplicePlan, sourceStart: Int64 = 0) {
        var edge: Int64? = nil
        for (i, span) in plan.spans.enumerated() {
            switch span {
            case .copy(let c):
                #expect(i % 2 == 1)
                #expect(c.start == edge, "copy \(i) starts at \(c.start), the encoded span before ends at \(String(describing: edge))")
                // packet j of the stream holds source samples from (j − 1) × 1024: at start + offset
                #expect(c.start == Int64(c.packets.lowerBound - 1) * frame + sourceStart + c.offset)
                #expect(c.shift.magnitude < Rational(frame, Int64(sr)))
                edge = c.start + frame * Int64(c.packets.count)
            case .encode(let e):
                #expect(i % 2 == 0)
                #expect(e.keepFrom == edge)
                if let from = e.keepFrom {
                    #expect(e.feedStart == from - AudioSplicePlan.preRoll * frame)
                } else {
                    #expect(e.feedStart <= 0 && e.feedStart > -frame && e.leadSilence == -e.feedStart)
                }
                if let until = e.keepUntil {
                    #expect((until - e.feedStart) % frame == 0 && e.feedEnd == until + AudioSplicePlan.postRoll * frame)
                } else {
                    #expect(i == plan.spans.count - 1 && e.feedEnd == plan.totalFrames)
                }
                #expect(e.map.target.duration * Rational(Int64(sr)) == Rational(e.renderFrames))
                edge = e.keepUntil
            }
        }
    }

    @Test func oneSlowSegmentInTheMiddle() throws {
        let map = try Self.map("30-32@1/4", seconds: 60)
        let plan = AudioSplicePlan(map: map, window: nil, sampleRate: Self.sr, frameSize: 1024, runs: Self.runs(seconds: 60), algorithm: .spectral)
        #expect(plan.spans.count == 5)
        #expect(plan.totalFrames == 66 * 48_000)
        Self.checkTiling(plan)
        guard plan.spans.count == 5, case .copy(let before) = plan.spans[1], case .copy(let after) = plan.spans[3],
            case .encode(let middle) = plan.spans[2]
        else { return }
        // before: exact; after: 6 s added (281.25 frames) → the nearest grid offset, 256 samples early
        #expect(before.offset == 0 && before.shift == .zero)
        #expect(after.offset == 6 * 48_000 - 256 && after.shift == Rational(-256, 48_000))
        // away from the change by its margins, and no further than a frame more
        let change = Int64(30 * 48_000), changeEnd = Int64(38 * 48_000) - 256
        let lastCopied = before.start + 1024 * Int64(before.packets.count)
        #expect(lastCopied <= change - 8113 && lastCopied > change - 8113 - 1024)
        #expect(after.start >= changeEnd + 2289 && after.start < changeEnd + 2289 + 1024)
        // the encoded change absorbs the difference: 8 s − 256 samples for its 2 s of source
        #expect(middle.map.mappings.count == 3)
        #expect(middle.map.mappings[1].source.duration == Rational(2))
        #expect(middle.map.mappings[1].target.duration == Rational(8) - Rational(256, 48_000))
        #expect(middle.map.mappings[0].rate == .one && middle.map.mappings[2].rate == .one)
        // nearly all packets copied
        #expect(plan.copiedPackets > 2800 - 420 && plan.copiedPackets < 2800)
    }

    /// A source whose packets lie off the output's grid (the video starts 600 samples into the
    /// audio): the first encoded span starts with silence before 0 so that the first copy is exact.
    @Test func theFirstCopyIsExactWhereverThePacketsLie() throws {
        let map = try Self.map("10-11@1/2", seconds: 20)
        let runs = [AudioSplicePlan.PacketRun(first: 1, count: 900, start: -600)]
        let plan = AudioSplicePlan(map: map, window: nil, sampleRate: Self.sr, frameSize: 1024, runs: runs, algorithm: .spectral)
        Self.checkTiling(plan, sourceStart: -600)
        guard case .encode(let first) = plan.spans.first, case .copy(let c) = plan.spans[1] else {
            Issue.record("no copy")
            return
        }
        #expect(c.offset == 0 && c.shift == .zero)
        #expect(first.leadSilence == 600 && first.keepFrom == nil)
    }

    /// `--start`/`--end`: output sample 0 is the window's start; a window starting at rate 1 renders
    /// from there (no pass over what is cut), one starting in a change renders from 0 and skips.
    @Test(arguments: [(Rational(5), Rational(50)), (Rational(31), Rational(50)), (Rational(40), Rational(63))])
    func windows(start: Rational, end: Rational) throws {
        let map = try Self.map("30-32@1/4", seconds: 60)
        let window = TimeRange(start: start, end: end)
        let plan = AudioSplicePlan(map: map, window: window, sampleRate: Self.sr, frameSize: 1024, runs: Self.runs(seconds: 60), algorithm: .spectral)
        #expect(plan.totalFrames == ((end - start) * Rational(48_000)).rounded(.nearest))
        #expect(plan.copiedPackets > 0)
        Self.checkTiling(plan)
        guard case .encode(let first) = plan.spans.first else { return }
        let inChange = start >= Rational(30) && start < Rational(38)
        #expect(first.skip == (inChange ? (start * Rational(48_000)).rounded(.nearest) : 0))
    }

    /// Where the change cannot absorb the grid's difference the span runs on to the next part
    /// that can, or to the end. 1/2 adds 2 s here, 93.75 frames: the nearest grid puts the copy
    /// 256 samples late, which would play the change slower than 1/2 — time-domain's limit, so
    /// time-domain takes the other grid (768 samples early) and zero-latency, which plays only its
    /// table's rates, copies nothing after the change. Mute silences everything: no copy at all.
    @Test func changesThatCannotAbsorbTheGridAreEncoded() throws {
        let half = try Self.map("30-32@1/2", seconds: 60)
        let spectral = AudioSplicePlan(map: half, window: nil, sampleRate: Self.sr, frameSize: 1024, runs: Self.runs(seconds: 60), algorithm: .spectral)
        #expect(spectral.spans.count == 5)
        if spectral.spans.count == 5, case .copy(let after) = spectral.spans[3] { #expect(after.shift == Rational(256, 48_000)) }
        let td = AudioSplicePlan(map: half, window: nil, sampleRate: Self.sr, frameSize: 1024, runs: Self.runs(seconds: 60), algorithm: .timeDomain)
        #expect(td.spans.count == 5)
        Self.checkTiling(td)
        if td.spans.count == 5, case .copy(let after) = td.spans[3] { #expect(after.shift == Rational(-768, 48_000)) }
        let zero = AudioSplicePlan(map: half, window: nil, sampleRate: Self.sr, frameSize: 1024, runs: Self.runs(seconds: 60), algorithm: .zeroLatency)
        #expect(zero.spans.count == 3)  // copied before the change only
        Self.checkTiling(zero)
        #expect(AudioSplicePlan(map: half, window: nil, sampleRate: Self.sr, frameSize: 1024, runs: Self.runs(seconds: 60), algorithm: .mute).spans.isEmpty)
    }

    /// No part at rate 1, or one too short to leave room for its margins: nothing copied.
    @Test func nothingToCopy() throws {
        let slow = try RetimeSpec(rate: Rational(1, 2)).resolve(duration: Rational(10), frameRate: nil)
        #expect(AudioSplicePlan(map: slow, window: nil, sampleRate: Self.sr, frameSize: 1024, runs: Self.runs(seconds: 10), algorithm: .spectral).spans.isEmpty)
        let short = try Self.map("0.1-0.9@1/4", seconds: 1)
        #expect(AudioSplicePlan(map: short, window: nil, sampleRate: Self.sr, frameSize: 1024, runs: Self.runs(seconds: 1), algorithm: .spectral).spans.isEmpty)
    }

    /// A gap in the packets (a damaged stretch) splits the runs. The second run's grid is 72 samples
    /// off the first's and nothing between them at rate 1 can absorb that, so it is copied only
    /// after the change, on the first run's grid (184 samples early).
    @Test func aGapInThePacketsIsEncodedAcross() throws {
        let map = try Self.map("30-32@1/4", seconds: 60)
        let runs = [
            AudioSplicePlan.PacketRun(first: 1, count: 500, start: 0),
            AudioSplicePlan.PacketRun(first: 501, count: 2300, start: 500 * 1024 + 3000),
        ]
        let plan = AudioSplicePlan(map: map, window: nil, sampleRate: Self.sr, frameSize: 1024, runs: runs, algorithm: .spectral)
        let copies = plan.spans.compactMap { if case .copy(let c) = $0 { c } else { nil } }
        #expect(copies.count == 2)
        #expect(copies.first?.packets.upperBound ?? 0 <= 500)
        #expect(copies.last?.packets.lowerBound ?? 0 > 501)
        #expect(copies.last?.shift == Rational(-184, 48_000))
        #expect(copies.last?.start ?? 0 > Int64(38 * 48_000))
    }
}
