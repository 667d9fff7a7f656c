import Foundation
import SlomoCore

/// Makes a capture's report from what its parts counted: the producer's statistics and clock
/// mending, how the session ended, the ring, the source's own parts (transport, controls), the
/// preview, the sound and the files' syncs. Made by the session once the camera has stopped.
struct CaptureReportMaker {
    let source: CaptureSource
    let producer: CaptureThread
    let end: SessionEnd
    let plan: RingPlan
    /// `--no-sync` not given: the report says how the files were forced to disk.
    let sync: Bool
    let preview: CapturePreview?
    let audio: AudioCapture?
    let written: WrittenTotals

    func report(
        output: String, framesWritten: Int64, bytesWritten: Int64, ring: FrameRing, backlog: Int64,
        catchUp: Rational, shortFrames: Int64
    ) -> CaptureReport {
        var s = producer.stats
        let (reason, message) = end.outcome, note = end.threadNote
        s.shortFrames += shortFrames
        producer.reported = s
        let nominal = source.format.frameDuration.flatMap { try? $0.reciprocal() }
        var warnings: [String] = []
        if let nominal, let achieved = s.achievedFrameRate, achieved * Rational(100) < nominal * Rational(99) {
            let cause =
                s.droppedByDriver > 0
                ? "the driver dropped \(s.droppedByDriver) frames (sequence gaps: no buffer was queued, or the sensor could not keep up)"
                : s.droppedBySlomo > 0
                    ? "slomo's ring was full \(s.droppedBySlomo) times (the writer fell behind: a faster --codec or preset, or a larger --ring-memory)"
                    : "no frame was lost: the camera itself delivered fewer (exposure longer than the frame period, or its clock)"
            warnings.append("achieved \(Seconds(achieved)) fps is more than 1 % below the mode's \(Seconds(nominal)) fps: \(cause)")
        }
        warnings += producer.continuity.warnings
        if s.driverErrors > 0 { warnings.append(s.damageWords) }
        if s.shortFrames > 0 { warnings.append("\(s.shortFrames) frames shorter than their format (bytesused) were not stored") }
        if let clock = source.timestampClock, clock.clock != .monotonic {
            warnings.append("timestamps are \(clock), not CLOCK_MONOTONIC: times in the file are the driver's")
        }
        var report = CaptureReport(
            output: output, device: source.name, format: source.format, nominalFrameRate: nominal,
            achievedFrameRate: s.achievedFrameRate, achievedFps: s.achievedFrameRate.map { ($0.doubleValue * 1000).rounded() / 1000 },
            framesCaptured: s.framesCaptured, framesWritten: framesWritten, droppedByDriver: s.droppedByDriver,
            droppedBySlomo: s.droppedBySlomo, repeatedSequence: s.repeatedSequence, driverErrors: s.driverErrors,
            shortFrames: s.shortFrames, duration: s.duration,
            durationSeconds: (s.duration.doubleValue * 1e6).rounded() / 1e6, intervals: s.intervals,
            stopReason: reason, message: message, bytesWritten: bytesWritten, timestampClock: source.timestampClock?.description ?? "unknown (no frame)",
            driverAdjustments: source.adjustments,
            ring: RingReport(
                slots: plan.slots, slotBytes: plan.slotBytes, bytes: plan.bytes,
                mebibytes: plan.mebibytes, locked: ring.locked, note: ring.lockNote),
            captureThread: note, writerThreads: written.writerThreads, writerBacklogMax: backlog, catchUpSeconds: (catchUp.doubleValue * 1000).rounded() / 1000,
            warnings: warnings)
        report.firstFrameTime = s.firstTimestamp
        report.firstFrameWallTime = s.firstTimestamp.map { CaptureClock.iso8601Micros(CaptureClock.wallTime(ofMonotonic: $0)) }
        addSourceParts(&report)
        // the camera has stopped: so does the preview (its stream is finished)
        report.preview = preview?.stop()
        if let e = report.preview?.error { report.warnings.append("the preview stopped: \(e) (the recording went on)") }
        report.audio = audioReport()
        syncReport(&report)
        return report
    }

    /// What the source says of itself: the transport's statistics (GenICam) and the controls as
    /// they read back, with their warnings.
    func addSourceParts(_ report: inout CaptureReport) {
        if let t = source.transportReport() {
            report.transport = t
            if let cap = t.socketBufferCap, let asked = t.socketBufferBytes, cap < asked {
                report.warnings.append(
                    "the receive socket buffer is capped at \(cap) bytes by net.core.rmem_max (asked \(asked)): raise it (sysctl -w net.core.rmem_max=\(asked)) if packets go missing"
                )
            }
            if !t.missingFrameIds.isEmpty {
                let shown = t.missingFrameIds.prefix(8).map { $0[0] == $0[1] ? "\($0[0])" : "\($0[0])-\($0[1])" }.joined(separator: ", ")
                report.warnings.append(
                    "the camera numbered frames slomo never received: ids \(shown)\(t.missingFrameIds.count > 8 ? "…" : "") (transport.missingFrameIds)")
            }
        }
        let controls = source.cameraControls()
        if !controls.isEmpty {
            report.controls = controls
            for c in controls { if let w = c.driftWarning { report.warnings.append(w) } }
        }
    }

    /// The recordings' `fdatasync`s for the report (nil with `--no-sync`); a refusal is a warning.
    func syncReport(_ report: inout CaptureReport) {
        guard sync else { return }
        report.fileSyncs = written.syncs
        if let why = written.syncs.refused {
            report.warnings.append("\(report.output): \(why): the recording was not forced to disk (a power cut may lose more than the last second)")
        }
    }

    /// The sound's part of the report.
    func audioReport() -> AudioReport? {
        guard let a = audio else { return nil }
        let clock = a.clockNow
        return AudioReport(
            device: a.settings.device, sampleRate: a.rate, channels: a.channels,
            codec: written.audioCodec, measuredRate: clock.rate,
            ppm: (clock.ppm * 10).rounded() / 10, framesWritten: written.audioFrames,
            overruns: a.overruns, framesLost: a.framesLost, driftCorrectionFrames: written.audioCorrection,
            timestampPairs: clock.pairs, adjustments: a.pcm.adjustments + (a.failure.map { ["the sound card failed: \($0)"] } ?? []))
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
    func triggered(
        _ t: TriggerSettings, output: String, ring: FrameRing, shots: [ShotReport], framesWritten: Int64, bytesWritten: Int64,
        placer: ShotPlacer
    ) -> CaptureReport {
        var report = self.report(
            output: output, framesWritten: framesWritten, bytesWritten: bytesWritten, ring: ring,
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
