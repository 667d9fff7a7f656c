import ArgumentParser
import Foundation
import SlomoCore
import SlomoSystem
import SlomoKit

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Run export/retime/stretch over many files: parallel, resumable, shardable, JSON Lines on stdout.",
        discussion: """
            Inputs are files or quoted globs ('clips/*.mp4'), or one manifest (.json, .yaml or .csv; Docs/Batch.md). \
            Every job ends with one JSON line on stdout; the last line is {"summary": ...}. A re-run skips jobs \
            whose output is complete (opens cleanly and carries the job's fingerprint) and redoes the rest; \
            --force redoes all. --shard I/N runs jobs k with k mod N == I-1 (GNU parallel, Slurm arrays, \
            Kubernetes Indexed Jobs). Exit: 0 all ok/skipped, 1 some job failed, 64/65/66/73 before any job ran \
            (also as one JSON line {"status": "refused", "exitStatus": N, "error": ...}), 130 interrupted.
            Examples:
              slomo batch 'clips/*.mp4' --out-dir out --rate 1/2
              slomo batch 'clips/*.mp4' --out-dir retimed --command retime \\
                  --segment 0.1-0.3@1/4 --jobs 1
            """)

    @Argument(help: "Input files, quoted globs, or one manifest (.json/.yaml/.csv).", completion: .file()) var inputs: [String] = []
    @Option(help: "Manifest file (.json, .yaml/.yml or .csv).", completion: .file(extensions: ["json", "yaml", "yml", "csv"])) var manifest: String?
    @Option(help: "Directory for outputs of jobs that do not name one (made if missing).", completion: .directory) var outDir: String?
    @Option(help: "Command for every job without one: export, retime, stretch.", completion: .values(of: BatchJob.Command.self)) var command = "export"
    // Every job's options (a manifest's field overrides them); the table `JobOption` declares them.
    @Option(parsing: .unconditional, help: ArgumentHelp(JobOption.rate.help)) var rate: String?
    @Option(name: .customLong(JobOption.segments.flag), help: ArgumentHelp(JobOption.segments.help)) var segments: [String] = []
    @Option(name: .customLong(JobOption.ramps.flag), help: ArgumentHelp(JobOption.ramps.help)) var ramps: [String] = []
    @Option(help: ArgumentHelp(JobOption.curve.help)) var curve: String?
    @Option(help: ArgumentHelp(JobOption.pitch.help), completion: .values(of: JobOption.pitch)) var pitch: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(JobOption.fps.help)) var fps: String?
    @Option(help: ArgumentHelp(JobOption.codec.help)) var codec: String?
    @Option(help: ArgumentHelp(JobOption.preset.help)) var preset: String?
    @Option(parsing: .unconditional, help: ArgumentHelp(JobOption.crf.help)) var crf: Int?
    @Option(help: ArgumentHelp(JobOption.frameBlend.help), completion: .values(of: JobOption.frameBlend)) var frameBlend: String?
    @Option(help: ArgumentHelp(JobOption.flowQuality.help), completion: .values(of: JobOption.flowQuality)) var flowQuality: String?
    @Flag(help: ArgumentHelp(JobOption.noAudio.help)) var noAudio = false
    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp(JobOption.audioStreams.help)) var audioStream: [Int] = []
    @Flag(help: ArgumentHelp(JobOption.realTime.help)) var realTime = false
    @OptionGroup var delivery: DeliveryOptions
    @Option(help: ArgumentHelp(JobOption.rotation.help), completion: .values(of: JobOption.rotation)) var rotation: String?
    @OptionGroup var burnIn: BurnInOptions
    @Option(help: ArgumentHelp(JobOption.audioCodec.help), completion: .values(of: JobOption.audioCodec)) var audioCodec: String?
    @Option(parsing: .unconditional, help: "Jobs at once (default: one per core).") var jobs: Int?
    @Option(parsing: .unconditional, help: "Codec threads per job (default: cores / jobs).") var threads: Int?
    @Option(parsing: .unconditional, help: "Run only shard I of N (I from 1, or from --shard-base).") var shard: String?
    @Option(help: "Numbering of --shard's I: 1 (default) or 0 (Slurm array ids, Kubernetes completion indexes).") var shardBase = 1
    @Flag(help: "Redo every job, even those with a complete output.") var force = false
    @Flag(help: "List the jobs this shard would run, run nothing.") var dryRun = false
    @Option(help: "Progress on stderr: auto, json, none.") var progress = "auto"

    func run() throws {
        do { try runBatch() } catch let e as ManifestErrors {
            // every problem of the manifest, one line each (the last one by main, as for any error)
            let lines = e.errors.map { CLIFailure($0) }
            try? printLine(
                ["status": "refused", "exitStatus": Int(lines[0].status), "error": lines[0].message, "errors": lines.map(\.message)], type: "refusal")
            for l in lines.dropLast() { Console.error("slomo: \(l.message)") }
            throw lines[lines.count - 1]
        } catch let e as SlomoFailure where e.kind != .interrupted {
            // a refusal before any job ran is a JSON line too, so a scheduler's log says why
            let refusal = CLIFailure(e)
            try? printLine(["status": "refused", "exitStatus": Int(refusal.status), "error": refusal.message], type: "refusal")
            throw refusal
        }
    }

    func runBatch() throws {
        let jobs = try planJobs()
        let shardSpec = try shard.map { s throws(SettingError) in try ShardSpec(parsing: s, base: shardBase) }
        let selected = jobs.enumerated().filter { shardSpec?.contains(jobNumber: $0.offset) ?? true }.map { (number: $0.offset, job: $0.element) }
        try BatchRunner.validate(jobs, creatable: dryRun ? outDir : nil, directoriesOf: selected.map(\.job))
        let defaults = BatchRunner.defaultParallelism()
        let nJobs = jobs.isEmpty ? 1 : (self.jobs ?? defaults.jobs)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let nThreads = threads ?? Swift.max(1, cores / Swift.max(1, nJobs))
        var options = BatchRunner.Options(jobs: nJobs, threadsPerJob: nThreads, executable: Self.executablePath())
        try options.validate()
        let reporter = try BatchProgress(mode: progress)
        if dryRun { return try planOnly(selected) }
        // SIGINT/SIGTERM: stop starting jobs, pass the signal to the running children (which remove
        // their partial outputs); a child gone before it read its request makes writing it fail with
        // EPIPE, reported for that job, not a SIGPIPE that ends the batch
        ProcessSignals.interruptsStopTheRun()
        ProcessSignals.ignoreBrokenPipes()
        options.force = force
        options.shard = shardSpec
        let runner = BatchRunner(options: options)
        let t0 = Date()
        reporter.start(jobs: selected.count)
        runner.run(
            selected,
            emit: { record in
                Self.emit(record)
                reporter.finished(job: record.job)
            },
            progress: { job, done, total in
                reporter.frames(job: job, done: done, total: total)
            })
        reporter.finish()
        let r = runner.records
        var summary = BatchSummary(
            total: selected.count, ok: r.filter { $0.status == .ok }.count, failed: r.filter { $0.status == .failed }.count,
            skipped: r.filter { $0.status == .skipped }.count, interrupted: r.filter { $0.status == .interrupted }.count,
            elapsedSeconds: (Date().timeIntervalSince(t0) * 100).rounded() / 100, jobs: nJobs, threadsPerJob: nThreads,
            shard: shard)
        summary.shardBase = shard == nil ? nil : shardBase
        Console.out(try JSONSchema.line(BatchSummaryLine(summary: summary), type: "summary"))
        Console.error(
            "batch: \(summary.ok) ok, \(summary.skipped) skipped, \(summary.failed) failed\(summary.interrupted > 0 ? ", \(summary.interrupted) interrupted" : "") in \(summary.elapsedSeconds) s"
        )
        if ProcessSignals.interrupt.isRaised { throw CommandLineError("batch interrupted: finished outputs kept, unfinished ones removed", .interrupted) }
        if summary.failed > 0 { throw ExitCode(ExitStatus.partialFailure.rawValue) }
    }

    /// `--dry-run`: each input opened and measured, its speeds resolved: what would fail is said now.
    func planOnly(_ selected: [(number: Int, job: BatchJob)]) throws {
        var refused = 0
        for s in selected {
            var line: [String: Any] = ["job": s.number, "input": s.job.input, "output": s.job.output, "command": s.job.command.rawValue]
            do {
                let plan = try JobPlan.of(s.job)
                line["status"] = "planned"
                line["sourceSeconds"] = (plan.sourceDuration.doubleValue * 1000).rounded() / 1000
                line["outputSeconds"] = (plan.outputDuration.doubleValue * 1000).rounded() / 1000
                if let f = plan.outputFrames { line["outputFrames"] = f }
            } catch {
                let f = CLIFailure(error)
                line["status"] = "refused"
                line["exitStatus"] = Int(f.status)
                line["error"] = f.message
                Console.error("slomo: job \(s.number): \(f.message)")
                refused += 1
            }
            try printLine(line, type: "plan")
        }
        if refused > 0 { throw ExitCode(ExitStatus.partialFailure.rawValue) }
    }

    static func emit(_ record: BatchRecord) {
        if let line = try? JSONSchema.line(record, type: "job") { Console.out(line) }
    }

    func printLine(_ object: [String: Any], type: String) throws {
        Console.out(try JSONSchema.line(object, type: type))
    }

    /// The jobs from the manifest or the inputs, with the command-line options as defaults.
    func planJobs() throws -> [BatchJob] {
        guard let cmd = BatchJob.Command(rawValue: command) else {
            throw SettingError(.command, command, "\(OptionValues.expected(BatchJob.Command.self))")
        }
        var manifestPath = manifest
        var files = inputs
        if manifestPath == nil, files.count == 1, Manifest.extensions.contains(URL(fileURLWithPath: files[0]).pathExtension.lowercased()) {
            manifestPath = files[0]
            files = []
        }
        if let out = outDir {
            var isDir: ObjCBool = false
            if !FileManager.default.fileExists(atPath: out, isDirectory: &isDir) && !dryRun {
                // made as `mkdir -p` would (a user expects `--out-dir out` to work on a first run)
                do { try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) } catch {
                    throw CommandLineError("\(out): cannot create \(Setting.outDir): \(OutputFile.reason(error))", .cannotCreate)
                }
                isDir = true
            } else if dryRun && !FileManager.default.fileExists(atPath: out) {
                isDir = true  // a dry run creates nothing
            }
            guard isDir.boolValue else { throw CommandLineError("\(out): \(Setting.outDir) is not a directory", .cannotCreate) }
            guard !FileManager.default.fileExists(atPath: out) || Files.isWritable(out) else {
                throw CommandLineError("\(out): \(Setting.outDir) is not writable", .cannotCreate)
            }
        }
        var defaults: [String: Any] = ["command": cmd.rawValue]
        for option in JobOption.allCases {
            if let value = defaultValue(option) { defaults[option.field] = value }
        }
        // the command line's options alone first: a bad --rate is the command line's, not job 0's
        // (their values as an export takes them; whether each applies is each job's question)
        _ = try Manifest.job(
            defaults.merging(["input": "-", "output": "-", "command": "export"]) { _, new in new },
            place: "command line", commandLine: true)
        var jobs: [BatchJob]
        if let m = manifestPath {
            guard files.isEmpty else { throw CommandLineError("give either a manifest or input files, not both", .badRequest) }
            jobs = try Manifest.load(path: m, defaults: defaults)
        } else {
            guard !files.isEmpty else { throw CommandLineError("batch: no inputs (give files, quoted globs or a manifest)", .badRequest) }
            var expanded: [String] = []
            for f in files {
                let matches = Self.glob(f)
                guard !matches.isEmpty else { throw CommandLineError("\(f): no such file (and no file matches it as a pattern)", .missing) }
                expanded += matches
            }
            jobs = try expanded.enumerated().map { i, path in
                var fields = defaults
                fields["input"] = path
                return try Manifest.job(fields, place: "input \(i) (\(path))")
            }
        }
        for i in jobs.indices where jobs[i].output.isEmpty {
            guard let out = outDir else { continue }
            jobs[i].output = (out as NSString).appendingPathComponent(Self.outputName(for: jobs[i]))
        }
        return jobs
    }

    /// This command line's value of `option`, as a manifest field's value (nil: not given).
    func defaultValue(_ option: JobOption) -> Any? {
        switch option {
        case .rate: return rate
        case .segments: return segments.isEmpty ? nil : segments
        case .ramps: return ramps.isEmpty ? nil : ramps
        case .curve: return curve
        case .pitch: return pitch
        case .fps: return fps
        case .codec: return codec
        case .preset: return preset
        case .crf: return crf
        case .frameBlend: return frameBlend
        case .flowQuality: return flowQuality
        case .noAudio: return noAudio ? true : nil
        case .audioCodec: return audioCodec
        case .audioStreams: return audioStream.isEmpty ? nil : audioStream
        case .realTime: return realTime ? true : nil
        case .start: return delivery.trim.start
        case .end: return delivery.trim.end
        case .size: return delivery.size
        case .pixFmt: return delivery.pixFmt
        case .bitrate: return delivery.bitrate
        case .gop: return delivery.gop
        case .rotation: return rotation
        case .burnIn: return burnIn.burnIn ? true : nil
        case .burnInFields: return burnIn.burnInFields
        case .burnInCorner: return burnIn.burnInCorner
        case .burnInSize: return burnIn.burnInSize
        }
    }

    static func outputName(for job: BatchJob) -> String {
        let url = URL(fileURLWithPath: job.input)
        let ext = url.pathExtension.lowercased()
        let base = url.deletingPathExtension().lastPathComponent
        switch job.command {
        case .export: return base + "." + (["mov", "mkv", "mp4"].contains(ext) ? ext : "mp4")
        case .retime, .stretch: return base + "." + (ext.isEmpty ? "mp4" : ext)
        }
    }

    static func glob(_ pattern: String) -> [String] {
        if FileManager.default.fileExists(atPath: pattern) { return [pattern] }
        var g = glob_t()
        defer { globfree(&g) }
        guard Glibc.glob(pattern, 0, nil, &g) == 0 else { return [] }
        return (0..<Int(g.gl_pathc)).compactMap { g.gl_pathv[$0].map { String(cString: $0) } }
    }

    static func executablePath() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// One aggregated progress for a batch: finished jobs plus the frame progress of the running
/// export jobs (the `ProgressEvent` lines of their stdout), as a bar on a terminal or NDJSON events.
final class BatchProgress: @unchecked Sendable {
    // Safe: every member is read and written under `lock` (workers call from several threads).
    private let lock = NSLock()
    private let reporter: ProgressReporter
    private var jobs = 0
    private var finishedJobs = 0
    private var running: [Int: (done: Int64, total: Int64)] = [:]
    private var framesFinished: Int64 = 0
    private let start = Date()
    private var lastEmit = Date.distantPast

    init(mode: String) throws { reporter = try ProgressReporter(mode: mode, label: "batch") }

    func start(jobs n: Int) {
        lock.lock()
        jobs = n
        lock.unlock()
    }

    func frames(job: Int, done: Int64, total: Int64) {
        lock.lock()
        defer { lock.unlock() }
        running[job] = (done, total)
        report(force: false)
    }

    func finished(job: Int) {
        lock.lock()
        defer { lock.unlock() }
        if let r = running.removeValue(forKey: job) { framesFinished += r.done }  // a failed job stops short
        finishedJobs += 1
        report(force: true)
    }

    func finish() { reporter.finish() }

    /// Called under `lock`.
    private func report(force: Bool) {
        let now = Date()
        guard force || now.timeIntervalSince(lastEmit) >= 0.25 else { return }
        lastEmit = now
        let partial = running.values.reduce(0.0) { $0 + ($1.total > 0 ? Double($1.done) / Double($1.total) : 0) }
        let fraction = jobs > 0 ? (Double(finishedJobs) + partial) / Double(jobs) : 1
        let frames = framesFinished + running.values.reduce(0) { $0 + $1.done }
        let elapsed = now.timeIntervalSince(start)
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        let fps = elapsed > 0 ? Double(frames) / elapsed : 0
        reporter.batch(jobsDone: finishedJobs, jobs: jobs, fraction: fraction, frames: frames, fps: fps, eta: eta)
    }
}

/// The last line of `slomo batch`'s stdout: `{"summary": {...}, "type": "summary", "version": 2}`.
struct BatchSummaryLine: Encodable { let summary: BatchSummary }
