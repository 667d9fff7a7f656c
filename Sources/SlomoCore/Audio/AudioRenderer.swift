/// Source samples on the map's source timeline: frame 0 is map source time 0.
public protocol AudioSampleSource: AnyObject {
    var channels: Int { get }
    /// Copies frames [position, position + count) into `planes`; silence outside the audio.
    func read(at position: Int64, count: Int, into planes: [UnsafeMutablePointer<Float>]) throws
    /// Frames before `position` will not be asked for again (lets the source free them).
    func discard(before position: Int64)
}

/// An in-memory source (tests, short clips): `samples[c]` starts at source frame 0.
public final class ArrayAudioSource: AudioSampleSource {
    public let samples: [[Float]]
    public var channels: Int { samples.count }
    public init(_ samples: [[Float]]) { self.samples = samples }
    public func read(at position: Int64, count: Int, into planes: [UnsafeMutablePointer<Float>]) {
        let n = Int64(samples[0].count)
        for c in samples.indices {
            planes[c].initialize(repeating: 0, count: count)
            let a = Swift.max(position, 0), b = Swift.min(position + Int64(count), n)
            guard a < b else { continue }
            samples[c].withUnsafeBufferPointer { s in
                (planes[c] + Int(a - position)).update(from: s.baseAddress! + Int(a), count: Int(b - a))
            }
        }
    }
    public func discard(before position: Int64) {}
}

/// Plays an `AudioSampleSource` through an `AudioRenderPlan`: one engine per segment (made by
/// `makeEngine` at the segment's rate), its start pad fed and start delay dropped, the segment
/// rendered over exactly its output range plus the crossfade margins, and adjacent segments mixed
/// with complementary gains around each boundary. Memory is bounded by the engines' buffers and the
/// few blocks of source the current and next segment share. Not `Sendable`: one thread.
public final class AudioRenderer {
    public let plan: AudioRenderPlan
    public let channels: Int
    private let source: any AudioSampleSource
    private let makeEngine: (Rational) throws -> any StretchEngine
    /// Largest algorithmic latency (input frames) of the engines used so far.
    public private(set) var latencyFrames = 0
    /// Next output frame.
    public private(set) var position: Int64 = 0

    private let block = 4096
    private var segmentIndex = 0
    private var engine: (any StretchEngine)?
    private var started = false
    private var feedPosition: Int64 = 0
    private var skip: Int64 = 0
    private var k: Int64 = 0  // next output frame of the current segment's render range
    private var tail: [[Float]]  // previous segment's frames for the current fade-in
    private var nextTail: [[Float]]
    private var feedsWithoutOutput = 0
    private var glidePiece = 0  // the current segment's glide piece being fed
    private let scratchIn: [UnsafeMutablePointer<Float>]
    private let scratchOut: [UnsafeMutablePointer<Float>]

    public init(
        plan: AudioRenderPlan, source: any AudioSampleSource,
        makeEngine: @escaping (Rational) throws -> any StretchEngine
    ) {
        self.plan = plan
        self.source = source
        self.channels = source.channels
        self.makeEngine = makeEngine
        tail = Array(repeating: [], count: source.channels)
        nextTail = tail
        scratchIn = (0..<source.channels).map { _ in .allocate(capacity: 4096) }
        scratchOut = (0..<source.channels).map { _ in .allocate(capacity: 4096) }
    }

    deinit {
        for p in scratchIn { p.deallocate() }
        for p in scratchOut { p.deallocate() }
    }

    /// Up to `maxFrames` output frames, planar; nil once all `plan.totalFrames` are out.
    public func read(maxFrames: Int) throws -> [[Float]]? {
        guard position < plan.totalFrames else { return nil }
        var out = Array(repeating: [Float](), count: channels)
        for c in 0..<channels { out[c].reserveCapacity(maxFrames) }
        while out[0].count < maxFrames && segmentIndex < plan.segments.count {
            let seg = plan.segments[segmentIndex]
            if !started { try start(seg) }
            if k >= seg.renderEnd {
                // the segment is complete: its fade-out frames become the next fade-in's partner
                swap(&tail, &nextTail)
                for c in 0..<channels { nextTail[c].removeAll(keepingCapacity: true) }
                engine = nil
                started = false
                segmentIndex += 1
                continue
            }
            let room = maxFrames - out[0].count
            let tailStart = seg.outEnd - seg.fadeOut
            if plan.algorithm == .mute {
                let n = Int(Swift.min(Int64(block), seg.renderEnd - k, k < tailStart ? Swift.min(tailStart - k, Int64(room)) : seg.renderEnd - k))
                for c in 0..<channels { scratchOut[c].initialize(repeating: 0, count: n) }
                emit(seg, count: n, into: &out)
                continue
            }
            guard let e = engine else { preconditionFailure("engine missing") }
            let want: Int
            if skip > 0 {
                want = Int(Swift.min(skip, Int64(block)))
            } else if k < tailStart {
                want = Int(Swift.min(Int64(block), tailStart - k, Int64(room)))
            } else {
                want = Int(Swift.min(Int64(block), seg.renderEnd - k))
            }
            let got = try e.retrieve(into: scratchOut, maxCount: want)
            if got == 0 {
                try feed(e)
                continue
            }
            feedsWithoutOutput = 0
            if skip > 0 {
                skip -= Int64(got)
                continue
            }
            emit(seg, count: got, into: &out)
        }
        position += Int64(out[0].count)
        return out[0].isEmpty ? nil : out
    }

    private func start(_ seg: AudioRenderPlan.Segment) throws {
        started = true
        k = seg.renderStart
        feedsWithoutOutput = 0
        source.discard(before: plan.keepFrom[segmentIndex])
        guard plan.algorithm != .mute, seg.length > 0 else {
            engine = nil
            return
        }
        glidePiece = 0
        let e: any StretchEngine = seg.rate == .one && seg.glide == nil ? PassThroughEngine(channels: channels) : try makeEngine(seg.rate)
        engine = e
        latencyFrames = Swift.max(latencyFrames, e.latency)
        skip = Int64(e.startDelay) + seg.engineSkip
        feedPosition = seg.feedStart
        var pad = e.startPad
        while pad > 0 {
            let n = Swift.min(pad, block)
            for c in 0..<channels { scratchIn[c].initialize(repeating: 0, count: n) }
            try e.feed(scratchIn.map { UnsafePointer($0) }, count: n)
            pad -= n
        }
    }

    private func feed(_ e: any StretchEngine) throws {
        feedsWithoutOutput += 1
        guard feedsWithoutOutput < 10_000 else {
            throw AudioFailure(
                .engineFailed, subject: "audio", operation: "\(plan.algorithm) at rate \(e.rate)",
                cause: "the engine produced no output for 40 million input frames")
        }
        var count = block
        if let glide = plan.segments[segmentIndex].glide {
            // a glide: each piece's input at that piece's rate (the warm-up before the first piece
            // at the first rate, the fade-out after the last at the last). The engine analyses
            // `rateChangeLead` frames behind what it was fed: a rate applies from there, so it is
            // set once the next frame analysed reaches its piece (to half a hop), and near a change
            // the input goes in one analysis step at a time.
            let lead = Int64(e.rateChangeLead), half = Int64(e.feedQuantum ?? 0) / 2
            let analysed = feedPosition - lead + half
            while glidePiece + 1 < glide.count, glide[glidePiece + 1].sourceFrame <= analysed { glidePiece += 1 }
            let p = glidePiece
            if glide[p].rate != e.rate { try e.setRate(glide[p].rate) }
            var q = p + 1
            while q < glide.count, glide[q].rate == glide[p].rate { q += 1 }
            if q < glide.count {
                let distance = glide[q].sourceFrame - analysed
                if let step = e.feedQuantum, distance <= Int64(block) + lead {
                    count = Swift.min(block, step)
                } else {
                    count = Int(Swift.min(Int64(block), Swift.max(1, distance)))
                }
            }
        }
        try source.read(at: feedPosition, count: count, into: scratchIn)
        try e.feed(scratchIn.map { UnsafePointer($0) }, count: count)
        feedPosition += Int64(count)
        source.discard(before: Swift.min(feedPosition, plan.keepFrom[segmentIndex + 1]))
    }

    /// Routes `n` frames of `scratchOut` (output frames k…) to the output, the crossfade with the
    /// previous segment's tail, or this segment's own tail.
    private func emit(_ seg: AudioRenderPlan.Segment, count n: Int, into out: inout [[Float]]) {
        let fadeEnd = seg.outStart + seg.fadeIn, tailStart = seg.outEnd - seg.fadeOut
        let fadeLength = Int(2 * seg.fadeIn)
        for c in 0..<channels {
            let src = UnsafeBufferPointer(start: scratchOut[c], count: n)
            var i = 0
            var kk = k
            while i < n {
                if kk < fadeEnd {
                    let j = Int(kk - seg.renderStart)
                    let g = AudioRenderPlan.fadeGain(j, of: fadeLength)
                    let prev = j < tail[c].count ? tail[c][j] : 0
                    out[c].append(prev * (1 - g) + src[i] * g)
                    i += 1
                    kk += 1
                } else if kk < tailStart {
                    let m = Int(Swift.min(Int64(n - i), tailStart - kk))
                    out[c].append(contentsOf: src[i..<(i + m)])
                    i += m
                    kk += Int64(m)
                } else {
                    nextTail[c].append(contentsOf: src[i..<n])
                    kk += Int64(n - i)
                    i = n
                }
            }
        }
        k += Int64(n)
    }
}
