import Foundation
import SlomoALSA
import SlomoAudio
import SlomoCore
import SlomoFFmpeg

/// The captured sound from one kernel time on, as a `RetimedAudio` for `AudioTrackWriter`: the
/// first frame is the one captured at `start` (the recording's first video frame), and a resampler
/// follows the card's clock so that output sample n stays at `start` + n / nominal rate on
/// CLOCK_MONOTONIC however fast or slow the card runs (Docs/Capture.md, "Sound").
final class CapturedAudio: RetimedAudio {
    let capture: AudioCapture
    let start: Rational
    var sampleRate: Int { capture.rate }
    var channels: Int { capture.channels }
    let channelLayout: String? = nil
    /// Until `end(at:)`: unbounded (the capture is still running).
    private(set) var totalFrames: Int64 = Int64.max / 4
    private var next: Int64?
    private let converter: SampleConverter
    private var produced: Int64 = 0  // output frames handed out
    private var out: PlanarFIFO
    private var first: Int64?
    private let scratch: UnsafeMutableBufferPointer<Float>

    /// Output frames minus input frames so far: what following the card's clock added (+) or removed (−).
    var correction: Int64 {
        guard let first, let next else { return 0 }
        return produced + Int64(out.count) + Int64(converter.delayedOutputSamples) - (next - first)
    }

    init(capture: AudioCapture, start: Rational) throws {
        self.capture = capture
        self.start = start
        converter = try SampleConverter(
            channels: capture.channels, inRate: capture.rate, inFormat: .floatPlanar,
            outRate: capture.rate, outFormat: .floatPlanar, compensating: true)
        out = PlanarFIFO(channels: capture.channels)
        scratch = .allocate(capacity: Self.block * capture.channels)
    }

    deinit { scratch.deallocate() }

    /// The recording ends at `time` seconds of output: the sound is cut (or padded) to exactly that.
    func end(at time: Rational) { totalFrames = (time * Rational(Int64(sampleRate))).rounded(.nearest) }

    /// Input frames per read.
    static let block = 1024

    func read(maxFrames: Int) throws -> [[Float]]? {
        guard produced < totalFrames else { return nil }
        let want = Int(min(Int64(maxFrames), totalFrames - produced))
        while out.count < want {
            if next == nil {
                // the first frame: the one the clock says was captured at `start` (wait for the clock to settle a little)
                let clock = capture.waitForClock(pairs: 8, seconds: 1)
                next = clock.position(atTime: start) ?? 0
                first = next
            }
            let from = next!
            // one block: what is there, silence once the card has stopped (or nothing came for half a second)
            _ = capture.wait(for: from + Int64(Self.block), seconds: 0.5)
            var planes = Array(repeating: [Float](), count: channels)
            let count = Self.block
            capture.copy(from: from, count: count, into: &planes)
            next = from + Int64(count)
            for c in 0..<channels { (scratch.baseAddress! + c * count).update(from: planes[c], count: count) }
            let inputs = (0..<channels).map { UnsafePointer(scratch.baseAddress! + $0 * count) }
            try converter.convert(fromPlanes: inputs, count: count) { o, n in
                out.append(o, count: n)
            }
            try followClock()
        }
        let n = min(want, out.count)
        let block = out.take(n)
        produced += Int64(n)
        return block
    }

    /// The resampler's correction for the next second: the card's measured rate against its
    /// nominal one (feed-forward: what a second of its frames lacks or has too many of), plus
    /// where the output should be for the input read so far against where it is (the error, so
    /// the output converges on the card's clock and stays there). At most 0.5 % of a second.
    private func followClock() throws {
        guard let next, let (t, rate) = capture.clockNow.timeAndRate(ofPosition: next) else { return }
        let expected = ((t - start) * Rational(Int64(sampleRate))).rounded(.nearest)
        let actual = produced + Int64(out.count) + Int64(converter.delayedOutputSamples)
        let perSecond = (Rational(Int64(sampleRate)) - rate).rounded(.nearest)
        let delta = Int(max(-Int64(sampleRate / 200), min(Int64(sampleRate / 200), perSecond + expected - actual)))
        // (each call replaces the previous one: a proportional correction, re-aimed every block)
        try converter.compensate(delta: delta, distance: sampleRate)
    }
}

/// The clock-followed sound of a recording (`CapturedAudio`, at the nominal rate from the first
/// frame's time) as a random-access sample source, so the time-pitch renderer can play it through
/// a retime map while it is being captured (`--segment`/`--ramp` with `--audio`). Frames are pulled
/// in order as the renderer asks for them and kept until it discards them.
final class LiveSampleSource: AudioFileSource {
    let captured: CapturedAudio
    /// Frames pulled and not yet discarded; `base` is the source frame of the first.
    private var held: PlanarFIFO
    private var base: Int64 = 0
    private var ended = false
    let path: String
    var sampleRate: Int { captured.sampleRate }
    var channels: Int { captured.channels }
    var channelLayout: String? { nil }
    var corruptPackets: Int { 0 }

    init(_ captured: CapturedAudio, path: String) {
        self.captured = captured
        self.path = path
        held = PlanarFIFO(channels: captured.channels)
    }

    func read(at position: Int64, count: Int, into planes: [UnsafeMutablePointer<Float>]) throws {
        while !ended && base + Int64(held.count) < position + Int64(count) {
            guard let block = try captured.read(maxFrames: 4096) else {
                ended = true
                break
            }
            held.append(block)
        }
        // what is held of [position, position + count) is copied whole; the rest is silence
        let lo = max(position, base), hi = min(position + Int64(count), base + Int64(held.count))
        for c in 0..<channels {
            planes[c].update(repeating: 0, count: count)
            guard lo < hi else { continue }
            held.withChannel(c) { h in
                (planes[c] + Int(lo - position)).update(from: h.baseAddress! + Int(lo - base), count: Int(hi - lo))
            }
        }
    }

    func discard(before position: Int64) {
        let n = Int(min(max(0, position - base), Int64(held.count)))
        guard n > 0 else { return }
        held.drop(n)
        base += Int64(n)
    }
}
