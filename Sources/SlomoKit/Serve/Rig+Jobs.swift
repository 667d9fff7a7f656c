import Foundation
import SlomoCore
import SlomoFFmpeg

/// Exports of a rig's shots, run one after another as jobs (`POST /api/v1/shots/{id}/export`),
/// each cancellable (`DELETE /api/v1/jobs/{id}`), none larger than the server's limit.
extension Rig {
    /// Starts an export of shot `id`'s frames `from`...`to` (from the trigger frame) as a job.
    /// Checked before it is queued: the frames, rate, pitch, frame rate and encoder (in the
    /// words `slomo export` uses), and the output's frame count against `config.maxExportFrames`.
    public func export(shot id: Int, _ ask: RigExportAsk) throws(RigRefusal) -> RigJob {
        let s = try shot(id)
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
            throw RigRefusal(.badRequest, "\(e.wording)", field: e.setting.name)
        } catch { throw RigRefusal(.badRequest, "\(error)") }
        guard TimePitchAlgorithm(rawValue: r.pitch) != nil else {
            throw .badField("pitch", "'\(r.pitch)': expected \(TimePitchAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let ext = Self.container(forEncoder: r.codec ?? "libx264")
        do throws(SettingError) {
            try VideoCodecChoice.check(codec: r.codec, preset: r.preset, crf: r.crf, container: ext == "mkv" ? "matroska" : ext)
            try r.delivery.checkPixelFormat(encoder: r.codec ?? "libx264")
        } catch { throw RigRefusal(.badRequest, "\(error.wording)", field: error.setting.name) }
        guard r.spec.segments.allSatisfy({ $0.rate <= Rational(16) }), r.spec.rate <= Rational(16) else { throw .badField("rate", "at most 16") }
        r.trim = SourceTrim(start: .frame(Int64(from + s.report.triggerFrame)), end: to < s.lastFrame ? .frame(Int64(to + 1 + s.report.triggerFrame)) : nil)
        let fps = r.frameRate
        let frames: Int64
        do { frames = try Exporter.plannedFrames(r) } catch {
            throw RigRefusal(.conflict, "shot \(id) cannot be exported: \(exports.redacted("\(error)"))")
        }
        if frames > config.maxExportFrames {
            let length = Seconds(Rational(frames) / fps, decimals: 0)
            throw RigRefusal(
                .badRequest,
                "the export would be \(frames) frames (\(length) s at \(fps) fps), over this server's limit of \(config.maxExportFrames) (serve --max-export-frames): export fewer frames or at a faster rate",
                field: "rate")
        }
        let template = RigJob(id: 0, shot: id, state: .queued, progress: 0, file: "", from: from, to: to, rate: r.spec.rate, pitch: r.pitch, fps: fps)
        return exports.add(template, ext: ext) { path in
            var e = r; e.output = path; return e
        }
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

    public func job(_ id: Int) throws(RigRefusal) -> RigJob { try exports.job(id) }

    public func allJobs() -> [RigJob] { exports.all }

    /// `DELETE /api/v1/jobs/{id}`: a queued job never runs, a running one stops after its frame
    /// (its partial file removed); a finished one is refused.
    public func cancelJob(_ id: Int) throws(RigRefusal) -> RigJob { try exports.cancel(id) }

    /// Cancels every export not finished (the server stopping); the numbers of those cancelled.
    public func cancelAllJobs() -> [Int] { exports.cancelAll() }

    /// A finished job's file.
    public func jobPath(_ id: Int) throws(RigRefusal) -> String { try exports.filePath(id) }
}
