// CV4L2: the few things Swift cannot take from <linux/videodev2.h> directly.
#ifndef CV4L2_H
#define CV4L2_H
#include <linux/videodev2.h>

// ioctl with a fixed signature, retried on EINTR. Returns 0 or -1 with errno set.
// (v4l2_ioctl is variadic and unusable from Swift; the VIDIOC_* macros are _IOWR(...) expressions.)
int cv4l2_ioctl(int fd, unsigned long request, void *arg);

// The VIDIOC_* request numbers (function-like macros in the header).
extern const unsigned long CV4L2_VIDIOC_QUERYCAP;
extern const unsigned long CV4L2_VIDIOC_ENUM_FMT;
extern const unsigned long CV4L2_VIDIOC_ENUM_FRAMESIZES;
extern const unsigned long CV4L2_VIDIOC_ENUM_FRAMEINTERVALS;
extern const unsigned long CV4L2_VIDIOC_G_FMT;
extern const unsigned long CV4L2_VIDIOC_S_FMT;
extern const unsigned long CV4L2_VIDIOC_G_PARM;
extern const unsigned long CV4L2_VIDIOC_S_PARM;
extern const unsigned long CV4L2_VIDIOC_REQBUFS;
extern const unsigned long CV4L2_VIDIOC_QUERYBUF;
extern const unsigned long CV4L2_VIDIOC_QBUF;
extern const unsigned long CV4L2_VIDIOC_DQBUF;
extern const unsigned long CV4L2_VIDIOC_STREAMON;
extern const unsigned long CV4L2_VIDIOC_STREAMOFF;
extern const unsigned long CV4L2_VIDIOC_G_CTRL;
extern const unsigned long CV4L2_VIDIOC_S_CTRL;
extern const unsigned long CV4L2_VIDIOC_QUERYCTRL;
extern const unsigned long CV4L2_VIDIOC_G_INPUT;
extern const unsigned long CV4L2_VIDIOC_G_DV_TIMINGS;

// Control ids built from class bases (macro arithmetic).
extern const unsigned int CV4L2_CID_EXPOSURE_AUTO;
extern const unsigned int CV4L2_CID_EXPOSURE_ABSOLUTE;
extern const unsigned int CV4L2_CID_EXPOSURE_AUTO_PRIORITY;
#endif
