import SlomoCore

/// Exports of a rig's shots, run one after another as jobs (`POST /api/v1/shots/{id}/export`),
/// each cancellable (`DELETE /api/v1/jobs/{id}`), none larger than the server's limit.
extension Rig {
    /// Starts an export of shot `id`'s frames `from`...`to` (from the trigger frame) as a job,
    /// once `ShotExport` has checked it.
    public func export(shot id: Int, _ ask: RigExportAsk) throws(RigRefusal) -> RigJob {
        let e = try ShotExport(shot: try shot(id).file(camera: ask.camera), ask, maxFrames: config.maxExportFrames, redacted: exports.redacted)
        return exports.add(e.job, ext: e.ext) { path in
            var r = e.request
            r.output = path
            return r
        }
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
