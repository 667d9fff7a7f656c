// libpng 1.6 (Debian 12: libpng-dev) for Swift. libpng reports an error by longjmp to a setjmp its
// caller made, which Swift cannot make (nor let a longjmp cross); each function here that can fail
// makes its own setjmp around one step of writing, returns 1 or 0, and leaves libpng's message in
// slomo_png_last_error().
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

/// The last message libpng's error handler gave on this thread ("" when none since the last
/// create); a function's own static, since Swift emits no storage for a header's static variable.
static inline char *slomo_png_error_buffer(void) {
    static __thread char text[256];
    return text;
}

static void slomo_png_error_handler(png_structp png, png_const_charp message) {
    snprintf(slomo_png_error_buffer(), 256, "%s", message);
    png_longjmp(png, 1);
}

/// Warnings are dropped (a wrapper reports one line itself).
static void slomo_png_warning_handler(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static inline const char *slomo_png_last_error(void) { return slomo_png_error_buffer(); }

/// png_create_write_struct with the handlers above (NULL when out of memory).
static inline png_structp slomo_png_create(void) {
    slomo_png_error_buffer()[0] = 0;
    return png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, slomo_png_error_handler, slomo_png_warning_handler);
}

/// Everything before the first row, as the caller chose it: png_init_io, png_set_IHDR (not
/// interlaced), png_set_sBIT when `significant` is given, `count` text chunks (`itxt[i]`: iTXt, UTF-8,
/// else tEXt), png_set_compression_level, png_write_info, then the row transforms: png_set_swap
/// for little-endian 16-bit rows, png_set_shift to scale samples of `significant` bits to the depth.
static inline int slomo_png_write_info(png_structp png, png_infop info, FILE *file, png_uint_32 width, png_uint_32 height, int bit_depth,
                                       int color_type, const png_color_8 *significant, int count, const char *const *keys,
                                       const char *const *texts, const int *itxt, int level, int swap) {
    png_text chunks[16];
    if (count > 16) count = 16;
    if (setjmp(png_jmpbuf(png))) return 0;
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (significant != NULL) png_set_sBIT(png, info, significant);
    for (int i = 0; i < count; i++) {
        memset(&chunks[i], 0, sizeof chunks[i]);
        chunks[i].compression = itxt[i] ? PNG_ITXT_COMPRESSION_NONE : PNG_TEXT_COMPRESSION_NONE;
        chunks[i].key = (png_charp)keys[i];
        chunks[i].text = (png_charp)texts[i];
        chunks[i].text_length = strlen(texts[i]);
    }
    if (count > 0) png_set_text(png, info, chunks, count);
    png_set_compression_level(png, level);
    png_write_info(png, info);
    if (swap) png_set_swap(png);
    if (significant != NULL) png_set_shift(png, significant);
    return 1;
}

/// png_write_row: one row of the picture.
static inline int slomo_png_write_row(png_structp png, const void *row) {
    if (setjmp(png_jmpbuf(png))) return 0;
    png_write_row(png, (png_const_bytep)row);
    return 1;
}

/// png_write_end: the chunks after the picture and IEND.
static inline int slomo_png_write_end(png_structp png, png_infop info) {
    if (setjmp(png_jmpbuf(png))) return 0;
    png_write_end(png, info);
    return 1;
}

#endif
