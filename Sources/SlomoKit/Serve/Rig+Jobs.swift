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
        guard (s.firstFrame...s.lastFrame).contains(from) else { throw .badField("from", "shot \(id) has frames \(s.firstFrame)...\(s.lastFrame), not \(from)") }
        guard (s.firstFrame...s.lastFrame).contains(to) else { throw .badField("to", "shot \(id) has frames \(s.firstFrame)...\(s.lastFrame), not \(to)") }
        guard from <= to else { throw .badField("to", "must be at or after from (\(from))") }
        let rate = ask.rate ?? Rational(1, 4)
        guard rate.isPositive, rate <= Rational(16) else { throw .badField("rate", "must be > 0 and at most 16") }
        let pitch = ask.pitch ?? "spectral"
        guard TimePitchAlgorithm(rawValue: pitch) != nil else {
            throw .badField("pitch", "expected \(TimePitchAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let fps = ask.fps ?? Rational(30)
        guard fps.isPositive, fps <= Rational(1000) else { throw .badField("fps", "must be > 0 and at most 1000") }
        let codec = ask.codec ?? "libx264"
        let ext = Self.container(forEncoder: codec)
        do throws(SettingError) {
            try VideoCodecChoice.check(codec: codec, preset: nil, crf: nil, container: ext == "mkv" ? "matroska" : ext)
        } catch { throw .badField(error.setting.name, "\(error.reason)") }
        var r = ExportRequest(input: s.report.output, output: "", spec: RetimeSpec(rate: rate))
        r.frameRate = fps
        r.pitch = pitch
        r.codec = codec
        r.trim = SourceTrim(start: .frame(Int64(from + s.report.triggerFrame)), end: to < s.lastFrame ? .frame(Int64(to + 1 + s.report.triggerFrame)) : nil)
        let frames: Int64
        do { frames = try Exporter.plannedFrames(r) } catch {
            throw RigRefusal(.conflict, "shot \(id) cannot be exported: \(exports.redacted("\(error)"))")
        }
        if frames > config.maxExportFrames {
            let length = Seconds(Rational(frames) / fps, decimals: 0)
            throw RigRefusal(.badRequest, "the export would be \(frames) frames (\(length) s at \(fps) fps), over this server's limit of \(config.maxExportFrames) (serve --max-export-frames): export fewer frames or at a faster rate", field: "rate")
        }
        let template = RigJob(id: 0, shot: id, state: .queued, progress: 0, file: "", from: from, to: to, rate: rate, pitch: pitch, fps: fps)
        return exports.add(template, ext: ext) { path in var e = r; e.output = path; return e }
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
