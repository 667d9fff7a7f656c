// CSoundTouch: SoundTouch's C API (Debian libsoundtouch-dev ships SoundTouchDLL.h and libSoundTouchDll).
#ifndef CSOUNDTOUCH_SHIM_H
#define CSOUNDTOUCH_SHIM_H
#include <SoundTouchDLL.h>
#endif
