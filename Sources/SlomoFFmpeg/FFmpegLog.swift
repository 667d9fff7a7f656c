internal import CFFmpeg
internal import CFFmpegLoader

/// FFmpeg's own log (`av_log_set_level`). slomo reports failures itself, one line each, so
/// FFmpeg's chatter is off unless asked for (`SLOMO_FFMPEG_LOG=warning|info|debug`). Encoders that
/// log past FFmpeg follow the same setting: SVT-AV1 here (its `SVT_LOG`, read when it starts, set
/// before any thread runs), x265 in `Encoder` (`log-level`).
public enum FFmpegLog {
    public static func configure(environment: [String: String]) {
        let level: Int32
        switch environment["SLOMO_FFMPEG_LOG"] {
        case "error": level = AV_LOG_ERROR
        case "warning": level = AV_LOG_WARNING
        case "info": level = AV_LOG_INFO
        case "debug": level = AV_LOG_DEBUG
        default: level = AV_LOG_QUIET
        }
        slomo_ffmpeg_set_log_level(level)  // without loading FFmpeg if this command never needs it
        if level < AV_LOG_INFO { setenv("SVT_LOG", "1", 0) }  // errors only; a user's SVT_LOG wins
    }
}
