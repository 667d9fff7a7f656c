import SlomoCore

/// A manifest that cannot be read as jobs, or a job whose values are refused. `at` is the place:
/// `jobs.yaml:7: jobs[2]`, `clips.csv:3`, or the file alone.
public enum ManifestError: SlomoFailure, Sendable, Equatable {
    /// The file is not a manifest (syntax, shape, types, unknown fields): bad data.
    case content(at: String, Wording)
    /// A job's value that its command refuses (a rate, a pitch, a field its command does not
    /// take), named as the manifest names it. The manifest is wrong either way: bad data (65),
    /// the one status for "the manifest is wrong".
    case invalidJob(at: String, Wording)
    /// The same refusal of a value given on the command line (`slomo batch --rate 0 …`): a bad
    /// request (64), naming the flag.
    case invalidOption(Wording)

    public var kind: FailureKind {
        switch self {
        case .content, .invalidJob: return .badData
        case .invalidOption: return .badRequest
        }
    }

    public var wording: Wording {
        switch self {
        case .content(let at, let what), .invalidJob(let at, let what): return "\(at): \(what)"
        case .invalidOption(let what): return what
        }
    }
}

/// Every problem of a manifest at once (each job's, in order), so one run of `batch` lists all
/// there is to mend. `wording` is the first; `lines` all of them, one each.
public struct ManifestErrors: SlomoFailure, Sendable, Equatable {
    public var errors: [ManifestError]
    public init(_ errors: [ManifestError]) { self.errors = errors }
    public var kind: FailureKind { errors.first?.kind ?? .badData }
    public var wording: Wording {
        guard let first = errors.first else { return "" }
        return errors.count == 1 ? first.wording : "\(first.wording) (and \(errors.count - 1) more problem\(errors.count == 2 ? "" : "s"))"
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
