import SlomoCore

/// A manifest that cannot be read as jobs, or a job whose values are refused. `at` is the place:
/// `jobs.yaml:7: jobs[2]`, `clips.csv:3`, or the file alone.
public enum ManifestError: SlomoFailure, Sendable, Equatable {
    /// The file is not a manifest (syntax, shape, types, unknown fields): bad data.
    case content(at: String, Wording)
    /// A job's value that its command refuses (a rate, a pitch, a field its command does not
    /// take): a bad request, named as the manifest names it.
    case invalidJob(at: String, Wording)

    public var kind: FailureKind {
        switch self {
        case .content: return .badData
        case .invalidJob: return .badRequest
        }
    }

    public var wording: Wording {
        switch self {
        case .content(let at, let what), .invalidJob(let at, let what): return "\(at): \(what)"
        }
    }
}

/// A batch whose jobs cannot all run: outputs that clash, directories that cannot take them.
public enum BatchError: SlomoFailure, Sendable, Equatable {
    case noOutput(job: Int, input: String)
    case sameOutput(job: Int, other: Int, output: String)
    case outputIsInput(job: Int, output: String)
    case outputDirectoryMissing(String)
    case outputDirectoryNotWritable(String)

    public var kind: FailureKind {
        switch self {
        case .outputDirectoryMissing, .outputDirectoryNotWritable: return .cannotCreate
        default: return .badRequest
        }
    }

    public var wording: Wording {
        switch self {
        case .noOutput(let i, let input): return "job \(i) (\(input)): no output (give \(Setting.outDir) or an output field)"
        case .sameOutput(let i, let other, let output): return "jobs \(other) and \(i) both write \(output): refusing to run (outputs must be unique)"
        case .outputIsInput(let i, let output): return "job \(i): output \(output) is its own input"
        case .outputDirectoryMissing(let dir): return "\(dir): output directory does not exist"
        case .outputDirectoryNotWritable(let dir): return "\(dir): output directory is not writable"
        }
    }
}
