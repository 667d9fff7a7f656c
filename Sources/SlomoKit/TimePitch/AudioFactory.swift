import SlomoCore
import SlomoTimePitch

/// Connects the time-pitch engine to retime, export and play.
public enum TimePitchSetup {
    public static func install() { Retimer.audioFactory = factory }

    static func factory(_ path: String, _ stream: Int, _ map: RetimeMap, _ pitch: String, _ origin: Rational) throws -> (any RetimedAudio)? {
            guard let algorithm = PitchAlgorithm(rawValue: pitch) else {
                throw SimpleFailure("--pitch '\(pitch)': expected \(PitchAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))", .usage)
            }
            do {
                return try RetimedAudioSource(path: path, streamIndex: stream, map: map, algorithm: algorithm, sourceOrigin: origin)
            } catch let e as SimpleFailure where e.exitStatus == .usage {
                throw SimpleFailure("\(path): audio: \(e.description)", .usage)
            }
    }
}
