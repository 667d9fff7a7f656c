// slomo does not link FFmpeg: Debian's libavformat and libavfilter pull in about 180 shared
// libraries whose loading and initialisers cost 50-70 ms at every start, which is most of the time
// of `slomo --version`, `probe` or a short `stretch`. Instead each FFmpeg function slomo calls is
// defined here (functions.inc, generated from FFmpeg's headers) as a small forwarder that opens the
// library on first use, looks the function up once and calls it. The compiler checks each
// definition against FFmpeg's declaration, so a wrong signature does not build.
// Why, and the measurements: Docs/Architecture.md, "Loading FFmpeg".
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
// An executable exports only what a library linked with it refers to, and no FFmpeg library is
// linked, so these definitions stay slomo's own: libavformat's calls into libavcodec go straight there.
#include "../CFFmpeg/shim.h"
#include "CFFmpegLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

enum { AVUTIL, AVCODEC, AVFORMAT, AVFILTER, SWRESAMPLE, SWSCALE, LIBRARY_COUNT };

// The sonames these headers were written for: a library of another major version is another ABI.
static const char *const sonames[LIBRARY_COUNT] = {
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    "libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR),
    "libswresample.so." AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
};
static void *handles[LIBRARY_COUNT];
// Set by FFmpegLog.configure, in the CLI before any thread starts, but in a test process from many
// threads at once (ThreadSanitizer found the plain ints racing): atomics, the level before the flag.
static int log_level, log_level_set;

// Without the library there is nothing slomo can do for this command; the forwarder cannot return
// an error of the right type to its caller, so it ends the process (exit 69, EX_UNAVAILABLE) with
// the library, the function and dlerror's cause, and how to install it.
__attribute__((noreturn)) static void unavailable(int library, const char *function, const char *cause) {
    fprintf(stderr, "slomo: error: cannot load %s for %s: %s (install it with scripts/dev.sh deps, "
                    "or apt-get install the FFmpeg 5.1 libraries)\n",
            sonames[library], function, cause ? cause : "unknown cause");
    exit(69);
}

// Two threads may both look up the same function for the first time; both find the same address,
// and dlopen of an open library only counts a reference, so the race is harmless.
static void *slomo_ffmpeg_function(int library, const char *name) {
    void *handle = __atomic_load_n(&handles[library], __ATOMIC_SEQ_CST);
    if (!handle) {
        handle = dlopen(sonames[library], RTLD_NOW | RTLD_LOCAL);
        if (!handle) unavailable(library, name, dlerror());
        // sequentially consistent with set_log_level's flag store and handle loads: one of the two
        // threads always sees the other's write, so the level is never lost
        __atomic_store_n(&handles[library], handle, __ATOMIC_SEQ_CST);
        // every FFmpeg library depends on libavutil, where the log level lives
        void (*set_level)(int) = (void (*)(int))dlsym(handle, "av_log_set_level");
        if (__atomic_load_n(&log_level_set, __ATOMIC_SEQ_CST) && set_level) set_level(__atomic_load_n(&log_level, __ATOMIC_SEQ_CST));
    }
    void *function = dlsym(handle, name);
    if (!function) unavailable(library, name, dlerror());
    return function;
}

static int loaded_library_count(void) {
    int count = 0;
    for (int i = 0; i < LIBRARY_COUNT; i++) count += __atomic_load_n(&handles[i], __ATOMIC_SEQ_CST) != NULL;
    return count;
}

void slomo_ffmpeg_set_log_level(int level) {
    __atomic_store_n(&log_level, level, __ATOMIC_SEQ_CST);
    __atomic_store_n(&log_level_set, 1, __ATOMIC_SEQ_CST);
    if (loaded_library_count() > 0) av_log_set_level(level);
}

#define SLOMO_FFMPEG_LOOKUP(library, name)                                                   \
    static __typeof__(&name) cached;                                                         \
    __typeof__(&name) function = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);                 \
    if (!function) {                                                                         \
        function = (__typeof__(&name))slomo_ffmpeg_function(library, #name);                 \
        __atomic_store_n(&cached, function, __ATOMIC_RELEASE);                               \
    }
#define SLOMO_FFMPEG_VALUE(library, name, type, parameters, arguments) \
    type name parameters { SLOMO_FFMPEG_LOOKUP(library, name) return function arguments; }
#define SLOMO_FFMPEG_VOID(library, name, type, parameters, arguments) \
    void name parameters { SLOMO_FFMPEG_LOOKUP(library, name) function arguments; }

#include "functions.inc"
