import Foundation
import SlomoCore

/// The sound trigger: reads the capture's own sound input as it comes, a block at a time, and gives
/// each onset (`OnsetDetector`) as an event at the instant its first sample was captured, by the
/// sound clock (`AudioClock`: the same fit that places sound on the video), not when it was read.
final class SoundTriggerSource: TriggerEventSource {
    private let audio: AudioCapture
    private var detector: OnsetDetector
    private var position: Int64
    private var pending: [Int64] = []
    /// One block, plane after plane (what the detector reads).
    private let scratch: UnsafeMutablePointer<Float>
    /// Frames per read: 5.3 ms at 48 kHz (the decision comes at most this long after the onset,
    /// plus the card's period).
    static let block = 256

    init(audio: AudioCapture, levelDBFS: Rational, holdoff: Rational) {
        self.audio = audio
        detector = OnsetDetector(sampleRate: audio.rate, channels: audio.channels, levelDBFS: levelDBFS.doubleValue, holdoff: holdoff)
        scratch = .allocate(capacity: Self.block * audio.channels)
        // sounds from before the trigger was set up are not events
        position = audio.wait(for: 0, seconds: 0)
    }

    deinit { scratch.deallocate() }

    func next(timeoutMilliseconds: Int32) -> TriggerEvents.Event? {
        let deadline = Date(timeIntervalSinceNow: Double(timeoutMilliseconds) / 1000)
        while pending.isEmpty {
            let wanted = position + Int64(Self.block)
            let have = audio.wait(for: wanted, seconds: Swift.max(0, deadline.timeIntervalSinceNow))
            guard have >= wanted else { return nil }
            var planes = Array(repeating: [Float](), count: audio.channels)
            audio.copy(from: position, count: Self.block, into: &planes)
            for c in 0..<audio.channels { planes[c].withUnsafeBufferPointer { (scratch + c * Self.block).update(from: $0.baseAddress!, count: Self.block) } }
            pending += detector.feed((0..<audio.channels).map { UnsafePointer(scratch + $0 * Self.block) }, count: Self.block, position: position)
            position = wanted
        }
        let onset = pending.removeFirst()
        guard let time = audio.clockNow.time(ofPosition: onset) else { return nil }
        return .trigger(time, wall: CaptureClock.wallTime(ofMonotonic: time))
    }

    func close() {}
}
