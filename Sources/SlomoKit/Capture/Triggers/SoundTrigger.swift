import Foundation
import SlomoCore

/// The sound trigger: reads a sound input as it comes, a block at a time, and gives each onset
/// (`OnsetDetector`) as an event at the instant its first sample was captured, by that input's
/// sound clock (`AudioClock`: the same fit that places sound on the video), not when it was read.
/// The input is the capture's recorded one, or the trigger's own microphone (`--trigger-audio`),
/// which this source starts and stops.
final class SoundTriggerSource: TriggerEventSource {
    private let audio: AudioCapture
    private let ownsInput: Bool
    private var detector: OnsetDetector
    private var position: Int64
    private var pending: [Int64] = []
    /// One block, a plane per channel (kept: no allocation per block).
    private var planes: [[Float]]
    /// Frames per read: 5.3 ms at 48 kHz (the decision comes at most this long after the onset,
    /// plus the card's period).
    static let block = 256

    /// The sound trigger of `t` at `level`: on its own microphone when it has one (opened and started
    /// here: a missing or busy card is refused before the camera streams), else on `recorded`.
    static func make(_ t: TriggerSettings, level: Rational, recorded: AudioCapture?) throws -> SoundTriggerSource {
        if let mic = t.audio {
            // the trigger keeps no history: a few seconds are room enough for a slow reader
            let input = try AudioCapture(mic, seconds: 10)
            try input.start()
            return SoundTriggerSource(audio: input, levelDBFS: level, holdoff: t.holdoff, ownsInput: true)
        }
        guard let recorded else {
            throw SettingError(
                .trigger, "sound", "listens to the capture's sound input: give \(Setting.audio) DEVICE or \(Setting.triggerAudio) DEVICE", quoted: false)
        }
        return SoundTriggerSource(audio: recorded, levelDBFS: level, holdoff: t.holdoff)
    }

    init(audio: AudioCapture, levelDBFS: Rational, holdoff: Rational, ownsInput: Bool = false) {
        self.audio = audio
        self.ownsInput = ownsInput
        detector = OnsetDetector(sampleRate: audio.rate, channels: audio.channels, levelDBFS: levelDBFS.doubleValue, holdoff: holdoff)
        planes = (0..<audio.channels).map { _ in [Float](repeating: 0, count: Self.block) }
        // sounds from before the trigger was set up are not events
        position = audio.wait(for: 0, seconds: 0)
    }

    func next(timeoutMilliseconds: Int32) -> TriggerEvents.Event? {
        let deadline = Date(timeIntervalSinceNow: Double(timeoutMilliseconds) / 1000)
        while pending.isEmpty {
            let wanted = position + Int64(Self.block)
            let have = audio.wait(for: wanted, seconds: Swift.max(0, deadline.timeIntervalSinceNow))
            guard have >= wanted else { return nil }
            for c in planes.indices { planes[c].removeAll(keepingCapacity: true) }
            audio.copy(from: position, count: Self.block, into: &planes)
            pending += feed()
            position = wanted
        }
        let onset = pending.removeFirst()
        guard let time = audio.clockNow.time(ofPosition: onset) else { return nil }
        return .trigger(time, wall: CaptureClock.wallTime(ofMonotonic: time))
    }

    /// The detector on the block in `planes`.
    private func feed() -> [Int64] {
        func withPointers(_ c: Int, _ done: [UnsafePointer<Float>]) -> [Int64] {
            guard c < planes.count else { return detector.feed(done, count: Self.block, position: position) }
            return planes[c].withUnsafeBufferPointer { withPointers(c + 1, done + [$0.baseAddress!]) }
        }
        return withPointers(0, [])
    }

    func close() { if ownsInput { audio.stop() } }
}
