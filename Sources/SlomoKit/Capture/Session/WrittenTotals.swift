import Foundation
import SlomoCore

/// What a session's finished recordings wrote beside their video, for the report. One thread at a
/// time adds to it: the one writing (the session's, or the takes' saver thread, joined before the
/// session reads it).
final class WrittenTotals: @unchecked Sendable {
    var audioFrames: Int64 = 0, audioCorrection: Int64 = 0
    var audioCodec = "pcm_s16le"
    var syncs = FileSyncs()
    var reportNote: String?
    var reportLost = false
    /// The priority the writer and encoder threads run at, as the report says it.
    var writerThreads = "normal"

    /// The writer (the calling thread) and the encoder threads it starts run below the camera's
    /// thread where that is safe, and the report says at what: a continuous recorder catches up
    /// from the ring (measured on vivid: Docs/Capture.md); a takes' saver (nice 10, on its own
    /// thread) reads RAM the camera no longer needs; a shot saver reading the ring keeps normal
    /// priority, since its shot is pinned there (a starved saver held it for seconds: the camera's
    /// new frames dropped, the next triggers waited).
    func setWriterPriority(realtime: Bool, triggered: Bool, takes: Bool) {
        if realtime && !triggered {
            writerThreads = ThreadPriority.lower()
        } else if takes {
            writerThreads = "nice 10 (the saver reads the takes in RAM, not the camera's ring)"
        } else if triggered {
            writerThreads = "normal (shot saver: its frames are pinned in the ring)"
        }
    }

    /// Counts a finished recording's sound and file syncs.
    func add(_ w: any FrameFile) {
        syncs.add(w.syncs)
        audioFrames += w.audioFramesWritten
        audioCorrection += w.capturedAudio?.correction ?? 0
        audioCodec = w.audioCodec
    }

    /// `OUTPUT.capture.json`: the report, written atomically at the end. Its absence next to a
    /// recording means the capture did not end cleanly (the recording is still playable). Where it
    /// cannot be written (no space, read-only), it goes to the temporary directory and `reportNote`
    /// says where; it never hides the recording's own outcome. Encoded once for all `outputs` (a
    /// triggered capture's shots each get the whole report).
    func writeSidecar(_ report: CaptureReport, for outputs: [String]) {
        guard !outputs.isEmpty else { return }
        guard let data = try? JSONSchema.document(report) else {
            reportNote = "\(outputs.first ?? report.output).capture.json: the report could not be encoded"
            reportLost = true
            return
        }
        // a directory's (`frames/`) beside it: frames.capture.json
        for output in outputs { writeSidecar(data, path: (output.hasSuffix("/") ? String(output.dropLast()) : output) + ".capture.json") }
    }

    private func writeSidecar(_ data: Data, path: String) {
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
