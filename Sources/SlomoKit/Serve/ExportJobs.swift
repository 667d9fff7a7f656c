import Foundation
import SlomoCore
import SlomoSystem

/// A rig's export jobs: run one after another on their own queue, each cancellable (queued or
/// running), numbered after the export files an earlier server left in the output directory, so
/// a restarted server never writes over them or fails on them.
final class ExportJobs: @unchecked Sendable {
    // Safe: `jobs`, `stops` and `next` are touched under `lock` only; `queue` runs one job at a time.
    private let lock = NSLock()
    private var jobs: [Int: RigJob] = [:]
    /// The stop token of each job not finished yet.
    private var stops: [Int: StopToken] = [:]
    private var next: Int
    private let queue = DispatchQueue(label: "slomo-export")
    let outDir: String
    /// Called on every change a client should hear of: (job, progress, message).
    private let changed: @Sendable (Int, Double?, String?) -> Void

    init(outDir: String, changed: @escaping @Sendable (Int, Double?, String?) -> Void) {
        self.outDir = outDir
        self.changed = changed
        next = Self.highestNumber(in: outDir) + 1
    }

    /// The highest job number of the export files in `dir` (`shotNNNN-exportJ.mp4|mkv`), 0 when none.
    static func highestNumber(in dir: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.compactMap(number(ofFile:)).max() ?? 0
    }

    /// J of `shotNNNN-exportJ.EXT`.
    static func number(ofFile name: String) -> Int? {
        guard name.hasPrefix("shot"), let dash = name.range(of: "-export") else { return nil }
        let rest = name[dash.upperBound...]
        guard let dot = rest.firstIndex(of: ".") else { return nil }
        return Int(rest[..<dot])
    }

    /// A new job for shot `shot`: its number and file name are taken here (the next free ones);
    /// `request` makes the export from the output's path. Nothing is written until it runs.
    func add(_ template: RigJob, ext: String, request: (String) -> ExportRequest) -> RigJob {
        lock.lock()
        var n = next
        var name = Self.fileName(shot: template.shot, job: n, ext: ext)
        while FileManager.default.fileExists(atPath: path(name)) {
            n += 1
            name = Self.fileName(shot: template.shot, job: n, ext: ext)
        }
        next = n + 1
        var job = template
        job.id = n
        job.file = name
        job.state = .queued
        jobs[n] = job
        let stop = StopToken()
        stops[n] = stop
        lock.unlock()
        var r = request(path(name))
        r.stop = stop
        let export = r, id = n
        queue.async { [weak self] in self?.run(id, export) }
        changed(id, 0, nil)
        return job
    }

    static func fileName(shot: Int, job: Int, ext: String) -> String { String(format: "shot%04d-export%d.%@", shot, job, ext) }

    private func path(_ name: String) -> String { (outDir as NSString).appendingPathComponent(name) }

    private func run(_ n: Int, _ r: ExportRequest) {
        lock.lock()
        let cancelled = jobs[n]?.state == .cancelled
        if !cancelled { jobs[n]?.state = .running }
        lock.unlock()
        guard !cancelled else { return }
        var lastSaid = 0.0
        do {
            let report = try Exporter.export(r) { [weak self] done, total in
                let p = total > 0 ? Double(done) / Double(total) : 0
                self?.update(n) { $0.progress = p }
                if p - lastSaid >= 0.05 {
                    lastSaid = p
                    self?.changed(n, p, nil)
                }
            }
            update(n) {
                $0.state = .done
                $0.progress = 1
                $0.outputFrames = report.outputFrames
            }
        } catch ExportError.cancelled {
            update(n) { $0.state = .cancelled }
        } catch {
            let text = redacted("\(error)")
            update(n) {
                $0.state = .failed
                $0.error = text
            }
        }
        lock.lock()
        stops.removeValue(forKey: n)
        let j = jobs[n]
        lock.unlock()
        changed(n, j?.progress, j?.error)
    }

    /// A sentence without the server's paths: the output directory's files by their names only.
    func redacted(_ text: String) -> String {
        text.replacingOccurrences(of: outDir.hasSuffix("/") ? outDir : outDir + "/", with: "")
    }

    private func update(_ n: Int, _ change: (inout RigJob) -> Void) {
        lock.lock()
        if var j = jobs[n] {
            change(&j)
            jobs[n] = j
        }
        lock.unlock()
    }

    /// `DELETE /api/v1/jobs/{id}`: a queued job never runs; a running one stops after its current
    /// frame and its partial file is removed. A finished job is refused (its file stays).
    func cancel(_ id: Int) throws(RigRefusal) -> RigJob {
        lock.lock()
        guard var j = jobs[id] else {
            lock.unlock()
            throw RigRefusal(.missing, "no job \(id)")
        }
        switch j.state {
        case .queued:
            j.state = .cancelled
            jobs[id] = j
            stops.removeValue(forKey: id)
        case .running:
            stops[id]?.raise()
        case .done, .failed, .cancelled:
            lock.unlock()
            throw RigRefusal(.conflict, "job \(id) is \(j.state.rawValue): there is nothing to cancel")
        }
        lock.unlock()
        if j.state == .cancelled { changed(id, j.progress, nil) }
        return j
    }

    /// Cancels every job not finished and waits until none runs; the numbers of those cancelled.
    @discardableResult
    func cancelAll() -> [Int] {
        lock.lock()
        let open = jobs.values.filter { $0.state == .queued || $0.state == .running }.map(\.id).sorted()
        for id in open {
            if jobs[id]?.state == .queued { jobs[id]?.state = .cancelled }
            stops[id]?.raise()
        }
        lock.unlock()
        queue.sync {}
        return open
    }

    func job(_ id: Int) throws(RigRefusal) -> RigJob {
        lock.lock()
        defer { lock.unlock() }
        guard let j = jobs[id] else { throw RigRefusal(.missing, "no job \(id)") }
        return j
    }

    var all: [RigJob] {
        lock.lock()
        defer { lock.unlock() }
        return jobs.values.sorted { $0.id < $1.id }
    }

    /// Whether shot `shot` has a job queued or running.
    func busy(shot: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return jobs.values.contains { $0.shot == shot && ($0.state == .running || $0.state == .queued) }
    }

    /// A finished job's file.
    func filePath(_ id: Int) throws(RigRefusal) -> String {
        let j = try job(id)
        guard j.state == .done else { throw RigRefusal(.conflict, "job \(id) is \(j.state.rawValue): its file is there once it is done") }
        return path(j.file)
    }
}
