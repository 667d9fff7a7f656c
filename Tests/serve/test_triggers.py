"""Shots fired beside the API: `slomo serve --trigger udp://…` takes signed network messages from
`slomo trigger` (on loopback), each placed at the instant it names, only while armed."""
import datetime
import json
import os
import socket
import subprocess
import threading
from fractions import Fraction

from client import INTERRUPTED, Server, binary, calibration_index
from conftest import SYNTHETIC


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def send(port, key, at="now"):
    """`slomo trigger`; the wall-clock instant it named (seconds, exact)."""
    p = subprocess.run([binary(), "trigger", f"udp://127.0.0.1:{port}", "--trigger-key", key, "--at", at, "--json"],
                       capture_output=True, text=True, check=True)
    a = json.loads(p.stdout)["sent"][0]["at"]
    return Fraction(a["numerator"], a["denominator"])


def wall_seconds(iso):
    d = datetime.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return Fraction(int(d.timestamp())) + Fraction(d.microsecond, 1_000_000)


def test_network_trigger_beside_the_api(scratch, servers):
    key = os.path.join(scratch, "rig.key")
    with open(key, "wb") as f:
        f.write(os.urandom(32))
    port = free_udp_port()
    # a short holdoff: the messages below come well under the default half second apart
    s = Server(SYNTHETIC + ["--trigger", f"udp://127.0.0.1:{port}", "--trigger-key", key, "--trigger-holdoff", "0.01"],
               os.path.join(scratch, "out"), token_file=os.path.join(scratch, "token"))
    servers.append(s)
    c = s.client()
    assert c.status()["triggers"] == ["api", "udp"]
    got, started = [], threading.Event()
    def ignored(n):
        return lambda ev: sum(1 for name, _ in ev if name == "ignored") >= n
    reader = threading.Thread(target=lambda: c.events(got, ignored(2), timeout=60, started=started))
    reader.start()
    assert started.wait(10)

    # idle: the message fires no shot, and an `ignored` event says why
    send(port, key)
    c.wait(lambda st: any(n == "ignored" for n, _ in got), what="the ignored event")
    first = next(d for n, d in got if n == "ignored")
    assert first["source"] == "udp" and "not armed" in first["message"], first
    assert c.status()["shotsSaved"] == 0

    # armed: a message naming an instant 50 ms ago selects the frame of that instant (the ring keeps
    # a quarter second beyond the window: its pre-trigger frames are all there)
    assert c.post("/api/v1/arm").status == 200
    c.wait(lambda st: st.get("preTriggerFill") == 1, what="a full pre-trigger window")
    at = send(port, key, at="-0.05")
    c.wait(lambda st: st["shotsSaved"] == 1 and st["state"] == "idle", what="the network shot saved")
    rep = c.get("/api/v1/shots/1").json()["report"]
    assert rep["trigger"] == "udp", rep
    # the report's wall time is to the millisecond: the instant the message named, not when it came
    assert abs(wall_seconds(rep["triggerWallTime"]) - at) <= Fraction(1, 2000), (rep["triggerWallTime"], float(at))
    latency = Fraction(rep["latency"]["numerator"], rep["latency"]["denominator"])
    assert 0 <= latency < Fraction(1, 240), rep["latency"]
    assert calibration_index(c.get("/api/v1/shots/1/frames/0.jpg").body, scratch) == rep["triggerSequence"]
    assert rep["complete"] and (rep["preFrames"], rep["postFrames"]) == (120, 120), {k: rep[k] for k in ("preFrames", "postFrames", "warning", "complete")}

    # idle again: a further message is ignored, saying so
    send(port, key)
    reader.join(30)
    second = [d for n, d in got if n == "ignored"][1]
    assert "not armed" in second["message"], second
    # a message naming an instant before the arm (sent late) is not this arm's
    assert c.post("/api/v1/arm").status == 200
    c.wait(lambda st: st.get("preTriggerFill") == 1, what="armed again")
    old = []
    t = threading.Thread(target=lambda: c.events(old, lambda ev: any(n == "ignored" for n, _ in ev), timeout=30))
    t.start()
    send(port, key, at="-2")
    t.join(35)
    msg = next(d for n, d in old if n == "ignored")["message"]
    assert "before the rig was armed" in msg and c.status()["state"] == "armed", msg
    # two messages while the arm's one shot is still filling: the second is refused as taken
    taken = []
    t = threading.Thread(target=lambda: c.events(taken, lambda ev: any(n == "ignored" for n, _ in ev), timeout=30))
    t.start()
    send(port, key)
    send(port, key)
    t.join(35)
    msg = next(d for n, d in taken if n == "ignored")["message"]
    assert "taken" in msg, msg
    c.wait(lambda st: st["shotsSaved"] == 2 and st["state"] == "idle", what="the second network shot saved")
    # a message signed with another key: ignored with a warning, no shot even while armed
    other = os.path.join(scratch, "other.key")
    with open(other, "wb") as f:
        f.write(os.urandom(32))
    assert c.post("/api/v1/arm").status == 200
    c.wait(lambda st: st.get("preTriggerFill") == 1, what="armed once more")
    bad = []
    t = threading.Thread(target=lambda: c.events(bad, lambda ev: any(n == "ignored" for n, _ in ev), timeout=30))
    t.start()
    send(port, other)
    t.join(35)
    msg = next(d for n, d in bad if n == "ignored")["message"]
    assert "signature does not match" in msg and c.status()["state"] == "armed", msg
    # and the API still fires shots, named as its own
    assert c.post("/api/v1/trigger").status == 202
    c.wait(lambda st: st["shotsSaved"] == 3 and st["state"] == "idle", what="the API shot saved")
    assert c.get("/api/v1/shots/3").json()["report"]["trigger"] == "api"
    assert s.stop() == INTERRUPTED


def test_serve_refuses_triggers_it_cannot_take(scratch):
    out = os.path.join(scratch, "out")
    for trigger in ("stdin", "motion", "sound"):
        p = subprocess.run([binary(), "serve", *SYNTHETIC, "--out-dir", out, "--trigger", trigger, "--listen", "127.0.0.1:0",
                            "--token-file", os.path.join(scratch, "t")], capture_output=True, text=True, timeout=60)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 64 and len(lines) == 1 and "gpio" in lines[0] and trigger in lines[0], p.stderr
    p = subprocess.run([binary(), "serve", *SYNTHETIC, "--out-dir", out, "--trigger-key", "k", "--listen", "127.0.0.1:0",
                        "--token-file", os.path.join(scratch, "t")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 64 and "--trigger-key needs --trigger" in p.stderr, p.stderr
    # a network trigger without its key: anyone could fire it, so it is refused as capture refuses it
    p = subprocess.run([binary(), "serve", *SYNTHETIC, "--out-dir", out, "--trigger", "udp://127.0.0.1:7000", "--listen", "127.0.0.1:0",
                        "--token-file", os.path.join(scratch, "t")], capture_output=True, text=True, timeout=60)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 64 and len(lines) == 1 and "--trigger-key" in lines[0], p.stderr
    # the port is taken before the camera streams: one in use is refused at start
    busy = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    busy.bind(("127.0.0.1", 0))
    key = os.path.join(scratch, "rig.key")
    with open(key, "wb") as f:
        f.write(os.urandom(32))
    p = subprocess.run([binary(), "serve", *SYNTHETIC, "--out-dir", out, "--trigger", f"udp://127.0.0.1:{busy.getsockname()[1]}",
                        "--trigger-key", key, "--listen", "127.0.0.1:0", "--token-file", os.path.join(scratch, "t")],
                       capture_output=True, text=True, timeout=60)
    busy.close()
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 69 and len(lines) == 1 and "udp://127.0.0.1" in lines[0] and "serving" not in p.stderr, p.stderr
