#!/usr/bin/python3
"""A FUSE file system that keeps files in BACKING and refuses fsync/fdatasync with EIO, or a
disk slower than a camera.

For the test of a recording on a file system that cannot sync (Docs/Reliability.md), and of
takes held in RAM while a slow disk saves them (Docs/Capture.md).
Usage (root, Debian's python3-fusepy and fuse): nofsync-fs.py BACKING MOUNTPOINT [ERRNO [RATE]]
ERRNO (default EINVAL, as file systems without sync answer) names the refusal: EIO is a
write-back failure instead; "none" syncs. RATE (bytes a second): writes are held back so that
no more than that goes in over any stretch (a throttled disk); 0 or absent: as fast as it goes.
Runs in the foreground until unmounted (fusermount -u MOUNTPOINT). Every refusal is counted in
BACKING/../fsync-refusals (one line per call).
"""
import errno
import os
import sys
import time

import fusepy as fuse


class NoFsync(fuse.Operations):
    def __init__(self, root, log, refusal, rate=0):
        self.root = root
        self.log = log
        self.refusal = refusal
        self.rate = rate
        self.free_at = time.monotonic()  # when the throttled disk has taken everything so far

    def _p(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def getattr(self, path, fh=None):
        st = os.lstat(self._p(path))
        return {k: getattr(st, k) for k in ("st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime",
                                            "st_nlink", "st_size", "st_uid")}

    def access(self, path, mode):
        if not os.access(self._p(path), mode):
            raise fuse.FuseOSError(errno.EACCES)

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._p(path))

    def statfs(self, path):
        st = os.statvfs(self._p(path))
        return {k: getattr(st, k) for k in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail",
                                            "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")}

    def chmod(self, path, mode):
        os.chmod(self._p(path), mode)

    def chown(self, path, uid, gid):
        os.chown(self._p(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self._p(path), times)

    def mkdir(self, path, mode):
        os.mkdir(self._p(path), mode)

    def rmdir(self, path):
        os.rmdir(self._p(path))

    def unlink(self, path):
        os.unlink(self._p(path))

    def rename(self, old, new):
        os.rename(self._p(old), self._p(new))

    def link(self, target, name):
        os.link(self._p(name), self._p(target))

    def open(self, path, flags):
        return os.open(self._p(path), flags)

    def create(self, path, mode, fi=None):
        return os.open(self._p(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        if self.rate > 0:
            # the disk takes len(data) / rate seconds after it is free; a writer waits for that
            self.free_at = max(self.free_at, time.monotonic()) + len(data) / self.rate
            wait = self.free_at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        if fh is not None:
            os.ftruncate(fh, length)
        else:
            os.truncate(self._p(path), length)

    def flush(self, path, fh):
        return 0

    def release(self, path, fh):
        os.close(fh)

    def fsync(self, path, datasync, fh):
        if self.refusal is None:
            return os.fdatasync(fh) if datasync else os.fsync(fh)
        with open(self.log, "a") as f:
            f.write(f"{'fdatasync' if datasync else 'fsync'} {path}\n")
        raise fuse.FuseOSError(self.refusal)

    def fsyncdir(self, path, datasync, fh):
        if self.refusal is None:
            return 0
        raise fuse.FuseOSError(self.refusal)


if __name__ == "__main__":
    backing, mountpoint = sys.argv[1], sys.argv[2]
    name = sys.argv[3] if len(sys.argv) > 3 else "EINVAL"
    refusal = None if name == "none" else getattr(errno, name)
    rate = float(sys.argv[4]) if len(sys.argv) > 4 else 0
    log = os.path.join(os.path.dirname(os.path.abspath(backing)), "fsync-refusals")
    fuse.FUSE(NoFsync(os.path.abspath(backing), log, refusal, rate), mountpoint, foreground=True, nothreads=True, big_writes=True,
              max_write=1 << 20)
