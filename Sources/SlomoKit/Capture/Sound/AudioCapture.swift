import Foundation
import SlomoALSA
import SlomoAudio
import SlomoCore
import SlomoSystem
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
    /// The ranges a sound capture takes (`SettingError`, the same words for every front end).
    public func validate() throws(SettingError) {
        if let r = rate, !(8000...384_000).contains(r) { throw SettingError(.audioRate, String(r), "must be in 8000...384000 Hz", quoted: false) }
        if let c = channels, !(1...32).contains(c) { throw SettingError(.audioChannels, String(c), "must be in 1...32", quoted: false) }
    }

    public init(device: String, rate: Int? = nil, channels: Int? = nil, codec: String? = nil) {
        self.device = device
        self.rate = rate
        self.channels = channels
        self.codec = codec
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
    private let capacity: Int  // frames
    private var end: Int64 = 0  // frames captured (the next position)
    private var offset: Int64 = 0  // our position − the PCM's (overruns move it)
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
        cond.lock()
        running = true
        cond.unlock()
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
        if wasRunning { while isRunning { CurrentProcess.sleep(microseconds: 1000) } }
        pcm.close()
    }

    private var isRunning: Bool {
        cond.lock()
        defer { cond.unlock() }
        return running
    }

    private func loop() {
        _ = ThreadPriority.raise()
        let block = UnsafeMutablePointer<Int16>.allocate(capacity: pcm.periodFrames * 4 * pcm.channels)
        defer {
            block.deallocate()
            cond.lock()
            running = false
            cond.broadcast()
            cond.unlock()
        }
        var checkGap = false
        while true {
            cond.lock()
            let stop = stopping
            cond.unlock()
            if stop { return }
            let got: PCMRead, overrun: Bool
            do { (got, overrun) = try pcm.read(into: block, frames: pcm.periodFrames * 4) } catch {
                cond.lock()
                failure = error.description
                cond.unlock()
                return
            }
            if overrun {
                checkGap = true
                continue
            }
            guard got.frames > 0 else { continue }
            cond.lock()
            if let p = got.stampPosition, let t = got.time {
                if checkGap, let expected = clock.position(atTime: t) {
                    // after an overrun: where the clock says this stamp is, minus where the PCM's count puts it
                    let newOffset = expected - p
                    let gap = (p - Int64(got.frames) + newOffset) - end  // frames between the old end and these
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
    var clockNow: AudioClock {
        cond.lock()
        defer { cond.unlock() }
        return clock
    }

    var overruns: Int { pcm.overruns }

    /// Waits until `position` has been captured, the card stopped, or `seconds` passed; returns
    /// the frames captured so far.
    func wait(for position: Int64, seconds: Double) -> Int64 {
        cond.lock()
        defer { cond.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while end < position && running && !stopping && failure == nil {
            if !cond.wait(until: deadline) { break }
        }
        return end
    }

    /// Waits until the clock has at least `pairs` timestamps (or the card stopped / `seconds` passed).
    func waitForClock(pairs: Int, seconds: Double) -> AudioClock {
        cond.lock()
        defer { cond.unlock() }
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
        cond.lock()
        defer { cond.unlock() }
        let start = planes[0].count
        for c in 0..<channels { planes[c].append(contentsOf: repeatElement(0, count: count)) }
        // the part the ring holds, [lo, hi): decoded a run at a time (the ring wraps once at most)
        let lo = max(from, max(0, end - Int64(capacity))), hi = min(from + Int64(count), end)
        guard lo < hi else { return 0 }
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: Int(hi - lo) * channels)
        defer { scratch.deallocate() }
        var p = lo
        while p < hi {
            let slot = Int(p % Int64(capacity))
            let run = Int(min(hi - p, Int64(capacity - slot)))
            let samples = UnsafeRawBufferPointer(start: ring + slot * channels, count: run * channels * MemoryLayout<Int16>.size)
            WAV.decode(samples, format: .s16, channels: channels, frames: run, into: (0..<channels).map { scratch + $0 * run })
            let at = start + Int(p - from)
            for c in 0..<channels {
                planes[c].withUnsafeMutableBufferPointer { $0.baseAddress!.advanced(by: at).update(from: scratch + c * run, count: run) }
            }
            p += Int64(run)
        }
        return Int(hi - lo)
    }
}
