import SlomoCore
import SlomoFFmpeg

/// A source of retimed audio: planar float blocks in output order, with an exact total length.
/// (`TimePitchAudioSource` conforms.)
public protocol RetimedAudio: AnyObject {
    var sampleRate: Int { get }
    var channels: Int { get }
    var totalFrames: Int64 { get }
    /// FFmpeg's name of the channel layout (`5.1(side)`…), kept in the output; nil: the default.
    var channelLayout: String? { get }
    func read(maxFrames: Int) throws -> [[Float]]?
}

/// Encodes a `RetimedAudio` into one output stream (AAC by default), interleaving with video:
/// callers ask it to catch up to a time, and it writes every audio packet that starts before.
final class AudioTrackWriter {
    private(set) var source: any RetimedAudio
    let encoder: Encoder
    let muxer: Muxer
    let streamIndex: Int
    private var streamTimeBase = Rational(1)
    private(set) var framesWritten: Int64 = 0
    private var pending: [[Float]]
    private var sourceDone = false
    private let packet = Packet()

    /// Frames per packet for codecs without a fixed frame size (PCM); `nil`: 1024.
    let chunkFrames: Int?
    /// Frames asked of the source per read: `readFrames`, or, when `chunkFrames` is given (live
    /// playback), one packet's worth, so that a source switched away from leaves at most that
    /// much rendered and unused.
    private let readBlock: Int

    init(source: any RetimedAudio, muxer: Muxer, codec: String, bitRate: Int, path: String, chunkFrames: Int? = nil, deep: Bool = false) throws {
        self.source = source
        self.chunkFrames = chunkFrames
        readBlock = chunkFrames ?? Self.readFrames
        self.muxer = muxer
        encoder = try Encoder(
            path: path,
            audio: AudioEncoderSettings(
                codec: codec, sampleRate: source.sampleRate,
                channels: source.channels, bitRate: bitRate,
                options: EncoderDefaults.audioOptions(codec), deep: deep,
                layout: EncoderDefaults.keepsLayout(codec) ? source.channelLayout : nil),
            globalHeader: muxer.wantsGlobalHeader)
        streamIndex = try muxer.addStream(for: encoder)
        pending = Array(repeating: [], count: source.channels)
    }

    /// Frames asked of the source per read.
    static let readFrames = 4096

    /// Call after `writeHeader`: the muxer may have changed the stream's time base.
    func headerWritten() { streamTimeBase = muxer.timeBase(ofStream: streamIndex) }

    /// Output-timeline sample where the current source's first sample goes.
    private var sourceStart: Int64 = 0

    /// Continues the track from `next` (same rate and channel count) at the current end of the
    /// output: used by live playback when the rate, algorithm or position changes. The first
    /// `crossfade` frames of `next` are faded in over the old source's continuation (both start
    /// from the same source position, so a linear fade keeps the level), so the switch does not click.
    func switchSource(to next: any RetimedAudio, crossfade: Int = 0) throws {
        precondition(next.sampleRate == source.sampleRate && next.channels == source.channels)
        try refill(atLeast: crossfade, readingNoMore: true)  // the old source's continuation, only what the fade needs
        let fadeOut = pending.map { Array($0.prefix(crossfade)) }
        source = next
        sourceStart = framesWritten
        pending = Array(repeating: [], count: next.channels)
        sourceDone = false
        try refill(atLeast: crossfade)
        let n = Swift.min(fadeOut[0].count, pending[0].count)
        for c in 0..<pending.count {
            for i in 0..<n {
                let w = (Float(i) + 0.5) / Float(n)
                pending[c][i] = w * pending[c][i] + (1 - w) * fadeOut[c][i]
            }
        }
    }

    /// Reads the source until `pending` holds `count` frames or the source ends, in `readBlock`
    /// blocks (or no more than `count` when `readingNoMore`).
    private func refill(atLeast count: Int, readingNoMore: Bool = false) throws {
        while pending[0].count < count && !sourceDone {
            if let block = try source.read(maxFrames: readingNoMore ? count - pending[0].count : readBlock) {
                for c in 0..<pending.count { pending[c].append(contentsOf: block[c]) }
            } else {
                sourceDone = true
            }
        }
    }

    /// Output time (seconds) where the current source starts.
    var switchedAt: Rational { Rational(sourceStart, Int64(source.sampleRate)) }

    /// Output time (seconds) where the current source ends.
    var sourceEndTime: Rational { Rational(sourceStart + source.totalFrames, Int64(source.sampleRate)) }

    /// The current source has ended and everything it gave has been written.
    var exhausted: Bool { sourceDone && pending[0].isEmpty }

    /// Output time reached so far (seconds).
    var endTime: Rational { Rational(framesWritten, Int64(source.sampleRate)) }

    /// Encodes audio until its output reaches `time` (seconds on the output timeline). `notPast`:
    /// never beyond it (a live capture, whose end is not known yet, must not run past the video;
    /// fixed-size frames wait until a whole one fits).
    func write(upTo time: Rational, notPast: Bool = false) throws {
        let limit = Swift.min((time * Rational(Int64(source.sampleRate))).ceiling, sourceStart + source.totalFrames)
        let chunk = encoder.frameSize > 0 ? encoder.frameSize : (chunkFrames ?? 1024)
        while framesWritten < limit {
            if notPast && encoder.frameSize > 0 && framesWritten + Int64(chunk) > limit { return }
            try refill(atLeast: notPast ? Int(Swift.min(Int64(chunk), limit - framesWritten)) : chunk)
            let n = notPast ? Int(Swift.min(Int64(Swift.min(chunk, pending[0].count)), limit - framesWritten)) : Swift.min(chunk, pending[0].count)
            if n == 0 { return }
            let frame = try encoder.makeAudioFrame(samples: n)
            try fill(frame, count: n)
            frame.pts = framesWritten
            framesWritten += Int64(n)
            while try !encoder.send(frame) { try drain() }
            try drain()
        }
    }

    private let filler = AudioFrameFill()

    /// Moves `n` pending samples per channel into `frame`.
    private func fill(_ frame: Frame, count n: Int) throws {
        try filler.fill(frame, from: pending, count: n, encoder: encoder, sampleRate: source.sampleRate)
        for c in 0..<source.channels { pending[c].removeFirst(n) }
    }

    /// Ends the track at output time `time` (to the sample; a fixed-size codec's last frame is
    /// short) without reading the source further, and flushes the encoder: for a source longer
    /// than what is kept (a live capture's map runs to the longest capture allowed).
    func finish(at time: Rational) throws {
        try write(upTo: time, notPast: true)
        let limit = (time * Rational(Int64(source.sampleRate))).ceiling
        if framesWritten < limit {
            let n = Int(limit - framesWritten)
            try refill(atLeast: n)
            let count = Swift.min(n, pending[0].count)
            if count > 0 {
                let frame = try encoder.makeAudioFrame(samples: count)
                try fill(frame, count: count)
                frame.pts = framesWritten
                framesWritten += Int64(count)
                while try !encoder.send(frame) { try drain() }
            }
        }
        _ = try encoder.send(nil)
        try drain()
    }

    /// Flushes the encoder after the last samples. The source is read to its end, so that a
    /// render-ahead worker has finished with it when this returns (its counters can be read).
    func finish() throws {
        try write(upTo: Rational(sourceStart + source.totalFrames + 1, Int64(source.sampleRate)))
        while !sourceDone {
            if try source.read(maxFrames: readBlock) == nil { sourceDone = true }
        }
        _ = try encoder.send(nil)
        try drain()
    }

    /// Packets the encoder gave and the muxer took.
    private(set) var packetsWritten = 0

    private func drain() throws {
        while case .got = try encoder.receive(into: packet) {
            packetsWritten += 1
            packet.streamIndex = streamIndex
            packet.rescaleTimestamps(from: encoder.timeBase, to: streamTimeBase)
            try muxer.write(packet)
        }
    }
}

/// Fills an encoder's audio frame from planar Float samples: float directly, other formats
/// through swresample (made on first use).
final class AudioFrameFill {
    private var converter: SampleConverter?

    /// The first `n` samples of each channel of `samples` (at `sampleRate`) into `frame` (made by `encoder`).
    func fill(_ frame: Frame, from samples: [[Float]], count n: Int, encoder: Encoder, sampleRate: Int) throws {
        let channels = samples.count
        let f = encoder.sampleFormat
        if f != .floatPlanar && f != .float {
            if converter == nil {
                converter = try SampleConverter(
                    channels: channels, inRate: sampleRate, inFormat: .floatPlanar,
                    outRate: sampleRate, outFormat: f)
            }
            try converter!.fill(frame, from: samples, count: n)
        } else if f.isPlanar {
            for c in 0..<channels {
                frame.withPlane(c) { p, _ in
                    p.withMemoryRebound(to: Float.self, capacity: n) { f in
                        samples[c].withUnsafeBufferPointer { f.update(from: $0.baseAddress!, count: n) }
                    }
                }
            }
        } else {
            frame.withPlane(0) { p, _ in
                p.withMemoryRebound(to: Float.self, capacity: n * channels) { f in
                    for c in 0..<channels { for i in 0..<n { f[i * channels + c] = samples[c][i] } }
                }
            }
        }
    }
}
