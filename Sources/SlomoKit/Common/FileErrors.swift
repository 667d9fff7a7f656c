import Foundation
import SlomoSystem
import SlomoCore

/// An output that cannot be made or finished.
public struct OutputError: SlomoFailure, Sendable, Equatable {
    public enum Problem: Sendable, Equatable {
        /// It exists and the request does not allow replacing it.
        case exists
        /// It is one of the command's inputs (the same file, by device and inode): never replaced.
        case isInput(String)
        case isDirectory
        case directoryMissing(String)
        case directoryNotWritable(String)
        /// Writing a small file whole failed (nil: the system gave no error number).
        case writeFailed(errno: Int32?)
        /// Renaming the finished temporary file into place failed.
        case renameFailed(from: String, errno: Int32)
        /// No container for the extension (`webm`: whether WebM would have been one).
        case unsupportedExtension(String, webm: Bool)
    }
    public var path: String
    public var problem: Problem

    public init(_ path: String, _ problem: Problem) {
        self.path = path
        self.problem = problem
    }

    public var systemErrno: Int32? {
        switch problem {
        case .writeFailed(let e): return e
        case .renameFailed(_, let e): return e
        default: return nil
        }
    }

    public var kind: FailureKind {
        switch problem {
        case .writeFailed, .renameFailed: return .ioFailed
        case .unsupportedExtension: return .badRequest
        default: return .cannotCreate
        }
    }

    public var wording: Wording {
        switch problem {
        case .exists: return "\(path): output already exists (use \(Setting.overwrite) to replace it)"
        case .isInput(let input):
            return "\(path): cannot write output: it is the input \(input) (choose another name; even \(Setting.overwrite) never replaces an input)"
        case .isDirectory: return "\(path): cannot write output: it is a directory"
        case .directoryMissing(let d): return "\(path): cannot write output: directory \(d) does not exist"
        case .directoryNotWritable(let d): return "\(path): cannot write output: directory \(d) is not writable"
        case .writeFailed(let e): return "\(path): cannot write: \(OutputFile.systemWords(e))"
        case .renameFailed(let from, let e): return "\(path): rename from \(from) failed: \(Errno(e))"
        case .unsupportedExtension(let ext, let webm):
            return "\(path): unsupported output extension '.\(ext)' (use .mp4, .mov, .mkv\(webm ? ", .webm" : "") or .nut)"
        }
    }
}

/// An input file that cannot be read: missing, a directory, unreadable or empty.
public struct InputError: SlomoFailure, Sendable, Equatable {
    public enum Problem: Sendable, Equatable {
        case missing, isDirectory, notReadable, empty
    }
    /// What the file was to be: a media input, a device listing, a batch manifest.
    public enum Role: String, Sendable, Equatable {
        case media, listing, manifest, key, config
    }
    public var path: String
    public var role: Role
    public var problem: Problem

    public init(_ path: String, _ role: Role, _ problem: Problem) {
        self.path = path
        self.role = role
        self.problem = problem
    }

    public var kind: FailureKind {
        switch (role, problem) {
        case (.media, .notReadable): return .notPermitted
        case (.media, .empty): return .badData
        default: return .missing
        }
    }

    public var wording: Wording {
        let what: String
        switch problem {
        case .missing: what = "no such file"
        case .isDirectory: what = "it is a directory"
        case .notReadable: what = role == .media ? "permission denied" : "permission denied or unreadable"
        case .empty: what = "the file is empty (0 bytes)"
        }
        switch role {
        case .media: return "\(path): cannot open input: \(what)"
        case .listing: return "\(path): cannot read listing: \(what)"
        case .manifest: return problem == .notReadable ? "\(path): cannot read manifest" : "\(path): cannot read manifest: \(what)"
        case .key: return "\(path): cannot read the trigger key: \(what)"
        case .config: return "\(path): cannot read the configuration file: \(what)"
        }
    }
}

/// A speed map that cannot be laid on a file (a segment past its end, a curve out of range).
public struct FileRetimeError: SlomoFailure, Sendable, Equatable {
    public var path: String
    public var error: RetimeError
    public init(_ path: String, _ error: RetimeError) {
        self.path = path
        self.error = error
    }
    public var kind: FailureKind { .badRequest }
    public var wording: Wording { "\(path): \(error)" }
}
