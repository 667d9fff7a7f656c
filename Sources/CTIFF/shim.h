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

/// TIFFSetField for a tag of a fixed count of values, given as an array (DNGVersion: 4 bytes,
/// CFARepeatPatternDim: 2 shorts).
static inline int slomo_tiff_set_array(TIFF *tif, uint32_t tag, const void *values) { return TIFFSetField(tif, tag, values); }
/// TIFFSetField for a tag of a variable count, the count first (16-bit for libtiff's TIFF_VARIABLE
/// tags): CFAPattern and TimeCodes (bytes), BlackLevel, AsShotNeutral, ColorMatrix1 (floats), WhiteLevel (uint32).
static inline int slomo_tiff_set_counted(TIFF *tif, uint32_t tag, uint16_t count, const void *values) {
    return TIFFSetField(tif, tag, (int)count, values);
}
/// Teaches this file's libtiff CinemaDNG's TimeCodes (51043, bytes) and FrameRate (51044, one
/// SRATIONAL), which libtiff 4.5 does not know; per file, as libtiff keeps its field table per file.
static inline int slomo_tiff_register_cinemadng(TIFF *tif) {
    static const TIFFFieldInfo fields[] = {
        {51043, -1, -1, TIFF_BYTE, FIELD_CUSTOM, 1, 1, (char *)"TimeCodes"},
        {51044, 1, 1, TIFF_SRATIONAL, FIELD_CUSTOM, 1, 0, (char *)"FrameRate"},
    };
    if (TIFFFindField(tif, 51043, TIFF_ANY) != NULL) return 0;
    return TIFFMergeFieldInfo(tif, fields, 2);
}

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
