// CPOSIX GPIO shim: the GPIO character device's uAPI v2 (linux/gpio.h) behind a few plain calls.
// Why C: the requests are _IOWR(...) macros Swift cannot import, and the request structures hold
// unions and fixed arrays that are clearer filled here. No policy: SlomoSystem decides what results mean.
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/gpio.h>
#include "CPOSIX.h"

static int retry_ioctl(int fd, unsigned long req, void *arg) {
    int r;
    do { r = ioctl(fd, req, arg); } while (r == -1 && errno == EINTR);
    return r;
}

int cposix_gpio_chip_info(int chip_fd, char name[32], char label[32], unsigned int *lines) {
    struct gpiochip_info info;
    memset(&info, 0, sizeof info);
    if (retry_ioctl(chip_fd, GPIO_GET_CHIPINFO_IOCTL, &info) == -1) return -errno;
    memcpy(name, info.name, 32); name[31] = 0;
    memcpy(label, info.label, 32); label[31] = 0;
    *lines = info.lines;
    return 0;
}

int cposix_gpio_line_info(int chip_fd, unsigned int offset, char name[32], char consumer[32], int *used) {
    struct gpio_v2_line_info info;
    memset(&info, 0, sizeof info);
    info.offset = offset;
    if (retry_ioctl(chip_fd, GPIO_V2_GET_LINEINFO_IOCTL, &info) == -1) return -errno;
    memcpy(name, info.name, 32); name[31] = 0;
    memcpy(consumer, info.consumer, 32); consumer[31] = 0;
    *used = (info.flags & GPIO_V2_LINE_FLAG_USED) != 0;
    return 0;
}

int cposix_gpio_request_edges(int chip_fd, unsigned int offset, int rising, int falling,
                              unsigned int debounce_us, const char *consumer) {
    struct gpio_v2_line_request req;
    memset(&req, 0, sizeof req);
    req.offsets[0] = offset;
    req.num_lines = 1;
    req.event_buffer_size = 64;
    strncpy(req.consumer, consumer, sizeof req.consumer - 1);
    req.config.flags = GPIO_V2_LINE_FLAG_INPUT
        | (rising ? GPIO_V2_LINE_FLAG_EDGE_RISING : 0) | (falling ? GPIO_V2_LINE_FLAG_EDGE_FALLING : 0);
    if (debounce_us > 0) {
        req.config.num_attrs = 1;
        req.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_DEBOUNCE;
        req.config.attrs[0].attr.debounce_period_us = debounce_us;
        req.config.attrs[0].mask = 1;
    }
    if (retry_ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &req) == -1) return -errno;
    return req.fd;
}

int cposix_gpio_request_output(int chip_fd, unsigned int offset, int value, const char *consumer) {
    struct gpio_v2_line_request req;
    memset(&req, 0, sizeof req);
    req.offsets[0] = offset;
    req.num_lines = 1;
    strncpy(req.consumer, consumer, sizeof req.consumer - 1);
    req.config.flags = GPIO_V2_LINE_FLAG_OUTPUT;
    req.config.num_attrs = 1;
    req.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
    req.config.attrs[0].attr.values = value ? 1 : 0;
    req.config.attrs[0].mask = 1;
    if (retry_ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &req) == -1) return -errno;
    return req.fd;
}

int cposix_gpio_set_value(int line_fd, int value) {
    struct gpio_v2_line_values v = { .bits = value ? 1 : 0, .mask = 1 };
    return retry_ioctl(line_fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &v) == -1 ? -errno : 0;
}

int cposix_gpio_read_event(int line_fd, unsigned long long *timestamp_ns, int *rising, unsigned int *seqno) {
    struct gpio_v2_line_event ev;
    ssize_t n;
    do { n = read(line_fd, &ev, sizeof ev); } while (n == -1 && errno == EINTR);
    if (n == -1) return -errno;
    if (n != (ssize_t)sizeof ev) return -EIO;
    *timestamp_ns = ev.timestamp_ns;
    *rising = ev.id == GPIO_V2_LINE_EVENT_RISING_EDGE;
    *seqno = ev.line_seqno;
    return 1;
}
