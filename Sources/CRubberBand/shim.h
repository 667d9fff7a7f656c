// CRubberBand: Rubber Band's C API (Debian librubberband-dev, 3.1: R2 "faster" and R3 "finer" engines).
#ifndef CRUBBERBAND_SHIM_H
#define CRUBBERBAND_SHIM_H
#include <rubberband/rubberband-c.h>
#endif
