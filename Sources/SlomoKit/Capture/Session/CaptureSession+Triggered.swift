import Foundation
import SlomoCore
import SlomoSystem

/// Pre/post-trigger recording: triggers pick shots out of the ring; each is saved as it completes.
extension CaptureSession {
    struct Shot {
        var number: Int
        /// Holds the shot's frames from `start` on until it is saved.
        var reader: RingReader
        var start: Int64
        var triggerIndex: Int64
        var end: Int64  // last frame index wanted
        var eventTime: Rational
        var wallTime: Rational
        /// What fired it (`TriggerKind.name`: the session's own kind, or the event's source).
        var source: String
        var latency: Rational?
        var score: Double?
        /// Frames before `start + leadIn` kept only so the first pre-trigger frame decodes (H.264/HEVC).
        var leadIn: Int64 = 0
        var warning: String?
        /// When slomo decided the shot (CLOCK_MONOTONIC).
        var decided = Rational.zero
        /// `--trigger-out`: when the line went high.
        var output: TriggerOutputReport?
        /// The trigger frame's timestamp as the ring held it when the shot was decided.
        var frameTime = Rational.zero
    }

    func runTriggered(
        _ t: TriggerSettings, ring: FrameRing, firstWriter: RecordingWriter,
        captureDone: DispatchSemaphore, placer: ShotPlacer
    ) throws -> CaptureReport {

        let saver = ShotSaver(settings: settings, context: placer.context, audio: audioCapture, finished: audioWritten)
        saver.run(t, ring: ring, firstWriter: firstWriter)
        let saved = saver.saved
        captureDone.wait()
        shots.drainAfterTriggers()
        if let e = end.startFailure { throw e }
        let report = triggeredReport(t, ring: ring, shots: saved, framesWritten: saver.framesWritten, bytesWritten: saver.bytesWritten, placer: placer)
        // each shot's file gets its own report beside it: the capture's, narrowed to that shot
        for shot in saved { written.writeSidecar(Self.shotReport(report, shot), for: [shot.output]) }
        if let failure = saver.failure {
            throw CaptureSession.stopped(
                TriggerSettings.path(settings.output, shot: shotNumber(saved.count + 1)), frames: 0, failure, report: written.reportNote)
        }
        return report
    }

    /// The report beside shot `shot`'s file: the capture's (camera, ring, drops, trigger), with
    /// that shot's file, frames and bytes, and that shot alone in `shots`.
    static func shotReport(_ report: CaptureReport, _ shot: ShotReport) -> CaptureReport {
        var r = report
        r.output = shot.output
        r.framesWritten = shot.framesWritten
        r.bytesWritten = shot.bytesWritten
        r.shots = [shot]
        return r
    }

    /// The report of a triggered capture: its shots, the trigger, and the image trigger's costs.
    func triggeredReport(
        _ t: TriggerSettings, ring: FrameRing, shots: [ShotReport], framesWritten: Int64, bytesWritten: Int64,
        placer: ShotPlacer
    ) -> CaptureReport {
        var report = makeReport(
            output: settings.output, framesWritten: framesWritten, bytesWritten: bytesWritten, ring: ring,
            backlog: 0, catchUp: .zero, shortFrames: 0)
        report.trigger = t.kind.name
        report.shots = shots
        if case .motion = t.kind {
            let motion = placer.motion
            report.motionFramesEvaluated = motion.evaluated
            report.motionFramesSkipped = motion.skipped
            report.motionCpuMicrosPerFrame = motion.evaluated > 0 ? (motion.cpu / Double(motion.evaluated) * 1e7).rounded() / 10 : nil
        }
        if shots.isEmpty { report.warnings.append("no trigger arrived: nothing was saved") }
        if let w = placer.sources?.output?.warning { report.warnings.append(w) }
        return report
    }
}
