internal import CSoundTouch
import SlomoCore

/// `time-domain`: SoundTouch's WSOLA (`soundtouch_setTempo`), pitch kept. The one owner of a
/// SoundTouch handle, freed in `deinit`.
///
/// House-style pitfalls encoded here: sample rate and channels are set in `init`, before any
/// `putSamples` (otherwise SoundTouch throws a C++ exception through C and the process aborts);
/// `soundtouch_flush` is never called (it pads with silence) — the driver feeds real audio or
/// silence past a segment's end instead.
///
/// Alignment: SoundTouch's output is not centred on the time map — within each processing sequence
/// the copied input runs at rate 1, so on average its output leads (slow-down) or lags (speed-up)
/// the map by an amount that depends on the tempo-dependent sequence length. Measured here
/// (onset and end of a tone burst, SoundTouch 2.3.2, 8–96 kHz; within ±3 ms of the 48 kHz values
/// in `offsetTable`), and compensated: a lead is removed by feeding that much silence first, a lag
/// by dropping output frames. What is left is WSOLA's own jitter (a transient can be repeated or
/// moved by up to about half a sequence, 20–45 ms) — no drift: the mapping is exact on average.
/// SoundTouch takes the tempo as a `Float` (relative error ≤ 6·10⁻⁸: < 0.2 ms per hour of one
/// segment); segment lengths stay exact because the driver cuts each segment.
public final class SoundTouchStretcher: StretchEngine {
    public let channels: Int
    public private(set) var rate: Rational
    public let startPad: Int
    public let startDelay: Int
    public let latency: Int

    /// (tempo, mean output offset in ms; negative = early), measured at 48 kHz.
    static let offsetTable: [(Double, Double)] = [
        (0.5, -31.3), (0.5714, -29.7), (0.6667, -15.6), (0.8, -6.4), (1.0, 0.8), (1.25, 3.9), (1.5, 5.3), (1.75, 8.1), (2.0, 3.9),
    ]

    /// The measured offset at `tempo`, interpolated linearly.
    static func offsetMilliseconds(tempo t: Double) -> Double {
        let table = offsetTable
        if t <= table[0].0 { return table[0].1 }
        for (a, b) in zip(table, table.dropFirst()) where t <= b.0 {
            return a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0)
        }
        return table[table.count - 1].1
    }
    private var handle: UnsafeMutableRawPointer?
    private var interleaved: [Float] = []

    /// The corresponding C functions are `soundtouch_createInstance`, `soundtouch_setSampleRate`,
    /// `soundtouch_setChannels` and `soundtouch_setTempo`.
    public init(rate: Rational, sampleRate: Int, channels: Int) throws(AudioFailure) {
        self.channels = channels
        self.rate = rate
        handle = soundtouch_createInstance()
        guard let handle else {
            throw AudioFailure(.engineFailed, subject: "audio", operation: "soundtouch_createInstance", cause: "SoundTouch could not be created")
        }
        guard soundtouch_setSampleRate(handle, UInt32(sampleRate)) != 0, soundtouch_setChannels(handle, UInt32(channels)) != 0 else {
            throw AudioFailure(
                .engineFailed, subject: "audio", operation: "soundtouch_setChannels(\(channels))",
                cause: "SoundTouch refused \(sampleRate) Hz, \(channels) channels")
        }
        soundtouch_setTempo(handle, Float(rate.doubleValue))
        latency = Int(soundtouch_getSetting(handle, 8))  // SETTING_INITIAL_LATENCY (SoundTouch.h)
        let offset = Self.offsetMilliseconds(tempo: rate.doubleValue) / 1000 * Double(sampleRate)
        startPad = offset < 0 ? Int((-offset * rate.doubleValue).rounded()) : 0
        startDelay = offset > 0 ? Int(offset.rounded()) : 0
    }

    deinit { if let handle { soundtouch_destroyInstance(handle) } }

    /// The corresponding C function is `soundtouch_setTempo` (SoundTouch takes a new tempo at
    /// any time; the input already buffered plays at the new one).
    public func setRate(_ rate: Rational) {
        self.rate = rate
        soundtouch_setTempo(handle, Float(rate.doubleValue))
    }

    /// The corresponding C function is `soundtouch_putSamples` (interleaved frames).
    public func feed(_ planes: [UnsafePointer<Float>], count: Int) {
        if channels == 1 {  // mono: the plane is the interleaved buffer
            _ = soundtouch_putSamples(handle, planes[0], UInt32(count))
            return
        }
        if interleaved.count < count * channels { interleaved = [Float](repeating: 0, count: count * channels) }
        interleaved.withUnsafeMutableBufferPointer { buf in
            if channels == 2 {  // constant strides, so that the loop vectorises
                let l = planes[0], r = planes[1]
                for i in 0..<count {
                    buf[2 * i] = l[i]
                    buf[2 * i + 1] = r[i]
                }
            } else {
                for c in 0..<channels {
                    let p = planes[c]
                    var j = c
                    for i in 0..<count {
                        buf[j] = p[i]
                        j += channels
                    }
                }
            }
            _ = soundtouch_putSamples(handle, buf.baseAddress, UInt32(count))
        }
    }

    /// The corresponding C function is `soundtouch_receiveSamples`.
    public func retrieve(into planes: [UnsafeMutablePointer<Float>], maxCount: Int) -> Int {
        if channels == 1 { return Int(soundtouch_receiveSamples(handle, planes[0], UInt32(maxCount))) }
        if interleaved.count < maxCount * channels { interleaved = [Float](repeating: 0, count: maxCount * channels) }
        return interleaved.withUnsafeMutableBufferPointer { buf -> Int in
            let n = Int(soundtouch_receiveSamples(handle, buf.baseAddress, UInt32(maxCount)))
            if channels == 2 {
                let l = planes[0], r = planes[1]
                for i in 0..<n {
                    l[i] = buf[2 * i]
                    r[i] = buf[2 * i + 1]
                }
            } else {
                for c in 0..<channels {
                    let p = planes[c]
                    var j = c
                    for i in 0..<n {
                        p[i] = buf[j]
                        j += channels
                    }
                }
            }
            return n
        }
    }
}
