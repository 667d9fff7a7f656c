// CPOSIX: what Swift's Glibc module cannot give SlomoSystem.
// Why: strerrorname_np needs _GNU_SOURCE, which Swift's Glibc module does not define, and
// RLIMIT_MEMLOCK is an enum value behind a macro that does not import.
#ifndef CPOSIX_H
#define CPOSIX_H

/// The errno's symbolic name (`ENOSPC`), or NULL when it has none (glibc's strerrorname_np).
/// Names the calling thread (pthread_setname_np: at most 15 bytes); 0 or an errno.
int cposix_name_thread(const char *name);

const char *cposix_errno_name(int error);

/// RLIMIT_MEMLOCK.
extern const int CPOSIX_RLIMIT_MEMLOCK;

// The GPIO character device, uAPI v2 (Linux >= 5.10): chip and line information, one line
// requested for edge events (with the kernel's debounce) or as an output, events read with their
// kernel CLOCK_MONOTONIC timestamps. Each returns 0 (or a descriptor, or 1) or -errno.
// Why: the GPIO_* requests are _IOWR(...) macros Swift cannot import.
int cposix_gpio_chip_info(int chip_fd, char name[32], char label[32], unsigned int *lines);
int cposix_gpio_line_info(int chip_fd, unsigned int offset, char name[32], char consumer[32], int *used);
int cposix_gpio_request_edges(int chip_fd, unsigned int offset, int rising, int falling,
                              unsigned int debounce_us, const char *consumer);
int cposix_gpio_request_output(int chip_fd, unsigned int offset, int value, const char *consumer);
int cposix_gpio_set_value(int line_fd, int value);
int cposix_gpio_read_event(int line_fd, unsigned long long *timestamp_ns, int *rising, unsigned int *seqno);

#endif
