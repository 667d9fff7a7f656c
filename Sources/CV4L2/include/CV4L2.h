#ifndef CV4L2_H
#define CV4L2_H
// Placeholder: the V4L2 shim (EINTR-retrying ioctl, VIDIOC_* constants) lands with the devices work.
int cv4l2_placeholder(void);
#endif
