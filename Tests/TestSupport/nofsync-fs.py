#!/usr/bin/python3
"""A FUSE file system that keeps files in BACKING and refuses fsync/fdatasync with EIO.

For the test of a recording on a file system that cannot sync (Docs/Reliability.md).
Usage (root, Debian's python3-fusepy and fuse): nofsync-fs.py BACKING MOUNTPOINT [ERRNO]
ERRNO (default EINVAL, as file systems without sync answer) names the refusal: EIO is a
write-back failure instead.
Runs in the foreground until unmounted (fusermount -u MOUNTPOINT). Every refusal is counted in
BACKING/../fsync-refusals (one line per call).
"""
import errno
import os
import sys

import fusepy as fuse


class NoFsync(fuse.Operations):
    def __init__(self, root, log, refusal):
        self.root = root
        self.log = log
        self.refusal = refusal

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
        with open(self.log, "a") as f:
            f.write(f"{'fdatasync' if datasync else 'fsync'} {path}\n")
        raise fuse.FuseOSError(self.refusal)

    def fsyncdir(self, path, datasync, fh):
        raise fuse.FuseOSError(self.refusal)


if __name__ == "__main__":
    backing, mountpoint = sys.argv[1], sys.argv[2]
    refusal = getattr(errno, sys.argv[3] if len(sys.argv) > 3 else "EINVAL")
    log = os.path.join(os.path.dirname(os.path.abspath(backing)), "fsync-refusals")
    fuse.FUSE(NoFsync(os.path.abspath(backing), log, refusal), mountpoint, foreground=True, nothreads=True)
