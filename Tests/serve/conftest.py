import os
import shutil
import tempfile

import pytest

from client import INTERRUPTED, Server

SYNTHETIC = ["--source", "synthetic:fps=240,size=640x360,format=yuv420p", "--pre-trigger", "0.5", "--post-trigger", "0.5"]


@pytest.fixture
def scratch():
    d = tempfile.mkdtemp(prefix="slomo-serve-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def server(scratch):
    s = Server(SYNTHETIC, os.path.join(scratch, "out"), token_file=os.path.join(scratch, "token"))
    yield s
    assert s.stop() == INTERRUPTED, "slomo serve did not end with 130 on SIGINT: " + " | ".join(s.lines)


@pytest.fixture
def servers():
    """Servers a test starts itself (Server(...) appended): every one still running is killed at the
    end, so a failed test leaves no server behind to load the machine for the next ones."""
    started = []
    yield started
    for s in started:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
