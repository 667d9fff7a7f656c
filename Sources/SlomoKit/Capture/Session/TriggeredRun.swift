import Foundation
import SlomoCore
import SlomoSystem

/// Pre/post-trigger recording, once the camera streams: the placer (already started) picks shots
/// out of the ring; the shot saver writes each as it completes, straight from the ring, or, with
/// takes held in RAM, from the takes on a thread of its own while the take copier fills them. The
/// session makes one per run; it owns nothing the session keeps.
struct TriggeredRun {
    let trigger: TriggerSettings
    let settings: RecordingSettings
    let context: StageContext
    let audio: AudioCapture?
    let written: WrittenTotals
    let reports: CaptureReportMaker
    /// SIGINT/SIGTERM: once the camera stopped, one more abandons the held shots not yet saved.
    let interrupt: StopToken

    func run(ring: FrameRing, firstWriter: any FrameFile, captureDone: DispatchSemaphore, placer: ShotPlacer) throws -> CaptureReport {
        let t = trigger, written = written
        let saver = ShotSaver(settings: settings, context: context, audio: audio, finished: { written.add($0) })
        if let takes = context.takes {
            saver.partialNames = true
            saver.abandoned = { takes.isAbandoned }
            saver.keep = { shot in shot.take.map(takes.keep) ?? true }
            saveTakes(takes, saver: saver, firstWriter: firstWriter)
        } else {
            saver.run(t, firstWriter: firstWriter, feed: saver.ringFeed)
        }
        let saved = saver.saved
        captureDone.wait()
        context.shots.drainAfterTriggers()
        if let e = context.end.startFailure { throw e }
        var report = reports.triggered(
            t, output: settings.output, ring: ring, shots: saved, framesWritten: saver.framesWritten, bytesWritten: saver.bytesWritten, placer: placer)
        report.takes = context.takes?.report(framesEach: context.shotFrames)
        // each shot's file gets its own report beside it: the capture's, narrowed to that shot
        for shot in saved { written.writeSidecar(CaptureReportMaker.shotReport(report, shot), for: [shot.output]) }
        if let failure = saver.failure {
            throw CaptureSession.stopped(
                TriggerSettings.path(settings.output, shot: context.number(saved.count + 1)), frames: 0, failure, report: written.reportNote)
        }
        return report
    }

    /// Shots held in RAM: this thread copies each shot into its take (`TakeCopier`) while the saver
    /// writes the held takes on its own thread, below the camera's and the trigger's, in the order
    /// the save mode asks; the capture ends once every take is saved.
    private func saveTakes(_ takes: TakeStore, saver: ShotSaver, firstWriter: any FrameFile) {
        let done = DispatchSemaphore(value: 0)
        // the first shot's writer goes to the saver's thread and is used there only
        struct Handed: @unchecked Sendable { let writer: any FrameFile }
        let first = Handed(writer: firstWriter), t = trigger
        let thread = Thread { [end = context.end] in
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
        TakeCopier(context: context, store: takes).run(t)
        // the operator hears why the process has not ended yet, and how to end it sooner
        let states = takes.states, interrupts = interrupt.count
        if states.contains(where: { $0 == .held || $0 == .saving }) {
            context.hooks.onEvent?(.stoppedSaving(camera: context.source.name, takes: states))
        }
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            guard interrupt.count > interrupts, !takes.isAbandoned else { continue }
            let given = takes.abandon()
            if !given.isEmpty { context.hooks.onEvent?(.abandoned(camera: context.source.name, shots: given)) }
        }
    }
}
