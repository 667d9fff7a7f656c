internal import CFFmpeg
import SlomoCore

/// An FFmpeg call that failed: which file, which function, FFmpeg's code and its text.
///
/// Prints as `out/clip.mp4: avcodec_open2(libx264) failed: Invalid argument (AVERROR -22)`.
public struct FFmpegError: SlomoFailure, Equatable {
    /// What the failure means for the caller, chosen from the code and the operation.
    public enum Category: Sendable, Equatable {
        case inputMissing, permissionDenied, invalidData, unsupported, outputFailed, io, internalError
        /// The output the user asked for cannot be made (a codec its container cannot hold): a bad request.
        case unsupportedOutput
    }

    public var path: String
    public var operation: String
    public var code: Int32
    public var text: String
    public var category: Category
    /// A decoder refused the data (any code but ENOMEM): damage, like AVERROR_INVALIDDATA.
    public var damagedData = false

    public init(path: String, operation: String, code: Int32, category: Category? = nil) {
        self.path = path
        self.operation = operation
        self.code = code
        self.text = FFmpegError.describe(code)
        self.category = category ?? FFmpegError.classify(code)
    }

    /// A failure that is not an FFmpeg return code (no stream, unsupported combination...).
    public init(path: String, operation: String, message: String, category: Category) {
        self.path = path
        self.operation = operation
        self.code = 0
        self.text = message
        self.category = category
    }

    public var wording: Wording { Wording(verbatim: description) }

    /// FFmpeg passes a system error on as AVERROR(e) = -e; its own codes are tags far below.
    public var systemErrno: Int32? { Self.errnoPassedOn(code) }

    public var description: String {
        code == 0
            ? "\(path): \(operation): \(text)"
            : "\(path): \(operation) failed: \(text) (AVERROR \(code))"
    }

    /// FFmpeg said the data is invalid (AVERROR_INVALIDDATA): a damaged packet or frame, as opposed
    /// to the other codes `classify` also files under `.invalidData`.
    public var isInvalidData: Bool { code == cffmpeg_averror_invaliddata() || damagedData }

    public var kind: FailureKind {
        switch category {
        case .inputMissing: return .missing
        case .permissionDenied: return .notPermitted
        case .invalidData, .unsupported: return .badData
        case .unsupportedOutput: return .badRequest
        case .outputFailed: return .cannotCreate
        case .io: return .ioFailed
        case .internalError: return .bug
        }
    }

    static func classify(_ code: Int32) -> Category {
        switch code {
        case cffmpeg_averror(ENOENT), cffmpeg_averror(ENOTDIR): return .inputMissing
        case cffmpeg_averror(EACCES), cffmpeg_averror(EPERM): return .permissionDenied
        case cffmpeg_averror(ENOSPC), cffmpeg_averror(EIO), cffmpeg_averror(EDQUOT): return .io
        case cffmpeg_averror_decoder_not_found(), cffmpeg_averror_encoder_not_found(): return .unsupported
        default: return .invalidData
        }
    }

    /// `av_strerror`'s text for a code.
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The chokepoint for FFmpeg calls that return a negative AVERROR on failure.
/// Returns the non-negative result.
@discardableResult
func ffcall(
    _ path: String, _ operation: @autoclosure () -> String, category: FFmpegError.Category? = nil,
    _ body: () -> Int32
) throws(FFmpegError) -> Int32 {
    let rc = body()
    if rc < 0 { throw FFmpegError(path: path, operation: operation(), code: rc, category: category) }
    return rc
}

let averrorEOF = cffmpeg_averror_eof()
let averrorEAGAIN = cffmpeg_averror(EAGAIN)
/// `AV_NOPTS_VALUE`.
public let noPTS: Int64 = cffmpeg_nopts()
