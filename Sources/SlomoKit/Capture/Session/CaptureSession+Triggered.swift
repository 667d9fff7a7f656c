import Foundation
import SlomoCore
import SlomoSystem

/// Pre/post-trigger recording: triggers pick shots out of the ring; each is saved as it completes.
extension CaptureSession {
    func runTriggered(
        _ t: TriggerSettings, ring: FrameRing, firstWriter: any FrameFile,
        captureDone: DispatchSemaphore, placer: ShotPlacer
    ) throws -> CaptureReport {

        let saver = ShotSaver(settings: settings, context: placer.context, audio: audioCapture, finished: { [self] in written.add($0) })
        saver.run(t, ring: ring, firstWriter: firstWriter)
        let saved = saver.saved
        captureDone.wait()
        shots.drainAfterTriggers()
        if let e = end.startFailure { throw e }
        let report = reports.triggered(
            t, output: settings.output, ring: ring, shots: saved, framesWritten: saver.framesWritten, bytesWritten: saver.bytesWritten, placer: placer)
        // each shot's file gets its own report beside it: the capture's, narrowed to that shot
        for shot in saved { written.writeSidecar(CaptureReportMaker.shotReport(report, shot), for: [shot.output]) }
        if let failure = saver.failure {
            throw CaptureSession.stopped(
                TriggerSettings.path(settings.output, shot: shotNumber(saved.count + 1)), frames: 0, failure, report: written.reportNote)
        }
        return report
    }
}
