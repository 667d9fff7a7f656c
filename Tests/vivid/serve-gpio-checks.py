"""Runs INSIDE the test machine (from gpio-checks.sh, loopback up): `slomo serve --trigger gpio:…`
on vivid with gpio-sim: an edge while idle fires no shot (an `ignored` event says why); armed, an
edge fires one, placed at the kernel's timestamp of the edge. Prints "CHECK name value" lines.
  python3 serve-gpio-checks.py DEVICE OUT_DIR CHIP LINE PULL_PATH"""
import os
import sys
import threading
import time
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "serve"))
sys.path.insert(0, HERE)
from client import Server  # noqa: E402
from recording import is_frame_of  # noqa: E402

dev, out, chip, line, pull = sys.argv[1:6]


def edge(direction="pull-up"):
    """Drives the line; CLOCK_MONOTONIC read just before and after the write (ns)."""
    with open(pull, "w") as f:
        t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC); f.write(direction); f.flush(); t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    return t0, t1


s = Server([dev, "--pre-trigger", "0.3", "--post-trigger", "0.2", "--trigger", f"gpio:{chip}:{line}",
            "--trigger-out", f"gpio:{chip}:2,pulse=20",
            "--trigger-holdoff", "0.05"],
           os.path.join(out, "serve-gpio"), token_file=os.path.join(out, "serve-gpio-token"))
try:
    c = s.client()
    st = c.wait(lambda st: st["state"] == "idle" and st["framesCaptured"] > 10, what="vivid streaming")
    got, started = [], threading.Event()
    armed = lambda ev: any(n == "state" and d.get("state") == "armed" for n, d in ev)
    reader = threading.Thread(target=lambda: c.events(got, armed, timeout=60, started=started))
    reader.start()
    assert started.wait(10), "no event stream"
    # idle: a rising edge fires no shot (one `ignored` event); the falling edge is not a trigger at all
    edge("pull-up"); time.sleep(0.3); edge("pull-down"); time.sleep(0.5)
    shots_idle = c.status()["shotsSaved"]
    # armed: the edge is the shot's instant, its trigger frame the frame of that instant
    assert c.post("/api/v1/arm").status == 200
    reader.join(65)
    ignored = [d for n, d in got if n == "ignored"]
    print("CHECK serve_gpio_idle", len(ignored), ignored[0]["source"] if ignored else "-",
          "not armed" in ignored[0]["message"] if ignored else False, shots_idle, flush=True)
    c.wait(lambda st: st.get("preTriggerFill") == 1, what="a full window")
    t0, t1 = edge("pull-up")
    c.wait(lambda st: st["shotsSaved"] == 1 and st["state"] == "idle", what="the shot saved")
    edge("pull-down")
    rep = c.get("/api/v1/shots/1").json()["report"]
    e = Fraction(rep["triggerTime"]["numerator"], rep["triggerTime"]["denominator"])
    inside = Fraction(t0, 10**9) - Fraction(1, 10**6) <= e <= Fraction(t1, 10**9)
    out = rep.get("triggerOut") or {}
    print("CHECK serve_gpio_shot", rep["trigger"], inside, is_frame_of(rep, e), rep["framesWritten"] > 0,
          out.get("line", "-").startswith(f"gpio:{chip}:2"), flush=True)
finally:
    print("CHECK serve_gpio_rc", s.stop(), flush=True)
