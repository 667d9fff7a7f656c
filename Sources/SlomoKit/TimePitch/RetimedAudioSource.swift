import SlomoCore
import SlomoFFmpeg
import SlomoTimePitch

/// An audio stream played through a retime map with a time-pitch algorithm, pulled in blocks.
///
/// Source sample 0 is at absolute media time `sourceOrigin` (the first video frame): earlier audio is
/// dropped, gaps are silence. Each mapping is rendered by a fresh stretcher at its rate; its output
/// length is exactly `round(target.end × sr) − round(target.start × sr)` — positions are rounded
/// from absolute times, so no error accumulates over any number of segments. Each engine's start
/// delay is dropped, so output sample k belongs to target time k / sr. Memory stays bounded: only the
/// source samples the current segment still needs are kept.
public final class RetimedAudioSource: RetimedAudio {
    public let sampleRate: Int
    public let channels: Int
    public let totalFrames: Int64
    public private(set) var corruptPackets = 0
    public let algorithm: PitchAlgorithm

    struct Segment { var srcStart: Int64; var srcEnd: Int64; var outCount: Int64; var rate: Rational }
    private let segments: [Segment]
    private let demuxer: Demuxer
    private let decoder: Decoder
    private let converter: SampleConverter
    private let stream: Int
    private let timeBase: Rational
    private let origin: Rational
    private let packet = Packet()
    private let frame = Frame()
    private var eof = false

    private var fifo: [[Float]]
    private var fifoStart: Int64 = 0          // source position of fifo[c][0]
    private var segIndex = 0
    private var stretcher: Stretcher?
    private var fed: Int64 = 0
    private var delayLeft = 0
    private var emitted: Int64 = 0
    private var finalPushed = false
    private var pendingOut: [[Float]]

    public init(path: String, streamIndex: Int? = nil, map: RetimeMap, algorithm: PitchAlgorithm, sourceOrigin: Rational) throws {
        demuxer = try Demuxer(path: path)
        guard let s = streamIndex ?? demuxer.bestStream(.audio) else {
            throw SimpleFailure("\(path): no audio stream", .dataError)
        }
        stream = s
        let info = demuxer.streamInfo(s)
        guard info.sampleRate >= 8000, info.sampleRate <= 192_000, (1...8).contains(info.channels) else {
            throw SimpleFailure("\(path): audio \(info.sampleRate) Hz, \(info.channels) channels is outside 8–192 kHz, 1–8 channels", .dataError)
        }
        sampleRate = info.sampleRate
        channels = info.channels
        timeBase = info.timeBase
        origin = sourceOrigin
        self.algorithm = algorithm
        decoder = try demuxer.makeDecoder(stream: s)
        demuxer.keepOnly(streams: [s])
        converter = try SampleConverter(channels: channels, inRate: sampleRate, inFormat: decoder.sampleFormat,
                                        outRate: sampleRate, outFormat: .floatPlanar)
        let sr = Rational(Int64(sampleRate))
        var segs: [Segment] = []
        for m in map.mappings {
            try algorithm.check(m.rate)
            let rate = algorithm.effectiveRate(m.rate)
            let a = (m.source.start * sr).rounded(.nearest), b = (m.source.end * sr).rounded(.nearest)
            // zero-latency plays a snapped rate: its segment's length follows the snapped rate
            let outStart = (m.target.start * sr).rounded(.nearest)
            let outEnd = rate == m.rate ? (m.target.end * sr).rounded(.nearest)
                                        : outStart + (Rational(b - a) / rate).rounded(.nearest)
            segs.append(Segment(srcStart: a, srcEnd: b, outCount: outEnd - outStart, rate: rate))
        }
        segments = segs
        totalFrames = segs.reduce(0) { $0 + $1.outCount }
        fifo = Array(repeating: [], count: channels)
        pendingOut = Array(repeating: [], count: channels)
        if sourceOrigin > Rational(2) { try? demuxer.seek(stream: s, to: sourceOrigin - Rational(1)) }
    }

    public func read(maxFrames: Int) throws -> [[Float]]? {
        var out = Array(repeating: [Float](), count: channels)
        while out[0].count < maxFrames, segIndex < segments.count {
            let seg = segments[segIndex]
            if stretcher == nil {
                stretcher = try makeStretcher(algorithm, rate: seg.rate, sampleRate: sampleRate, channels: channels)
                delayLeft = stretcher!.startDelay
                fed = seg.srcStart
                emitted = 0
                finalPushed = false
                for c in 0..<channels { pendingOut[c].removeAll(keepingCapacity: true) }
            }
            // take what the engine has
            var got = stretcher!.pull()
            if delayLeft > 0 {
                let d = Swift.min(delayLeft, got[0].count)
                for c in 0..<channels { got[c].removeFirst(d) }
                delayLeft -= d
            }
            let room = Int(seg.outCount - emitted)
            let take = Swift.min(room, got[0].count)
            for c in 0..<channels { pendingOut[c] += got[c].prefix(take) }
            emitted += Int64(take)
            if emitted >= seg.outCount || finalPushed {
                // the segment is complete (or its engine is drained): pad to its exact length
                if emitted < seg.outCount && finalPushed {
                    let pad = Int(seg.outCount - emitted)
                    for c in 0..<channels { pendingOut[c] += [Float](repeating: 0, count: pad) }
                    emitted = seg.outCount
                }
                if emitted >= seg.outCount {
                    for c in 0..<channels { out[c] += pendingOut[c]; pendingOut[c].removeAll(keepingCapacity: true) }
                    segIndex += 1
                    stretcher = nil
                    continue
                }
            }
            for c in 0..<channels { out[c] += pendingOut[c]; pendingOut[c].removeAll(keepingCapacity: true) }
            // feed the next block of source
            let end = Swift.min(seg.srcEnd, fed + 4096)
            let block = try source(from: fed, to: end)
            fed = end
            finalPushed = fed >= seg.srcEnd
            try stretcher!.push(block, count: block[0].count, final: finalPushed)
        }
        if out[0].isEmpty && segIndex >= segments.count { return nil }
        return out
    }

    public var latencyFrames: Int { 0 }

    /// Source samples [a, b) (positions from the origin), decoding as needed; silence past the end.
    private func source(from a: Int64, to b: Int64) throws -> [[Float]] {
        while fifoStart + Int64(fifo[0].count) < b && !eof { try decodeMore() }
        // drop what is behind
        if a > fifoStart {
            let drop = Int(Swift.min(a - fifoStart, Int64(fifo[0].count)))
            for c in 0..<channels { fifo[c].removeFirst(drop) }
            fifoStart += Int64(drop)
        }
        let n = Int(b - a)
        var out = Array(repeating: [Float](repeating: 0, count: n), count: channels)
        let offset = Int(fifoStart - a)          // > 0 only if audio starts after a
        for c in 0..<channels {
            for i in Swift.max(0, offset)..<n {
                let j = i - offset
                if j < fifo[c].count { out[c][i] = fifo[c][j] }
            }
        }
        return out
    }

    private func decodeMore() throws {
        while true {
            switch try decoder.receive(into: frame) {
            case .got:
                let samples = try converter.planarFloat(from: frame)
                append(samples, at: frame.bestEffortTimestamp)
                return
            case .endOfStream: eof = true; return
            case .needsInput:
                if try demuxer.readPacket(into: packet) {
                    guard packet.streamIndex == stream else { continue }
                    do { _ = try decoder.send(packet) } catch { corruptPackets += 1 }
                } else {
                    _ = try? decoder.send(nil)
                }
            }
        }
    }

    /// Places decoded samples at their timestamp: drops audio before the origin and overlaps, fills gaps.
    private func append(_ samples: [[Float]], at pts: Int64?) {
        var s = samples
        let end = fifoStart + Int64(fifo[0].count)
        var pos = end
        if let pts {
            pos = ((Rational(ticks: pts, timeBase: timeBase) - origin) * Rational(Int64(sampleRate))).rounded(.nearest)
        }
        if pos < end {
            let drop = Int(Swift.min(end - pos, Int64(s[0].count)))
            for c in 0..<channels { s[c].removeFirst(drop) }
        } else if pos > end {
            // a gap in the audio (or audio that starts after the origin): silence; tolerate 2 ms of jitter
            if pos - end > Int64(sampleRate / 500) {
                for c in 0..<channels { fifo[c] += [Float](repeating: 0, count: Int(pos - end)) }
            }
        }
        for c in 0..<channels { fifo[c] += s[c] }
    }
}
