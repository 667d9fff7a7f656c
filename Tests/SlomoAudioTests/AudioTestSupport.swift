import Foundation
import SlomoAudio
import SlomoCore
import SlomoTestSupport
import Testing

/// Renders in-memory planar audio through `map` with the real engines.
func render(
    _ input: [[Float]], map: RetimeMap, algorithm: TimePitchAlgorithm, sampleRate: Int,
    block: Int = 3000
) throws -> (output: [[Float]], plan: AudioRenderPlan, latency: Int) {
    let plan = try AudioRenderPlan(map: map, sampleRate: sampleRate, algorithm: algorithm)
    let r = TimePitchEngines.renderer(plan: plan, source: ArrayAudioSource(input))
    var out = Array(repeating: [Float](), count: input.count)
    while let b = try r.read(maxFrames: block) {
        #expect(b[0].count <= block)
        for c in out.indices { out[c] += b[c] }
    }
    return (out, plan, r.latencyFrames)
}
