// CFFmpeg: FFmpeg 5.1 (Debian 12) headers for Swift, plus the few macros Swift cannot import.
#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/display.h>
#include <libavutil/hmac.h>

// AVERROR(e) is a function-like macro.
static inline int cffmpeg_averror(int e) { return AVERROR(e); }
// AVERROR_EOF and AVERROR_INVALIDDATA are FFERRTAG(...) expressions Swift cannot evaluate.
static inline int cffmpeg_averror_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int cffmpeg_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int cffmpeg_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
// AV_NOPTS_VALUE is a cast expression ((int64_t)UINT64_C(0x8000000000000000)).
static inline int64_t cffmpeg_nopts(void) { return AV_NOPTS_VALUE; }
// Version checks Swift's #if cannot see.
static inline unsigned cffmpeg_avcodec_version(void) { return LIBAVCODEC_VERSION_INT; }

#endif
