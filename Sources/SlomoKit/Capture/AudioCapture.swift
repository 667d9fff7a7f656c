import Foundation
import SlomoALSA
import SlomoAudio
import SlomoCore
import SlomoFFmpeg

/// `capture --audio DEVICE`: what to record the sound from.
public struct AudioSettings: Sendable {
    /// An ALSA name (`hw:1,0`, `default`, `hw:Loopback,1,0`).
    public var device: String
    /// Nil: the card's own (48 kHz where offered; 2 channels where offered).
    public var rate: Int?
    public var channels: Int?
    /// A name of `AudioCodecChoice.named` (`aac`, `flac`, `pcm`…); nil: lossless, PCM where the
    /// container holds it, ALAC in MP4.
    public var codec: String?
    public init(device: String, rate: Int? = nil, channels: Int? = nil, codec: String? = nil) {
        self.device = device; self.rate = rate; self.channels = channels; self.codec = codec
    }

    /// The encoder for a recording named `output`: the requested one, or the lossless default.
    /// A codec the container cannot hold (or this FFmpeg lacks) is refused (a bad request), before anything opens.
    func encoder(for output: String) throws -> (name: String, bitRate: Int) {
        let container = try ContainerFormat.forOutput(output)
        guard let codec else { return (container == "mp4" ? "alac" : "pcm_s16le", 0) }
        guard let encoder = AudioCodecChoice.named.first(where: { $0.key == codec })?.value else {
            throw SettingError(.audioCodec, codec, "\(AudioCodecChoice.expected.replacingOccurrences(of: "auto, ", with: ""))")
        }
        guard let name = Encoder.codecName(ofEncoder: encoder) else { throw CaptureError.soundEncoderMissing(codec: codec, encoder: encoder) }
        guard try Muxer(path: output, formatName: container).accepts(codecName: name) else {
            throw CaptureError.soundCodecNotInContainer(codec: codec, container: container, codecName: name, output: output)
        }
        return (encoder, AudioCodecChoice.lossy.contains(encoder) ? AudioCodecChoice.defaultBitRate : 0)
    }
}

/// The sound side of a capture, as the report tells it.
public struct AudioReport: Codable, Sendable {
    public var device: String
    public var sampleRate: Int
    public var channels: Int
    public var codec: String
    /// The card's rate measured against CLOCK_MONOTONIC (frames per second), and its deviation.
    public var measuredRate: Rational
    public var ppm: Double
    /// Frames written to the recording (the first one at the first video frame's time).
    public var framesWritten: Int64
    /// Overruns (xruns: the card's buffer filled before slomo read it) and the frames they cost,
    /// filled with silence so the rest stays in place.
    public var overruns: Int
    public var framesLost: Int64
    /// Samples added (+) or removed (−) by the clock-following resampler to keep A/V aligned.
    public var driftCorrectionFrames: Int64
    /// Status timestamps the clock was fitted from.
    public var timestampPairs: Int
    public var adjustments: [String]
}

/// Records a sound card on its own thread into a RAM ring of interleaved 16-bit samples, with
/// the card's clock fitted against CLOCK_MONOTONIC (`AudioClock`) from ALSA's status timestamps.
/// Positions are frames since the card started, overruns included (their frames are silence), so
/// a position's time is the clock's line wherever it is in the ring.
final class AudioCapture: @unchecked Sendable {
    let settings: AudioSettings
    let pcm: PCMCapture
    var rate: Int { pcm.rate }
    var channels: Int { pcm.channels }
    private let cond = NSCondition()
    private var clock: AudioClock
    private let ring: UnsafeMutablePointer<Int16>
    private let capacity: Int                     // frames
    private var end: Int64 = 0                    // frames captured (the next position)
    private var offset: Int64 = 0                 // our position − the PCM's (overruns move it)
    private var running = false
    private var stopping = false
    private var thread: Thread?
    private(set) var failure: String?
    private(set) var framesLost: Int64 = 0

    /// Opens and configures the card now (before the camera streams); `seconds` of sound are kept.
    init(_ settings: AudioSettings, seconds: Int) throws {
        self.settings = settings
        pcm = try PCMCapture(device: settings.device, rate: settings.rate, channels: settings.channels)
        clock = AudioClock(nominalRate: pcm.rate)
        capacity = max(pcm.rate, pcm.rate * seconds)
        ring = .allocate(capacity: capacity * pcm.channels)
    }

    deinit {
        stop()
        ring.deallocate()
    }

    /// Starts the card and the reading thread (raised priority where allowed, like the camera's).
    func start() throws {
        try pcm.start()
        cond.lock(); running = true; cond.unlock()
        let t = Thread { [self] in loop() }
        t.name = "slomo-audio"
        t.stackSize = 1 << 20
        thread = t
        t.start()
    }

    /// Stops reading and closes the card; readers waiting for more are woken.
    func stop() {
        cond.lock()
        let wasRunning = running
        stopping = true
        cond.broadcast()
        cond.unlock()
        if wasRunning { while isRunning { usleep(1000) } }
        pcm.close()
    }

    private var isRunning: Bool { cond.lock(); defer { cond.unlock() }; return running }

    private func loop() {
        _ = CaptureSession.raisePriority()
        let block = UnsafeMutablePointer<Int16>.allocate(capacity: pcm.periodFrames * 4 * pcm.channels)
        defer {
            block.deallocate()
            cond.lock(); running = false; cond.broadcast(); cond.unlock()
        }
        var checkGap = false
        while true {
            cond.lock(); let stop = stopping; cond.unlock()
            if stop { return }
            let got: PCMRead, overrun: Bool
            do { (got, overrun) = try pcm.read(into: block, frames: pcm.periodFrames * 4) } catch {
                cond.lock(); failure = error.description; cond.unlock()
                return
            }
            if overrun { checkGap = true; continue }
            guard got.frames > 0 else { continue }
            cond.lock()
            if let p = got.stampPosition, let t = got.time {
                if checkGap, let expected = clock.position(atTime: t) {
                    // after an overrun: where the clock says this stamp is, minus where the PCM's count puts it
                    let newOffset = expected - p
                    let gap = (p - Int64(got.frames) + newOffset) - end       // frames between the old end and these
                    if gap > 0 {
                        fillSilence(Int(min(gap, Int64(capacity))))
                        framesLost += gap
                    }
                    offset = end - (p - Int64(got.frames))
                    checkGap = false
                }
                clock.add(position: p + offset, time: t)
            }
            write(block, frames: got.frames)
            cond.broadcast()
            cond.unlock()
        }
    }

    /// (under cond)
    private func write(_ src: UnsafePointer<Int16>, frames: Int) {
        var done = 0
        while done < frames {
            let at = Int(end % Int64(capacity))
            let n = min(frames - done, capacity - at)
            (ring + at * channels).update(from: src + done * channels, count: n * channels)
            done += n
            end += Int64(n)
        }
    }

    /// (under cond)
    private func fillSilence(_ frames: Int) {
        var done = 0
        while done < frames {
            let at = Int(end % Int64(capacity))
            let n = min(frames - done, capacity - at)
            (ring + at * channels).update(repeating: 0, count: n * channels)
            done += n
            end += Int64(n)
        }
    }

    /// The clock as fitted so far.
    var clockNow: AudioClock { cond.lock(); defer { cond.unlock() }; return clock }

    var overruns: Int { pcm.overruns }

    /// Waits until `position` has been captured, the card stopped, or `seconds` passed; returns
    /// the frames captured so far.
    func wait(for position: Int64, seconds: Double) -> Int64 {
        cond.lock(); defer { cond.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while end < position && running && !stopping && failure == nil {
            if !cond.wait(until: deadline) { break }
        }
        return end
    }

    /// Waits until the clock has at least `pairs` timestamps (or the card stopped / `seconds` passed).
    func waitForClock(pairs: Int, seconds: Double) -> AudioClock {
        cond.lock(); defer { cond.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while clock.pairs < pairs && running && !stopping && failure == nil {
            if !cond.wait(until: deadline) { break }
        }
        return clock
    }

    /// Copies frames [from, from + count) as planar float into `planes` (appended); positions no
    /// longer (or not yet) in the ring are silence. Returns how many of them were real samples.
    @discardableResult
    func copy(from: Int64, count: Int, into planes: inout [[Float]]) -> Int {
        cond.lock(); defer { cond.unlock() }
        let oldest = max(0, end - Int64(capacity))
        var real = 0
        for c in 0..<channels { planes[c].reserveCapacity(planes[c].count + count) }
        for i in 0..<count {
            let p = from + Int64(i)
            if p >= oldest && p < end && p >= 0 {
                let base = ring + Int(p % Int64(capacity)) * channels
                for c in 0..<channels { planes[c].append(Float(base[c]) / 32768) }
                real += 1
            } else {
                for c in 0..<channels { planes[c].append(0) }
            }
        }
        return real
    }
}

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
    private var produced: Int64 = 0               // output frames handed out
    private var out: [[Float]]
    private var first: Int64?
    private let scratch: UnsafeMutableBufferPointer<Float>

    /// Output frames minus input frames so far: what following the card's clock added (+) or removed (−).
    var correction: Int64 {
        guard let first, let next else { return 0 }
        return produced + Int64(out[0].count) + Int64(converter.delayedOutputSamples) - (next - first)
    }

    init(capture: AudioCapture, start: Rational) throws {
        self.capture = capture
        self.start = start
        converter = try SampleConverter(channels: capture.channels, inRate: capture.rate, inFormat: .floatPlanar,
                                        outRate: capture.rate, outFormat: .floatPlanar, compensating: true)
        out = Array(repeating: [], count: capture.channels)
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
        while out[0].count < want {
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
                for c in 0..<channels { out[c].append(contentsOf: UnsafeBufferPointer(start: o[c], count: n)) }
            }
            try followClock()
        }
        let n = min(want, out[0].count)
        let block = out.map { Array($0.prefix(n)) }
        for c in 0..<channels { out[c].removeFirst(n) }
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
        let actual = produced + Int64(out[0].count) + Int64(converter.delayedOutputSamples)
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
    /// Frames pulled and not yet discarded; `base` is the source frame of `held[c][0]`.
    private var held: [[Float]]
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
        held = Array(repeating: [], count: captured.channels)
    }

    func read(at position: Int64, count: Int, into planes: [UnsafeMutablePointer<Float>]) throws {
        while !ended && base + Int64(held[0].count) < position + Int64(count) {
            guard let block = try captured.read(maxFrames: 4096) else { ended = true; break }
            for c in 0..<channels { held[c].append(contentsOf: block[c]) }
        }
        for c in 0..<channels {
            for i in 0..<count {
                let k = position + Int64(i) - base
                planes[c][i] = k >= 0 && k < Int64(held[c].count) ? held[c][Int(k)] : 0
            }
        }
    }

    func discard(before position: Int64) {
        let n = Int(min(max(0, position - base), Int64(held[0].count)))
        guard n > 0 else { return }
        for c in 0..<channels { held[c].removeFirst(n) }
        base += Int64(n)
    }
}
