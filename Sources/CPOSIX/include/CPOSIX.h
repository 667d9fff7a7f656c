// CPOSIX: what Swift's Glibc module cannot give SlomoSystem.
// Why: strerrorname_np needs _GNU_SOURCE, which Swift's Glibc module does not define, and
// RLIMIT_MEMLOCK is an enum value behind a macro that does not import.
#ifndef CPOSIX_H
#define CPOSIX_H

/// The errno's symbolic name (`ENOSPC`), or NULL when it has none (glibc's strerrorname_np).
const char *cposix_errno_name(int error);

/// RLIMIT_MEMLOCK.
extern const int CPOSIX_RLIMIT_MEMLOCK;

#endif
