import Foundation
import SlomoCore

extension RetimeSpec {
    /// The speed map from `rate`, `segments`, `ramps` (each eased over 1/2 s unless it says) and
    /// `curve` as a command line or a manifest gives them.
    public static func options(rate: String?, segments: [String], ramps: [String], curve: String?) throws(RetimeError) -> RetimeSpec {
        var spec = RetimeSpec()
        if let curve { spec.curve = try SpeedCurve(parsing: curve) }
        if let rate { spec.rate = try RetimeSpec.parseRate(Substring(rate), context: "\(Setting.rate) '\(rate)'") }
        spec.segments = try segments.map { (s: String) throws(RetimeError) in try SegmentSpec(parsing: s) }
        spec.segments += try ramps.map { (s: String) throws(RetimeError) in
            var r = try SegmentSpec(parsing: s, allowRamp: true)
            if r.ramp == nil { r.ramp = Rational(1, 2) }
            return r
        }
        return spec
    }
}

/// One job run in this process: its command's use case with its options. `slomo export`,
/// `retime` and `stretch` build their requests here from their flags, and `slomo job` (a batch's
/// child process) from the typed request batch hands it, so both reach the use cases alike.
public struct JobRun: Sendable {
    public var job: BatchJob
    public let spec: RetimeSpec
    public var overwrite = false
    public var threads = 0
    public var jobKey: String?
    /// For a file slomo retimed before: segments on its original timing (true) or its current one.
    public var fromOriginal = true
    /// `--real-time` (the job's own field counts too).
    public var realTime = false
    /// Export: skip frames no output shows (false decodes everything, for comparisons).
    public var skipUnneeded = true
    /// Stretch: the audio stream (nil: the best one).
    public var streamIndex: Int?

    public init(job: BatchJob) throws(RetimeError) {
        self.job = job
        spec = try RetimeSpec.options(rate: job.rate, segments: job.segments, ramps: job.ramps, curve: job.curve)
    }

    public func exportRequest() throws(SettingError) -> ExportRequest {
        guard threads >= 0 else { throw SettingError(.threads, String(threads), "expected 0 (all cores) or more", quoted: false) }
        let p = try job.parsedOptions()
        var r = ExportRequest(input: job.input, output: job.output, spec: spec)
        if let fps = p.fps { r.frameRate = fps }
        if let pitch = job.pitch { r.pitch = pitch }
        r.audio = !job.noAudio
        if let audioCodec = job.audioCodec { r.audioCodec = audioCodec }
        r.audioStreams = job.audioStreams
        r.codec = job.codec
        r.preset = job.preset
        r.crf = job.crf
        r.delivery = p.delivery
        r.trim = p.trim
        if let blend = p.frameBlend { r.frameBlend = blend }
        if let q = p.flowQuality { r.flowQuality = q }
        if let rotation = p.rotation { r.rotation = rotation }
        r.burnIn = p.burnIn
        r.overwrite = overwrite
        r.fromOriginal = fromOriginal
        r.realTime = realTime || job.realTime
        r.skipUnneeded = skipUnneeded
        r.threads = threads
        r.jobKey = jobKey
        return r
    }

    public func retimeRequest() throws(SettingError) -> RetimeRequest {
        let p = try job.parsedOptions()
        var r = RetimeRequest(input: job.input, output: job.output, spec: spec)
        r.trim = p.trim
        if let pitch = job.pitch { r.pitch = pitch }
        r.audio = !job.noAudio
        if let audioCodec = job.audioCodec { r.audioCodec = audioCodec }
        r.audioStreams = job.audioStreams
        r.overwrite = overwrite
        r.fromOriginal = fromOriginal
        r.realTime = realTime || job.realTime
        r.jobKey = jobKey
        return r
    }

    public func stretchRequest() throws -> AudioStretchRequest {
        let algorithm = try TimePitchAlgorithm(parsing: job.pitch ?? TimePitchAlgorithm.spectral.rawValue)
        return AudioStretchRequest(
            input: job.input, output: job.output, spec: spec, algorithm: algorithm,
            overwrite: overwrite, streamIndex: streamIndex)
    }

    /// Runs the job's command; `progress` gets an export's frames or a retime's packets (done, total).
    public func run(progress: ((Int64, Int64) -> Void)? = nil) throws -> JobResult {
        switch job.command {
        case .export:
            let report = try Exporter.export(try exportRequest(), progress: progress)
            return JobResult(
                frames: report.outputFrames, warnings: report.damage.map { "damaged input: \($0)" } + report.droppedStreams.map { "left out \($0)" })
        case .retime:
            let report = try Retimer.retime(try retimeRequest(), progress: progress)
            return JobResult(
                frames: Int64(report.videoPackets), warnings: report.damage.map { "damaged input: \($0)" } + report.droppedStreams.map { "left out \($0)" })
        case .stretch:
            _ = try AudioStretch.run(try stretchRequest())
            return JobResult(frames: nil, warnings: [])
        }
    }
}

/// What `slomo job` reads on stdin: one JSON object.
public struct JobRequest: Codable, Sendable, Equatable {
    public var job: BatchJob
    public var threads: Int
    /// The job's fingerprint, stored in the output (`slomo_job`) so a re-run recognises it.
    public var key: String
    public init(job: BatchJob, threads: Int, key: String) {
        self.job = job
        self.threads = threads
        self.key = key
    }
}

/// The last line `slomo job` writes on stdout (after `ProgressEvent` lines): how the job ended.
public struct JobResult: Codable, Sendable, Equatable {
    public var event = "result"
    /// ok or failed.
    public var status = JobStatus.ok
    public var exitStatus: Int32 = 0
    /// The one-line message of a failure (what `slomo` would print after `slomo: `).
    public var error: String?
    /// Video frames written (export) or copied (retime).
    public var frames: Int64?
    public var warnings: [String] = []

    public init(frames: Int64?, warnings: [String]) {
        self.frames = frames
        self.warnings = warnings
    }

    public init(failure message: String, exitStatus: Int32) {
        status = .failed
        error = message
        self.exitStatus = exitStatus
    }

    /// How a child stopped by SIGINT or SIGTERM exits (128 + SIGINT, the shell's convention).
    public static let interruptedStatus: Int32 = 130

    /// The result a child's stdout line carries, if it is one.
    public init?(line: String) {
        guard line.hasPrefix("{"), let r = try? JSONDecoder().decode(JobResult.self, from: Data(line.utf8)), r.event == "result" else { return nil }
        self = r
    }
}
