import Foundation
import SlomoCore
import SlomoAudio

/// What a job would make, found without making it (`slomo batch --dry-run`): its input opened and
/// measured, its speeds resolved against it. A missing or unusable input, a segment past the end,
/// a rate its pitch algorithm cannot play: refused here, as the job itself would refuse them.
public struct JobPlan: Codable, Sendable, Equatable {
    /// The input's duration (video for export and retime, the audio stream for stretch).
    public var sourceDuration: Rational
    /// The output's duration after the speed map.
    public var outputDuration: Rational
    /// Export: output frames at the job's frame rate.
    public var outputFrames: Int64?

    /// The plan of `job`, or the error the job would stop with.
    public static func of(_ job: BatchJob) throws -> JobPlan {
        let run = try JobRun(job: job)
        switch job.command {
        case .export, .retime:
            let timeline = try MediaTimeline(path: job.input)
            let (map, _) = try timeline.resolve(
                run.spec, fromOriginal: true, pitch: job.pitch ?? TimePitchAlgorithm.spectral.rawValue,
                audio: !job.noAudio, realTime: run.realTime || job.realTime)
            var plan = JobPlan(sourceDuration: timeline.duration, outputDuration: map.target.duration)
            let p = try job.parsedOptions()
            if job.command == .export {
                if let window = try p.trim.window(timeline: timeline, map: map) { plan.outputDuration = window.target.duration }
                plan.outputFrames = (plan.outputDuration * (p.fps ?? Rational(30))).ceiling
            } else {
                // a copy's window is whole frames from a keyframe: refused here as the job would refuse it
                let format = try ContainerFormat.forOutput(job.output, webm: true)
                if let window = try CopyWindow.make(timeline, trim: p.trim, map: map, container: format) {
                    plan.outputDuration = window.target.duration
                }
            }
            return plan
        case .stretch:
            try MediaInput.checkInput(job.input)
            let wav = AudioFiles.wav(path: job.input, streamIndex: nil, origin: .zero)
            let duration = try wav.map { Rational($0.frames, Int64($0.sampleRate)) } ?? AudioStretch.measure(job.input, stream: nil).duration
            let map: RetimeMap
            do { map = try run.spec.resolve(duration: duration, frameRate: nil) } catch { throw FileRetimeError(job.input, error) }
            return JobPlan(sourceDuration: duration, outputDuration: map.target.duration)
        }
    }
}
