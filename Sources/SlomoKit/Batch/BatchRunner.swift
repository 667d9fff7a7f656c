import Foundation
import SlomoCore
import SlomoSystem

/// One line of `slomo batch`'s JSON Lines output.
public struct BatchRecord: Codable, Sendable {
    public var job: Int
    public var input: String
    public var output: String
    public var command: String
    public var status: JobStatus
    public var error: String?
    public var exitStatus: Int32?
    public var durationSeconds: Double
    /// Output frames (export) or video packets (retime) per second of wall time: a speed, not a
    /// frame rate (named so since JSON version 2; it was `fps`).
    public var throughputFps: Double?
    /// Notes from the job that did not stop it (a damaged input's first sign); absent when none.
    public var warnings: [String]?
}

/// How a batch job ended (its line's `status`).
public enum JobStatus: String, Codable, Sendable, CaseIterable {
    case ok, failed
    /// Its output is already there, made by the same job (`BatchJob.key()`).
    case skipped
    /// Stopped by SIGINT or SIGTERM; run again by the next `slomo batch`.
    case interrupted
}

public struct BatchSummary: Codable, Sendable {
    public var total: Int
    public var ok: Int
    public var failed: Int
    public var skipped: Int
    public var interrupted: Int
    public var elapsedSeconds: Double
    /// Jobs run at once (`--jobs`; it was `jobs` before JSON version 2).
    public var parallelJobs: Int
    public var threadsPerJob: Int
    /// `I/N` as given on the command line, numbered from `shardBase`.
    public var shard: String?
    public var shardBase: Int?
    public init(
        total: Int, ok: Int, failed: Int, skipped: Int, interrupted: Int, elapsedSeconds: Double,
        jobs: Int, threadsPerJob: Int, shard: String?
    ) {
        self.total = total
        self.ok = ok
        self.failed = failed
        self.skipped = skipped
        self.interrupted = interrupted
        self.elapsedSeconds = elapsedSeconds
        self.parallelJobs = jobs
        self.threadsPerJob = threadsPerJob
        self.shard = shard
    }
}

/// Runs batch jobs as child `slomo` processes: isolated failures, parallel, resumable, shardable.
public final class BatchRunner: @unchecked Sendable {
    // Safe: mutable state is only touched under `lock`; the signal handler uses the C pid table only.
    public struct Options: Sendable {
        public var jobs: Int
        public var threadsPerJob: Int
        public var force = false
        public var shard: ShardSpec?
        public var executable: String
        public init(jobs: Int, threadsPerJob: Int, executable: String) {
            self.jobs = jobs
            self.threadsPerJob = threadsPerJob
            self.executable = executable
        }

        /// The ranges a batch's parallelism takes (`SettingError`, the same words for every front end).
        public func validate() throws(SettingError) {
            guard (1...256).contains(jobs) else { throw SettingError(.jobs, String(jobs), "expected 1...256", quoted: false) }
            guard threadsPerJob >= 0 else { throw SettingError(.threads, String(threadsPerJob), "expected 0 or more", quoted: false) }
        }
    }

    /// Default parallelism: one job per core with one codec thread each. Measured on this
    /// project's 2-core machine (`bench/batch/run.sh --quick`, 8 clips): 2 jobs × 1 thread took
    /// 8.1 s, 1 job × 2 threads 12.4 s — independent jobs keep both cores busy through the
    /// serial parts (demux, audio, muxing) that codec threads cannot fill.
    public static func defaultParallelism() -> (jobs: Int, threads: Int) {
        (Swift.max(1, ProcessInfo.processInfo.activeProcessorCount), 1)
    }

    let options: Options
    let lock = NSLock()
    public private(set) var records: [BatchRecord] = []
    private var nextIndex = 0

    /// Raised to stop starting jobs (SIGINT/SIGTERM through the application's handler, which also
    /// passes SIGINT on to the running children so they remove their partial outputs).
    let stop: StopToken

    public init(options: Options, stop: StopToken = ProcessSignals.interrupt) {
        self.options = options
        self.stop = stop
    }

    /// Checks the whole list before anything runs: duplicate outputs, output directories,
    /// inputs that are the outputs of other jobs.
    /// `creatable`: a directory that will be made before the jobs run (a dry run's `--out-dir`): it
    /// and what is under it may be missing.
    /// `directoriesOf`: the jobs whose output directories are checked (this shard's; nil: all), so
    /// one array task with an unwritable directory fails while the others run.
    public static func validate(_ jobs: [BatchJob], creatable: String? = nil, directoriesOf selected: [BatchJob]? = nil) throws(BatchError) {
        let made = creatable.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        var seen: [String: Int] = [:]
        for (i, j) in jobs.enumerated() {
            guard !j.output.isEmpty else { throw BatchError.noOutput(job: i, input: j.input) }
            let key = URL(fileURLWithPath: j.output).standardizedFileURL.path
            if let other = seen[key] {
                throw BatchError.sameOutput(job: i, other: other, output: j.output)
            }
            seen[key] = i
            if URL(fileURLWithPath: j.input).standardizedFileURL.path == key {
                throw BatchError.outputIsInput(job: i, output: j.output)
            }
        }
        var checked = Set<String>()
        for j in selected ?? jobs {
            let dir = URL(fileURLWithPath: j.output).deletingLastPathComponent().path
            guard checked.insert(dir).inserted else { continue }
            var isDir: ObjCBool = false
            if let made, !FileManager.default.fileExists(atPath: dir),
                URL(fileURLWithPath: dir).standardizedFileURL.path == made || dir.hasPrefix(made + "/")
            {
                continue
            }
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw BatchError.outputDirectoryMissing(dir)
            }
            guard Files.isWritable(dir) else { throw BatchError.outputDirectoryNotWritable(dir) }
        }
    }

    /// True when `job.output` is a complete output of exactly this job: it opens cleanly and carries
    /// the job's key (`slomo_job`); stretch outputs (audio formats without tags) only need to open cleanly
    /// and be newer than the input.
    public static func isComplete(_ job: BatchJob, key: String) -> Bool {
        guard FileManager.default.fileExists(atPath: job.output),
            let probe = try? Prober.probe(path: job.output), probe.damage.isEmpty
        else { return false }
        if let stored = probe.slomo?[SlomoTag.job.rawValue] { return stored == key }
        guard job.command == .stretch else { return false }
        let m = { (p: String) in (try? FileManager.default.attributesOfItem(atPath: p)[.modificationDate] as? Date) ?? nil }
        if let o = m(job.output), let i = m(job.input) { return o >= i }
        return false
    }

    /// Runs `jobs` (already sharded) and calls `emit` for each finished job, in completion order.
    /// `progress` gets each export job's frame progress (job number, frames done, frames total) as
    /// the child reports it (`ProgressEvent` lines on its stdout).
    public func run(
        _ jobs: [(number: Int, job: BatchJob)], emit: @escaping @Sendable (BatchRecord) -> Void,
        started: (@Sendable (Int, BatchJob) -> Void)? = nil,
        progress: (@Sendable (Int, Int64, Int64) -> Void)? = nil
    ) {
        nextIndex = 0
        let group = DispatchGroup()
        for _ in 0..<Swift.max(1, options.jobs) {
            group.enter()
            Thread.detachNewThread { [self] in
                defer { group.leave() }
                while true {
                    lock.lock()
                    guard nextIndex < jobs.count, !stop.isRaised else {
                        lock.unlock()
                        return
                    }
                    let (number, job) = jobs[nextIndex]
                    nextIndex += 1
                    lock.unlock()
                    started?(number, job)
                    let record = runOne(number, job, progress: progress)
                    lock.lock()
                    records.append(record)
                    lock.unlock()
                    emit(record)
                }
            }
        }
        group.wait()
    }

    func runOne(_ number: Int, _ job: BatchJob, progress: (@Sendable (Int, Int64, Int64) -> Void)? = nil) -> BatchRecord {
        let t0 = Date()
        let key = job.key()
        var record = BatchRecord(
            job: number, input: job.input, output: job.output, command: job.command.rawValue,
            status: .ok, durationSeconds: 0)
        if !options.force && BatchJob.removeStalePartials(of: job.output) >= 0 && BatchRunner.isComplete(job, key: key) {
            record.status = .skipped
            return record
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: options.executable)
        p.arguments = ["job"]
        let input = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = input
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch {
            record.status = .failed
            record.error = "cannot start \(options.executable): \(error)"
            return record
        }
        ProcessSignals.trackChild(p.processIdentifier)
        // the typed request on stdin; a child that dies before reading it is reported below
        let request = JobRequest(job: job, threads: options.threadsPerJob, key: key)
        if let line = try? JSONSchema.line(request, type: "request") { try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8)) }
        try? input.fileHandleForWriting.close()
        // stderr (diagnostics, kept for a child that ends without a result) on its own thread while
        // stdout's typed lines are read here, so that neither pipe can fill up and stall the child
        let diagnostics = TailCollector(err.fileHandleForReading, lines: 50)
        var result: JobResult?
        PipeLines.read(out.fileHandleForReading) { line in
            if let e = ProgressEvent(line: line), let done = e.done, let total = e.total {
                progress?(number, done, total)
            } else if let r = JobResult(line: line) {
                result = r
            }
        }
        let stderrLines = diagnostics.wait()
        p.waitUntilExit()
        ProcessSignals.untrackChild(p.processIdentifier)
        record.durationSeconds = (Date().timeIntervalSince(t0) * 1000).rounded() / 1000
        record.exitStatus = p.terminationStatus
        if p.terminationStatus == 0, let result, result.status == .ok {
            record.warnings = result.warnings.isEmpty ? nil : result.warnings
            if let frames = result.frames, record.durationSeconds > 0 {
                record.throughputFps = (Double(frames) / record.durationSeconds * 10).rounded() / 10
            }
        } else {
            let interrupted = p.terminationStatus == JobResult.interruptedStatus || p.terminationReason == .uncaughtSignal
            record.status = interrupted && stop.isRaised ? .interrupted : .failed
            record.error = result?.error ?? Self.crashLine(stderrLines, status: p.terminationStatus, signalled: p.terminationReason == .uncaughtSignal)
        }
        return record
    }

    /// A child that ended without a result (killed, crashed): its last stderr line, or how it ended.
    static func crashLine(_ stderr: [String], status: Int32, signalled: Bool) -> String {
        let last = stderr.last { !$0.isEmpty } ?? ""
        if !last.isEmpty { return last.hasPrefix("slomo: ") ? String(last.dropFirst(7)) : last }
        return signalled ? "killed by signal \(status)" : "exit \(status)"
    }
}

/// Reads a pipe to its end on a thread of its own, keeping only its last lines (a child's log can
/// grow with its input; memory must not).
final class TailCollector: @unchecked Sendable {
    // Safe: `tail` is written by the reading thread before `group.leave()` and read after `wait()`.
    private var tail: [String] = []
    private let group = DispatchGroup()
    init(_ handle: FileHandle, lines: Int) {
        group.enter()
        Thread.detachNewThread { [self] in
            PipeLines.read(handle) { line in
                tail.append(line)
                if tail.count > lines { tail.removeFirst() }
            }
            group.leave()
        }
    }
    func wait() -> [String] {
        group.wait()
        return tail
    }
}

/// Splits what a pipe delivers into lines as they arrive, until its end (a batch child's stdout).
enum PipeLines {
    static func read(_ handle: FileHandle, _ line: (String) -> Void) {
        var buffer = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let nl = buffer.firstIndex(of: 10) {
                line(String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...nl)
            }
        }
        if !buffer.isEmpty { line(String(decoding: buffer, as: UTF8.self)) }
    }
}

extension BatchJob {
    /// Removes `.NAME.partial-PID` files an interrupted earlier run left next to `output`
    /// (their process is gone). Returns how many were removed.
    @discardableResult
    static func removeStalePartials(of output: String) -> Int {
        let url = URL(fileURLWithPath: output)
        let dir = url.deletingLastPathComponent().path
        let prefix = ".\(url.lastPathComponent).partial-"
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name.hasPrefix(prefix) {
            if let pid = Int32(name.dropFirst(prefix.count)), CurrentProcess.exists(pid) { continue }  // still being written
            if (try? Files.remove((dir as NSString).appendingPathComponent(name))) != nil { removed += 1 }
        }
        return removed
    }
}
