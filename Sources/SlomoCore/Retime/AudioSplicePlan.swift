/// Where `retime` copies an audio track's packets unchanged and where it encodes (#43): a sequence of
/// spans on the output's sample grid, `encode, copy, encode, copy, …, encode`.
///
/// * A packet is copied only inside a part of the map played at rate 1 (not a glide's), with its
///   output time its source time plus that part's offset, and far enough from every rate change
///   that the encoded audio around it is the same sound: `afterChange` past the end of a change
///   (the crossfade's half and two frames), `beforeChange(rate)` before the next (the encoder's
///   pre-roll, the frame the first encoded packet overlaps, the crossfade's half and the engine's
///   100 ms warm-up at that rate). Never the first or last packet of a run of packets that follow
///   each other exactly (a stream's priming, a gap, a damaged packet).
/// * Encoded spans start and end on copied packets' boundaries and hold whole codec frames:
///   their encoder starts `preRoll` frames before the join (its first kept packet overlaps the last
///   copied one, so it must encode the same sound there) and runs `postRoll` frames past the next
///   join, whose packets are dropped. The first span starts at output time 0 with the encoder's
///   own priming (as a whole-track encode does); the last ends at the output's end and is flushed.
/// * A codec frame is `frameSize` samples: copied packets after a change sit on the grid the
///   first copied packet set. Where the change's exact length is not a whole number of frames the
///   copied audio after it moves to the nearest grid point, at most half a frame (`Copy.shift`,
///   10.7 ms for AAC at 48 kHz), and the encoded change absorbs the difference (its rates scaled by
///   as little), so nothing is lost, repeated or left silent at a join. Where that would take a
///   rate past its algorithm's limit, the other grid point (under a frame away) is tried; a part
///   that cannot absorb either (no rate change between, zero-latency's fixed rates) is encoded too.
/// * No copy at all (`spans` empty): the caller encodes the whole track as before.
///
/// Output sample n is target time `window.start + n / sampleRate` (rounded as `TrimmedAudio`
/// rounds), the output has `totalFrames` samples; source sample 0 is map source time 0.
public struct AudioSplicePlan: Sendable, Equatable {
    /// Packets `first ..< first + count` of the stream (counted in file order), each one codec frame
    /// long and following the one before exactly: packet `first + j` holds source samples from
    /// `start + j × frameSize`.
    public struct PacketRun: Sendable, Equatable {
        public var first: Int
        public var count: Int
        public var start: Int64
        public init(first: Int, count: Int, start: Int64) {
            self.first = first
            self.count = count
            self.start = start
        }
    }

    /// Source packets copied unchanged: packet `packets.lowerBound + j` at output sample `start + j × frameSize`.
    public struct Copy: Sendable, Equatable {
        public var packets: Range<Int>
        public var start: Int64
        /// Output samples added to a packet's source position.
        public var offset: Int64
        /// How far (seconds) the copied audio sits after the map's exact time (negative: before).
        public var shift: Rational
    }

    /// Audio rendered through `map` and encoded by a fresh encoder.
    public struct Encode: Sendable, Equatable {
        /// Encoded packets whose pts (output samples) is in `keepFrom ..< keepUntil` are written; nil:
        /// unbounded (the first span keeps its priming, the last everything through the flush).
        public var keepFrom: Int64?
        public var keepUntil: Int64?
        /// Output samples of the encoder's first input sample and of the end of its input.
        public var feedStart: Int64
        public var feedEnd: Int64
        /// Silent samples fed first (before output time 0, hidden like the priming).
        public var leadSilence: Int64
        /// What is rendered: a map from time 0, whose source time 0 is `sourceStart` on the retime
        /// map's source timeline; its first `skip` samples are dropped.
        public var map: RetimeMap
        public var sourceStart: Rational
        public var skip: Int64
        /// Samples the render must give: `skip` + the input after the silence.
        public var renderFrames: Int64 { skip + feedEnd - feedStart - leadSilence }
    }

    public enum Span: Sendable, Equatable { case copy(Copy), encode(Encode) }

    public let spans: [Span]
    public let totalFrames: Int64
    public let frameSize: Int
    public static let preRoll: Int64 = 2, postRoll: Int64 = 2, edge: Int64 = 2

    /// Packets copied.
    public var copiedPackets: Int {
        spans.reduce(0) { n, s in if case .copy(let c) = s { return n + c.packets.count } else { return n } }
    }
    /// The largest `Copy.shift` in magnitude (zero without copies).
    public var largestShift: Rational {
        spans.reduce(Rational.zero) { m, s in if case .copy(let c) = s, c.shift.magnitude > m.magnitude { return c.shift } else { return m } }
    }

    /// The plan for a track of `sampleRate` Hz whose packets are `runs` (in order), played through
    /// `map` (target from 0) with `algorithm`, kept over `window` (target time) or whole.
    public init(map: RetimeMap, window: TimeRange?, sampleRate: Int, frameSize: Int, runs: [PacketRun], algorithm: TimePitchAlgorithm) {
        self.frameSize = frameSize
        let g = Geometry(map: map, window: window, sampleRate: sampleRate, frameSize: frameSize, algorithm: algorithm)
        totalFrames = g.total
        guard algorithm != .mute, map.target.start == .zero, frameSize > 0, g.total > 4 * g.frame else {
            spans = []
            return
        }
        var chosen: [(encode: Encode, copy: Copy)] = []
        for region in g.regions() {
            for run in runs where run.count > 2 {
                if let pair = g.copy(in: region, run: run, after: chosen.last?.copy) { chosen.append(pair) }
            }
        }
        // the last span, from the last copy to the end (dropping copies it cannot follow)
        while let last = chosen.last {
            if let tail = g.encode(
                from: .copyEnd(last.copy.start + g.frame * Int64(last.copy.packets.count), offset: last.copy.offset),
                to: .outputEnd)
            {
                spans = chosen.flatMap { [Span.encode($0.encode), .copy($0.copy)] } + [.encode(tail)]
                return
            }
            chosen.removeLast()
        }
        spans = []
    }
}

extension AudioSplicePlan {
    /// A part of the map played at rate 1 by a pass-through (not inside a glide): output sample =
    /// source sample + `offset` (exact, output samples).
    struct Region {
        var source: TimeRange
        var offset: Rational
        /// The map starts or ends with it (no rate change on that side).
        var atStart: Bool, atEnd: Bool
        /// The rate after it.
        var nextRate: Rational?
    }

    /// One join of an encoded span: the output's start or end, or a copied packet's boundary
    /// (with the copy's offset).
    enum Start { case outputStart, copyEnd(Int64, offset: Int64) }
    enum End { case copyStart(Int64, offset: Int64), outputEnd }

    /// The sample arithmetic of one plan.
    struct Geometry {
        let map: RetimeMap
        let window: TimeRange?
        let sr: Rational
        let frame: Int64
        let algorithm: TimePitchAlgorithm
        /// Output sample 0's target sample, and the output's length.
        let first: Int64, total: Int64
        let afterChange: Int64
        let fadeHalf: Int64, warmUp: Int64

        init(map: RetimeMap, window: TimeRange?, sampleRate: Int, frameSize: Int, algorithm: TimePitchAlgorithm) {
            self.map = map
            self.window = window
            self.algorithm = algorithm
            sr = Rational(Int64(sampleRate))
            frame = Int64(frameSize)
            if let w = window {
                first = (w.start * sr).rounded(.nearest)
                total = (w.end * sr).rounded(.nearest) - first
            } else {
                first = 0
                total = (map.target.duration * sr).rounded(.nearest)
            }
            // AudioRenderPlan's defaults: a 10 ms crossfade, a 100 ms engine warm-up
            fadeHalf = Int64(Swift.max(2, sampleRate / 100)) / 2 + 1
            warmUp = Int64(sampleRate / 10)
            afterChange = fadeHalf + 2 * frame
        }

        /// Samples between the last copied packet's end and a change at `rate`.
        func beforeChange(_ rate: Rational?) -> Int64 {
            let r = Rational.max(rate ?? .one, .one)
            return (AudioSplicePlan.preRoll + 1) * frame + (Rational(fadeHalf + warmUp) * r).ceiling
        }

        func inGlide(_ m: TimeMapping) -> Bool {
            map.glides?.contains { m.source.start >= $0.start && m.source.end <= $0.end } ?? false
        }
        func passesThrough(_ m: TimeMapping) -> Bool { m.rate == .one && !inGlide(m) }

        /// The map's rate-1 parts, in order.
        func regions() -> [Region] {
            let ms = map.mappings
            var out: [Region] = []
            var i = 0
            while i < ms.count {
                guard passesThrough(ms[i]) else {
                    i += 1
                    continue
                }
                var j = i
                while j + 1 < ms.count, passesThrough(ms[j + 1]) { j += 1 }
                let source = TimeRange(start: ms[i].source.start, end: ms[j].source.end)
                out.append(
                    Region(
                        source: source, offset: (ms[i].target.start - ms[i].source.start) * sr - Rational(first),
                        atStart: i == 0, atEnd: j == ms.count - 1, nextRate: j + 1 < ms.count ? ms[j + 1].rate : nil))
                i = j + 1
            }
            return out
        }

        /// The packets of `run` copied in `region` after the copy `last` (or from the output's
        /// start), with the encoded span that leads to them; nil when none can be.
        func copy(in region: Region, run: PacketRun, after last: Copy?) -> (encode: Encode, copy: Copy)? {
            let lastEnd = last.map { $0.start + frame * Int64($0.packets.count) }
            for offset in offsets(region.offset, run: run, after: lastEnd) {
                let lo = region.source.start * sr + Rational(region.atStart ? 0 : afterChange)
                let hi = region.source.end * sr - Rational(region.atEnd ? 0 : beforeChange(region.nextRate))
                let outLo = (lastEnd.map { $0 + frame } ?? AudioSplicePlan.edge * frame) - offset
                let outHi = total - AudioSplicePlan.edge * frame - offset
                let j0 = Swift.max(1, ((Swift.max(lo, Rational(outLo)) - Rational(run.start)) / Rational(frame)).ceiling)
                let j1 = Swift.min(Int64(run.count - 2), ((Swift.min(hi, Rational(outHi)) - Rational(run.start)) / Rational(frame)).floor - 1)
                guard j0 <= j1 else { continue }
                let start = run.start + j0 * frame + offset
                let from: Start = last.map { .copyEnd(lastEnd!, offset: $0.offset) } ?? .outputStart
                guard let encode = encode(from: from, to: .copyStart(start, offset: offset)) else { continue }
                let packets = (run.first + Int(j0))..<(run.first + Int(j1) + 1)
                return (encode, Copy(packets: packets, start: start, offset: offset, shift: (Rational(offset) - region.offset) / sr))
            }
            return nil
        }

        /// The offsets a copy of `run` can take, nearest to `exact` first: after a copy ending at
        /// `lastEnd`, those that keep the packets on its frame grid.
        func offsets(_ exact: Rational, run: PacketRun, after lastEnd: Int64?) -> [Int64] {
            guard let lastEnd else { return [exact.rounded(.nearest)] }
            let residue = ((lastEnd - run.start) % frame + frame) % frame
            let below = ((exact - Rational(residue)) / Rational(frame)).floor * frame + residue
            let above = below + frame
            return (exact - Rational(below)) <= (Rational(above) - exact) ? [below, above] : [above, below]
        }
    }
}
