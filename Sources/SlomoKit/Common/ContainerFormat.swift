import Foundation

/// Output containers slomo writes, chosen from the file extension.
public enum ContainerFormat {
    static let byExtension: [String: String] = [
        "mp4": "mp4", "m4v": "mp4", "mov": "mov", "mkv": "matroska", "mka": "matroska", "webm": "webm", "nut": "nut",
    ]

    /// FFmpeg's muxer name for `path`'s extension. WebM only where the command can write what it
    /// holds (VP8/VP9/AV1 with Opus/Vorbis: export and retime), else it is refused here, up front.
    public static func forOutput(_ path: String, webm: Bool = false) throws(OutputError) -> String {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let f = byExtension[ext], webm || f != "webm" else {
            throw OutputError(path, .unsupportedExtension(ext, webm: webm))
        }
        return f
    }
}
