import Foundation
import SlomoCore
import SlomoFFmpeg

/// A shot's export as the server checks it before queuing it (`POST /api/v1/shots/{id}/export`):
/// the frames `from`...`to` (from the trigger frame) within the shot, the job's options through
/// `JobRun` (in the words `slomo export` uses), the pitch, the encoder in its container, at most
/// 16× slower, and the output's frame count against the server's limit.
struct ShotExport {
    var request: ExportRequest
    /// The job as it is listed before it runs (its number and file are the queue's).
    var job: RigJob
    /// The container: `mp4`, `mov` or `mkv`.
    var ext: String

    /// `redacted`: an error's text without the server's paths.
    init(shot s: RigShot, _ ask: RigExportAsk, maxFrames: Int64, redacted: (String) -> String) throws(RigRefusal) {
        let id = s.id
        let from = ask.from ?? s.firstFrame, to = ask.to ?? s.lastFrame
        guard s.lastFrame >= s.firstFrame else { throw RigRefusal(.conflict, "shot \(id) has no frame to export") }
        guard (s.firstFrame...s.lastFrame).contains(from) else {
            throw .badField("from", "shot \(id) has frames \(s.firstFrame)...\(s.lastFrame), not \(from)")
        }
        guard (s.firstFrame...s.lastFrame).contains(to) else { throw .badField("to", "shot \(id) has frames \(s.firstFrame)...\(s.lastFrame), not \(to)") }
        guard from <= to else { throw .badField("to", "must be at or after from (\(from))") }
        var job = ask.job
        job.input = s.report.output
        var r: ExportRequest
        do { r = try JobRun(job: job).exportRequest() } catch let e as SettingError {
            throw RigRefusal(.badRequest, e.wording, field: e.setting.name)
        } catch { throw RigRefusal(.badRequest, "\(error)") }
        guard TimePitchAlgorithm(rawValue: r.pitch) != nil else {
            throw .badField("pitch", "'\(r.pitch)': expected \(TimePitchAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        ext = Self.container(forEncoder: r.codec ?? "libx264")
        do throws(SettingError) {
            try VideoCodecChoice.check(codec: r.codec, preset: r.preset, crf: r.crf, container: ext == "mkv" ? "matroska" : ext)
            try r.delivery.checkPixelFormat(encoder: r.codec ?? "libx264")
        } catch { throw RigRefusal(.badRequest, error.wording, field: error.setting.name) }
        guard r.spec.segments.allSatisfy({ $0.rate <= Rational(16) }), r.spec.rate <= Rational(16) else { throw .badField("rate", "at most 16") }
        r.trim = SourceTrim(start: .frame(Int64(from + s.report.triggerFrame)), end: to < s.lastFrame ? .frame(Int64(to + 1 + s.report.triggerFrame)) : nil)
        let fps = r.frameRate
        let frames: Int64
        do { frames = try Exporter.plannedFrames(r) } catch {
            throw RigRefusal(.conflict, "shot \(id) cannot be exported: \(redacted("\(error)"))")
        }
        if frames > maxFrames {
            let length = Seconds(Rational(frames) / fps, decimals: 0)
            throw RigRefusal(
                .badRequest,
                "the export would be \(frames) frames (\(length) s at \(fps) fps), over this server's limit of \(maxFrames) (serve --max-export-frames): export fewer frames or at a faster rate",
                field: "rate")
        }
        request = r
        self.job = RigJob(id: 0, shot: id, state: .queued, progress: 0, file: "", from: from, to: to, rate: r.spec.rate, pitch: r.pitch, fps: fps)
        self.job.camera = s.camera
    }

    /// The container a shot's export goes in: MP4 where it holds the encoder's codec, else MOV
    /// (ProRes), else Matroska.
    static func container(forEncoder encoder: String) -> String {
        guard let codec = Encoder.codecName(ofEncoder: encoder) else { return "mp4" }
        for (format, ext) in [("mp4", "mp4"), ("mov", "mov")] where (try? Muxer(path: "/dev/null", formatName: format).accepts(codecName: codec)) == true {
            return ext
        }
        return "mkv"
    }
}
