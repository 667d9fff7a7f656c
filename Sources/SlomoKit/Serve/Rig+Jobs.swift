import Foundation
import SlomoCore

/// Exports of a rig's shots, run one after another as jobs (`POST /api/v1/shots/{id}/export`).
extension Rig {
    /// Starts an export of shot `id`'s frames `from`...`to` (from the trigger frame) as a job.
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
        guard ["libx264", "libx265", "mpeg4", "mjpeg", "ffv1"].contains(codec) else { throw .badField("codec", "expected libx264, libx265, mpeg4, mjpeg or ffv1") }
        lock.lock()
        let n = nextJob
        nextJob += 1
        let ext = codec == "ffv1" ? "mkv" : "mp4"
        let name = String(format: "shot%04d-export%d.%@", id, n, ext)
        let job = RigJob(id: n, shot: id, state: .queued, progress: 0, file: name, from: from, to: to, rate: rate, pitch: pitch, fps: fps)
        jobs[n] = job
        lock.unlock()
        var r = ExportRequest(input: s.report.output, output: (config.outDir as NSString).appendingPathComponent(name), spec: RetimeSpec(rate: rate))
        r.frameRate = fps
        r.pitch = pitch
        r.codec = codec
        r.trim = SourceTrim(start: .frame(Int64(from + s.report.triggerFrame)), end: to < s.lastFrame ? .frame(Int64(to + 1 + s.report.triggerFrame)) : nil)
        let request = r
        jobQueue.async { [weak self] in self?.runJob(n, request) }
        emit(.job, job: n, progress: 0)
        return job
    }

    private func runJob(_ n: Int, _ r: ExportRequest) {
        update(n) { $0.state = .running }
        var lastSaid = 0.0
        do {
            let report = try Exporter.export(r) { [weak self] done, total in
                let p = total > 0 ? Double(done) / Double(total) : 0
                self?.update(n) { $0.progress = p }
                if p - lastSaid >= 0.05 { lastSaid = p; self?.emit(.job, job: n, progress: p) }
            }
            update(n) { $0.state = .done; $0.progress = 1; $0.outputFrames = report.outputFrames }
        } catch {
            update(n) { $0.state = .failed; $0.error = "\(error)" }
        }
        lock.lock(); let j = jobs[n]; lock.unlock()
        emit(.job, job: n, progress: j?.progress, message: j?.error)
    }

    private func update(_ n: Int, _ change: (inout RigJob) -> Void) {
        lock.lock(); if var j = jobs[n] { change(&j); jobs[n] = j }; lock.unlock()
    }

    public func job(_ id: Int) throws(RigRefusal) -> RigJob {
        lock.lock(); defer { lock.unlock() }
        guard let j = jobs[id] else { throw RigRefusal(.notFound, "no job \(id)") }
        return j
    }

    public func allJobs() -> [RigJob] { lock.lock(); defer { lock.unlock() }; return jobs.values.sorted { $0.id < $1.id } }

    /// A finished job's file.
    public func jobPath(_ id: Int) throws(RigRefusal) -> String {
        let j = try job(id)
        guard j.state == .done else { throw RigRefusal(.conflict, "job \(id) is \(j.state.rawValue): its file is there once it is done") }
        return (config.outDir as NSString).appendingPathComponent(j.file)
    }
}
