// CPOSIX shim: errno names and a limit number (see CPOSIX.h for why).
#define _GNU_SOURCE
#include <string.h>
#include <sys/resource.h>
#include "CPOSIX.h"

const char *cposix_errno_name(int error) {
    return strerrorname_np(error);   // glibc >= 2.32 (Debian 12 has 2.36)
}

const int CPOSIX_RLIMIT_MEMLOCK = RLIMIT_MEMLOCK;

#include <pthread.h>
int cposix_name_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);   // _GNU_SOURCE, like strerrorname_np
}
