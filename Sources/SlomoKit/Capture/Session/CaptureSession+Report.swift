import Foundation
import SlomoCore

/// The capture report and its side file.
extension CaptureSession {

    func makeReport(
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
                slots: ringPlan.slots, slotBytes: ringPlan.slotBytes, bytes: ringPlan.bytes,
                mebibytes: ringPlan.mebibytes, locked: ring.locked, note: ring.lockNote),
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
        guard settings.sync else { return }
        report.fileSyncs = written.syncs
        if let why = written.syncs.refused {
            report.warnings.append("\(report.output): \(why): the recording was not forced to disk (a power cut may lose more than the last second)")
        }
    }

    /// Counts a finished recording's sound and file syncs for the report.
    func audioWritten(_ w: RecordingWriter) {
        written.syncs.add(w.syncs)
        written.audioFrames += w.audioFramesWritten
        written.audioCorrection += w.capturedAudio?.correction ?? 0
        written.audioCodec = w.audioCodec
    }

    /// The sound's part of the report.
    func audioReport() -> AudioReport? {
        guard let a = audioCapture else { return nil }
        let clock = a.clockNow
        return AudioReport(
            device: a.settings.device, sampleRate: a.rate, channels: a.channels,
            codec: written.audioCodec, measuredRate: clock.rate,
            ppm: (clock.ppm * 10).rounded() / 10, framesWritten: written.audioFrames,
            overruns: a.overruns, framesLost: a.framesLost, driftCorrectionFrames: written.audioCorrection,
            timestampPairs: clock.pairs, adjustments: a.pcm.adjustments + (a.failure.map { ["the sound card failed: \($0)"] } ?? []))
    }
}

/// What a session's finished recordings wrote beside their video, for the report.
struct WrittenTotals {
    var audioFrames: Int64 = 0, audioCorrection: Int64 = 0
    var audioCodec = "pcm_s16le"
    var syncs = FileSyncs()
    var reportNote: String?
    var reportLost = false
    /// The priority the writer and encoder threads run at, as the report says it.
    var writerThreads = "normal"

    /// `OUTPUT.capture.json`: the report, written atomically at the end. Its absence next to a
    /// recording means the capture did not end cleanly (the recording is still playable). Where it
    /// cannot be written (no space, read-only), it goes to the temporary directory and `reportNote`
    /// says where; it never hides the recording's own outcome. Encoded once for all `outputs` (a
    /// triggered capture's shots each get the whole report).
    mutating func writeSidecar(_ report: CaptureReport, for outputs: [String]) {
        guard !outputs.isEmpty else { return }
        guard let data = try? JSONSchema.document(report) else {
            reportNote = "\(outputs.first ?? report.output).capture.json: the report could not be encoded"; reportLost = true; return
        }
        for output in outputs { writeSidecar(data, path: output + ".capture.json") }
    }

    private mutating func writeSidecar(_ data: Data, path: String) {
        do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            let why = OutputFile.reason(error)
            let dir = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            let fallback = dir + "/" + URL(fileURLWithPath: path).lastPathComponent
            if (try? data.write(to: URL(fileURLWithPath: fallback), options: .atomic)) != nil {
                reportNote = "report not written beside it (\(why)): it is in \(fallback)"
            } else {
                reportNote = "report not written (\(why)), nor in \(dir)"
                reportLost = true
            }
        }
    }
}
