import Foundation
import SlomoCore
import SlomoFFmpeg

/// Opening an input file, for every command that reads media (export, retime, play, stretch,
/// plan, probe): the usual mistakes caught with a clear line before FFmpeg gets a chance to be
/// vague, FFmpeg's "invalid data" put in words, and the sentences that name damage found while
/// reading, so that every command describes a damaged input alike.
public enum MediaInput {
    /// Clear errors for the usual mistakes before FFmpeg gets a chance to be vague.
    public static func checkInput(_ path: String) throws(InputError) {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw InputError(path, .media, .missing)
        }
        if isDir.boolValue { throw InputError(path, .media, .isDirectory) }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw InputError(path, .media, .notReadable)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if size == 0 { throw InputError(path, .media, .empty) }
    }

    /// Opens `path`, turning FFmpeg's "invalid data" into a sentence a user understands.
    /// A format whose images carry stored times (a Phantom .cine) gets them (``StoredFrameTimes``).
    /// A Photron .mraw is read with the .cihx beside it (``MRAWInput``).
    public static func openInput(_ path: String) throws -> Demuxer {
        if MRAWInput.isMRAW(path) { return try MRAWInput.open(path) }
        let d = try openFFmpegInput(path)
        try StoredFrameTimes.readOnce(path, format: d.formatName)?.apply(to: d, path: path)
        return d
    }

    static func openFFmpegInput(_ path: String) throws(FFmpegError) -> Demuxer {
        let result: Result<Demuxer, FFmpegError>
        do { result = .success(try Demuxer(path: path)) } catch { result = .failure(error) }
        switch result {
        case .success(let d) where d.formatName == "tty":
            // FFmpeg's tty demuxer takes any text as ANSI art (a `.txt` listing "plays"): not media here
            throw FFmpegError(
                path: path, operation: "open", message: "not a media file FFmpeg can read, or its header is damaged (text, read only as ANSI art)",
                category: .invalidData)
        case .success(let d): return d
        case .failure(let e) where e.category == .invalidData:
            throw FFmpegError(
                path: path, operation: "open", message: "not a media file FFmpeg can read, or its header is damaged (\(e.operation): \(e.text))",
                category: .invalidData)
        case .failure(let e): throw e
        }
    }

    /// The damage sentence for video packets the decoder refused; nil for none.
    public static func undecodable(_ count: Int) -> String? { count > 0 ? "\(count) video packets failed to decode" : nil }

    /// The index (MP4's sample table) promises more video frames than the file holds.
    public static func truncatedIndex(declared: Int64?, present: Int64) -> String? {
        guard let declared, declared > present else { return nil }
        return "truncated: the index declares \(declared) video frames, only \(present) are present"
    }

    /// A stream's data ends well before the container's declared duration (over 0.5 s and 10 %).
    public static func truncatedData(kind: String, end: Rational?, declared total: Rational?) -> String? {
        guard let end, let total else { return nil }
        let missing = total - end
        guard missing > Rational(1, 2) && missing * Rational(10) > total else { return nil }
        return "truncated: \(kind) data ends at \(Seconds(end)) s of \(Seconds(total)) s"
    }
}
