"""`slomo serve` as a systemd service (Samples/systemd/slomo-serve.service, Type=notify): READY=1
once the camera's first frame has come and the server answers, STATUS lines, WATCHDOG=1 every half
WATCHDOG_USEC only while frames keep arriving (a hung camera: none), SIGTERM saves what is in flight,
says STOPPING=1 and exits 0. The protocol is checked against a listener on a NOTIFY_SOCKET of the
test's own (a datagram socket, as systemd's); the unit against `systemd-analyze verify`."""
import os
import re
import socket
import subprocess
import time

from client import ROOT, Server, binary

SOURCE = "synthetic:fps=240,size=320x240,format=gray"


class Listener:
    """A NOTIFY_SOCKET: every datagram with the time it came."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.1)
        self.messages = []

    def collect(self, seconds, until=None):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self.messages.append((time.monotonic(), self.sock.recv(65536).decode()))
            except socket.timeout:
                continue
            if until and until in self.messages[-1][1]:
                return

    def times(self, field):
        return [t for t, m in self.messages if field in m.split("\n")]

    def close(self):
        self.sock.close()


def start(scratch, servers, source, watchdog_usec, cameras=None):
    listener = Listener(scratch)
    env = {"NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": str(watchdog_usec)}
    s = Server(cameras or ["--source", source], os.path.join(scratch, "out"), token_file=os.path.join(scratch, "token"), env=env)
    servers.append(s)
    return s, listener


def test_ready_status_watchdog_and_a_clean_stop(scratch, servers):
    s, listener = start(scratch, servers, SOURCE, 400_000)
    listener.collect(30, until="READY=1")
    ready = listener.times("READY=1")
    assert ready, "no READY=1: %r | %s" % (listener.messages, " | ".join(s.lines))
    first = next(m for t, m in listener.messages if "READY=1" in m)
    assert "MAINPID=%d" % s.proc.pid in first, first
    # the server answered before READY: it printed its URL, and /api/v1/status answers now
    assert s.port and s.client().get("/api/v1/status").status == 200
    listener.collect(3)
    pings = [t for t in listener.times("WATCHDOG=1") if t > ready[0]]
    # every 0.2 s while frames arrive: about 15 in 3 s; at least a third of them on a loaded machine
    assert len(pings) >= 5, "WATCHDOG=1 pings in 3 s: %d (%r)" % (len(pings), listener.messages)
    statuses = [m for _, m in listener.messages if m.startswith("STATUS=") or "\nSTATUS=" in m]
    assert any(re.search(r"STATUS=idle, \d+ fps, 0 shots saved, \d+ dropped", m) for m in statuses), statuses
    # systemctl stop: SIGTERM, STOPPING=1, exit 0
    code = s.stop(15)
    listener.collect(1)
    assert code == 0, "exit %s after SIGTERM: %s" % (code, " | ".join(s.lines))
    assert listener.times("STOPPING=1"), listener.messages
    assert any("stopped (SIGTERM)" in line for line in s.lines), s.lines
    listener.close()


def ready_then_no_pings(s, listener):
    """READY=1 comes (a frame did), then no WATCHDOG=1 from a second after it on."""
    listener.collect(30, until="READY=1")
    ready = listener.times("READY=1")
    assert ready, "no READY=1: %r | %s" % (listener.messages, " | ".join(s.lines))
    listener.collect(3)
    late = [t for t in listener.times("WATCHDOG=1") if t > ready[0] + 1.0]
    assert not late, "WATCHDOG=1 with a hung camera: %d pings (%r)" % (len(late), listener.messages)


def test_a_hung_camera_stops_the_pings(scratch, servers):
    # the synthetic camera hangs after 0.5 s (still open, giving no frame): READY comes (a frame did),
    # then no WATCHDOG=1, so systemd would restart the service after WatchdogSec
    s, listener = start(scratch, servers, SOURCE + ",stall-after=120", 400_000)
    ready_then_no_pings(s, listener)
    # the server itself still answers: it is the frames that stopped
    before = s.client().get("/api/v1/status").json()["framesCaptured"]
    time.sleep(0.5)
    assert before == s.client().get("/api/v1/status").json()["framesCaptured"] <= 120
    s.stop(15)
    listener.close()


def test_one_hung_camera_of_two_stops_the_pings(scratch, servers):
    # a rig of two: the second camera hangs after 0.5 s while the first streams on; the frames the
    # rig counts still rise, but one camera gives none, so the watchdog is not pinged
    s, listener = start(scratch, servers, None, 400_000, cameras=[SOURCE, SOURCE.replace("320x240", "160x120") + ",stall-after=120"])
    ready_then_no_pings(s, listener)
    st = s.client().get("/api/v1/status").json()
    assert st["cameras"][0]["framesCaptured"] > 240 and st["cameras"][1]["framesCaptured"] <= 120, st["cameras"]
    s.stop(15)
    listener.close()


def test_the_sample_unit_verifies(tmp_path):
    """systemd-analyze verify: the unit's syntax, its ExecStart executable and its man page."""
    unit = open(os.path.join(ROOT, "Samples", "systemd", "slomo-serve.service")).read()
    assert "Type=notify" in unit and "WatchdogSec=" in unit
    (tmp_path / "slomo-serve.service").write_text(unit.replace("/usr/bin/slomo", binary()))
    (tmp_path / "man" / "man1").mkdir(parents=True)
    os.symlink(os.path.join(ROOT, "Docs", "man", "slomo.1"), tmp_path / "man" / "man1" / "slomo.1")
    r = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "slomo-serve.service")], capture_output=True, text=True,
                       env=dict(os.environ, MANPATH=str(tmp_path / "man")))
    assert r.returncode == 0 and not r.stdout.strip() and not r.stderr.strip(), r.stdout + r.stderr
