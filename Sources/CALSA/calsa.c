#include "calsa.h"

static void calsa_ignore(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void calsa_quiet_errors(void) { snd_lib_error_set_handler(calsa_ignore); }
