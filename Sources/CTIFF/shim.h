// libtiff 4.5 (Debian 12: libtiff-dev) for Swift. TIFFSetField is variadic, which Swift cannot
// call, and libtiff reports errors through a printf-style handler; each wrapper here does one such call.
#ifndef CTIFF_SHIM_H
#define CTIFF_SHIM_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tiffio.h>

/// TIFFSetField for a tag of one 16-bit value (BitsPerSample, Photometric…). Returns 1 on success.
static inline int slomo_tiff_set_u16(TIFF *tif, uint32_t tag, uint16_t value) { return TIFFSetField(tif, tag, value); }
/// TIFFSetField for a tag of one 32-bit value (ImageWidth, RowsPerStrip…).
static inline int slomo_tiff_set_u32(TIFF *tif, uint32_t tag, uint32_t value) { return TIFFSetField(tif, tag, value); }
/// TIFFSetField for an ASCII tag (ImageDescription, Software, DateTime…).
static inline int slomo_tiff_set_string(TIFF *tif, uint32_t tag, const char *value) { return TIFFSetField(tif, tag, value); }
/// TIFFSetField for a RATIONAL tag, which libtiff takes as a double (XResolution, YResolution).
static inline int slomo_tiff_set_rational(TIFF *tif, uint32_t tag, double value) { return TIFFSetField(tif, tag, (float)value); }

/// The last message libtiff's error handler gave on this thread ("" when none since the last clear);
/// a function's own static, since Swift emits no storage for a header's static variable.
static inline char *slomo_tiff_error_buffer(void) {
    static __thread char text[512];
    return text;
}

static void slomo_tiff_error_handler(const char *module, const char *fmt, va_list ap) {
    char text[400];
    vsnprintf(text, sizeof text, fmt, ap);
    if (module != NULL) snprintf(slomo_tiff_error_buffer(), 512, "%s: %s", module, text);
    else snprintf(slomo_tiff_error_buffer(), 512, "%s", text);
}

/// Sends libtiff's errors into `slomo_tiff_error` instead of stderr and drops its warnings (a
/// wrapper reports one line itself). Idempotent.
static inline void slomo_tiff_install_handlers(void) {
    TIFFSetErrorHandler(slomo_tiff_error_handler);
    TIFFSetWarningHandler(NULL);
}

static inline const char *slomo_tiff_last_error(void) { return slomo_tiff_error_buffer(); }
static inline void slomo_tiff_clear_error(void) { slomo_tiff_error_buffer()[0] = 0; }

#endif
