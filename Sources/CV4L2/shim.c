// CV4L2 shim: an EINTR-retrying ioctl and the request/control numbers Swift cannot compute.
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include "CV4L2.h"

int cv4l2_ioctl(int fd, unsigned long request, void *arg) {
    int r;
    do { r = ioctl(fd, request, arg); } while (r == -1 && errno == EINTR);
    return r;
}

const unsigned long CV4L2_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
const unsigned long CV4L2_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
const unsigned long CV4L2_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
const unsigned long CV4L2_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
const unsigned long CV4L2_VIDIOC_G_FMT = VIDIOC_G_FMT;
const unsigned long CV4L2_VIDIOC_S_FMT = VIDIOC_S_FMT;
const unsigned long CV4L2_VIDIOC_G_PARM = VIDIOC_G_PARM;
const unsigned long CV4L2_VIDIOC_S_PARM = VIDIOC_S_PARM;
const unsigned long CV4L2_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
const unsigned long CV4L2_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
const unsigned long CV4L2_VIDIOC_QBUF = VIDIOC_QBUF;
const unsigned long CV4L2_VIDIOC_DQBUF = VIDIOC_DQBUF;
const unsigned long CV4L2_VIDIOC_STREAMON = VIDIOC_STREAMON;
const unsigned long CV4L2_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
const unsigned long CV4L2_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
const unsigned long CV4L2_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
const unsigned long CV4L2_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
const unsigned long CV4L2_VIDIOC_G_INPUT = VIDIOC_G_INPUT;
const unsigned long CV4L2_VIDIOC_G_DV_TIMINGS = VIDIOC_G_DV_TIMINGS;
const unsigned long CV4L2_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
const unsigned long CV4L2_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
const unsigned long CV4L2_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
const unsigned long CV4L2_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
const unsigned long CV4L2_VIDIOC_G_SELECTION = VIDIOC_G_SELECTION;
const unsigned long CV4L2_VIDIOC_S_SELECTION = VIDIOC_S_SELECTION;
const unsigned int CV4L2_CID_EXPOSURE_AUTO = V4L2_CID_EXPOSURE_AUTO;
const unsigned int CV4L2_CID_EXPOSURE_ABSOLUTE = V4L2_CID_EXPOSURE_ABSOLUTE;
const unsigned int CV4L2_CID_EXPOSURE_AUTO_PRIORITY = V4L2_CID_EXPOSURE_AUTO_PRIORITY;
