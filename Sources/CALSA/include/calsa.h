// ALSA's PCM and control API (libasound2-dev). Only non-variadic functions are called from Swift;
// the *_alloca macros are replaced by the *_malloc/*_free pairs.
#include <alsa/asoundlib.h>

// Routes libasound's own error printing (which writes "ALSA lib …" lines to stderr) to nowhere:
// slomo reports each failure itself, in one line. The handler is variadic, so it lives in C.
void calsa_quiet_errors(void);
