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
        if let takes {
            saver.partialNames = true
            saveTakes(t, takes, saver: saver, firstWriter: firstWriter)
        } else {
            saver.run(t, firstWriter: firstWriter, feed: saver.ringFeed)
        }
        let saved = saver.saved
        captureDone.wait()
        shots.drainAfterTriggers()
        if let e = end.startFailure { throw e }
        var report = reports.triggered(
            t, output: settings.output, ring: ring, shots: saved, framesWritten: saver.framesWritten, bytesWritten: saver.bytesWritten, placer: placer)
        if let takes {
            let frames = FrameFiles.shotFrames(ringPlan, format: source.format)
            report.takes = takes.report(framesEach: frames, bytesEach: Int64(frames) * Int64(takes.partitions.first?.slotBytes ?? 0))
        }
        // each shot's file gets its own report beside it: the capture's, narrowed to that shot
        for shot in saved { written.writeSidecar(CaptureReportMaker.shotReport(report, shot), for: [shot.output]) }
        if let failure = saver.failure {
            throw CaptureSession.stopped(
                TriggerSettings.path(settings.output, shot: shotNumber(saved.count + 1)), frames: 0, failure, report: written.reportNote)
        }
        return report
    }

    /// Shots held in RAM: this thread copies each shot into its take (`TakeCopier`) while the saver
    /// writes the held takes on its own thread, below the camera's and the trigger's, in the order
    /// the save mode asks; the capture ends once every take is saved.
    private func saveTakes(_ t: TriggerSettings, _ takes: TakeStore, saver: ShotSaver, firstWriter: any FrameFile) {
        let done = DispatchSemaphore(value: 0)
        // the first shot's writer goes to the saver's thread and is used there only
        struct Handed: @unchecked Sendable { let writer: any FrameFile }
        let first = Handed(writer: firstWriter)
        let thread = Thread { [end] in
            CurrentProcess.nameThread("slomo-saver")
            _ = ThreadPriority.lower()
            saver.run(
                t, firstWriter: first.writer,
                feed: ShotSaver.Feed(next: { takes.nextToSave()?.shot }, done: { s in s.take.map(takes.saved) }, fromRing: false))
            if saver.failure != nil {
                takes.stop()
                end.request(.writeError)
            }
            done.signal()
        }
        thread.name = "slomo-saver"
        thread.start()
        TakeCopier(context: stageContext, store: takes).run(t)
        // the operator hears why the process has not ended yet
        let states = takes.states
        if states.contains(where: { $0 == .held || $0 == .saving }) { hooks.onEvent?(.stoppedSaving(camera: source.name, takes: states)) }
        done.wait()
    }
}
