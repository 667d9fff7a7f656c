// CFFmpegLoader: FFmpeg's libraries, loaded when slomo first calls into them.
#ifndef CFFMPEG_LOADER_H
#define CFFMPEG_LOADER_H

/// FFmpeg's log level (`av_log_set_level`), applied now if FFmpeg is loaded, else as soon as it is:
/// setting it must not be what loads FFmpeg.
void slomo_ffmpeg_set_log_level(int level);

#endif
