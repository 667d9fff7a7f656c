// CV4L2: the few things Swift cannot take from <linux/videodev2.h> directly.
// No policy lives here: SlomoV4L2 decides what every result means.
#ifndef CV4L2_H
#define CV4L2_H
#include <linux/videodev2.h>

// ioctl with a fixed signature, retried on EINTR. Returns 0 or -1 with errno set.
// Why: ioctl/v4l2_ioctl are variadic (unusable from Swift) and EINTR must never reach callers.
int cv4l2_ioctl(int fd, unsigned long request, void *arg);

// The VIDIOC_* request numbers. Why: they are _IOR/_IOWR(...) function-like macros.
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
extern const unsigned long CV4L2_VIDIOC_QUERY_EXT_CTRL;
extern const unsigned long CV4L2_VIDIOC_QUERYMENU;
extern const unsigned long CV4L2_VIDIOC_G_EXT_CTRLS;
extern const unsigned long CV4L2_VIDIOC_S_EXT_CTRLS;
extern const unsigned long CV4L2_VIDIOC_G_SELECTION;
extern const unsigned long CV4L2_VIDIOC_S_SELECTION;

// Control ids. Why: they are sums of class bases (V4L2_CID_CAMERA_CLASS_BASE + n), which Swift does not import.
extern const unsigned int CV4L2_CID_EXPOSURE_AUTO;
extern const unsigned int CV4L2_CID_EXPOSURE_ABSOLUTE;
// UVC names it "exposure_auto_priority" (older kernels) or "exposure_dynamic_framerate" (newer): one id.
extern const unsigned int CV4L2_CID_EXPOSURE_AUTO_PRIORITY;
#endif
