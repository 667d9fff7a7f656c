import SlomoCore
import SlomoFFmpeg

/// A source of retimed audio: planar float blocks in output order, with an exact total length.
/// (`RetimedAudioSource` from the time-pitch engine conforms.)
public protocol RetimedAudio: AnyObject {
    var sampleRate: Int { get }
    var channels: Int { get }
    var totalFrames: Int64 { get }
    func read(maxFrames: Int) throws -> [[Float]]?
}

/// Encodes a `RetimedAudio` into one output stream (AAC by default), interleaving with video:
/// callers ask it to catch up to a time, and it writes every audio packet that starts before.
final class AudioTrackWriter {
    let source: any RetimedAudio
    let encoder: Encoder
    let muxer: Muxer
    let streamIndex: Int
    private var streamTimeBase = Rational(1)
    private(set) var framesWritten: Int64 = 0
    private var pending: [[Float]]
    private var sourceDone = false
    private let packet = Packet()

    init(source: any RetimedAudio, muxer: Muxer, codec: String, bitRate: Int, path: String) throws {
        self.source = source
        self.muxer = muxer
        encoder = try Encoder(path: path, audio: AudioEncoderSettings(codec: codec, sampleRate: source.sampleRate,
                                                                       channels: source.channels, bitRate: bitRate),
                              globalHeader: muxer.wantsGlobalHeader)
        streamIndex = try muxer.addStream(for: encoder)
        pending = Array(repeating: [], count: source.channels)
    }

    /// Call after `writeHeader`: the muxer may have changed the stream's time base.
    func headerWritten() { streamTimeBase = muxer.timeBase(ofStream: streamIndex) }

    /// Encodes audio until its output reaches `time` (seconds on the output timeline).
    func write(upTo time: Rational) throws {
        let limit = Swift.min((time * Rational(Int64(source.sampleRate))).ceiling, source.totalFrames)
        let chunk = encoder.frameSize > 0 ? encoder.frameSize : 1024
        while framesWritten < limit {
            while pending[0].count < chunk && !sourceDone {
                if let block = try source.read(maxFrames: 4096) {
                    for c in 0..<pending.count { pending[c].append(contentsOf: block[c]) }
                } else {
                    sourceDone = true
                }
            }
            let n = Swift.min(chunk, pending[0].count)
            if n == 0 { return }
            let frame = try Frame(samples: n, sampleRate: source.sampleRate, channels: source.channels, format: encoder.sampleFormat)
            for c in 0..<source.channels {
                frame.withPlane(c) { p, _ in
                    p.withMemoryRebound(to: Float.self, capacity: n) { f in
                        pending[c].withUnsafeBufferPointer { f.update(from: $0.baseAddress!, count: n) }
                    }
                }
                pending[c].removeFirst(n)
            }
            frame.pts = framesWritten
            framesWritten += Int64(n)
            while try !encoder.send(frame) { try drain() }
            try drain()
        }
    }

    /// Flushes the encoder after the last samples.
    func finish() throws {
        try write(upTo: Rational(source.totalFrames + 1, Int64(source.sampleRate)))
        _ = try encoder.send(nil)
        try drain()
    }

    private func drain() throws {
        while case .got = try encoder.receive(into: packet) {
            packet.streamIndex = streamIndex
            packet.rescaleTimestamps(from: encoder.timeBase, to: streamTimeBase)
            try muxer.write(packet)
        }
    }
}
