import SlomoCore

/// The engine for each algorithm: the chokepoint where `TimePitchAlgorithm` meets the C libraries.
public enum TimePitchEngines {
    /// A fresh engine for `algorithm` at `rate` (already validated and, for zero-latency, snapped).
    /// Rate 1 is handled by the renderer (pass-through) and mute needs no engine.
    public static func make(_ algorithm: TimePitchAlgorithm, rate: Rational, sampleRate: Int, channels: Int) throws -> any StretchEngine {
        switch algorithm {
        case .spectral: return try RubberBandStretcher(rate: rate, sampleRate: sampleRate, channels: channels)
        case .timeDomain: return try SoundTouchStretcher(rate: rate, sampleRate: sampleRate, channels: channels)
        case .varispeed: return try VarispeedStretcher(rate: rate, sampleRate: sampleRate, channels: channels)
        case .zeroLatency: return ShortGrainWSOLA(rate: rate, sampleRate: sampleRate, channels: channels)
        case .mute: return PassThroughEngine(channels: channels)  // never fed: the renderer writes silence
        }
    }

    /// A renderer of `source` through `plan` with this module's engines.
    public static func renderer(plan: AudioRenderPlan, source: any AudioSampleSource) -> AudioRenderer {
        let sr = plan.sampleRate, ch = source.channels, alg = plan.algorithm
        return AudioRenderer(plan: plan, source: source) { rate in try make(alg, rate: rate, sampleRate: sr, channels: ch) }
    }
}
