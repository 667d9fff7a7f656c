#!/usr/bin/env python3
"""A serve rig of several cameras, measured: N events (arm, trigger, saved) and, for each, how late
each camera's trigger frame is after the trigger's instant and how far apart the cameras' trigger
frames are (the shot's triggerFrameSpreadMs), beside the frames each camera and slomo dropped.

  bench/serve/cameras.py [--events 10] [--json FILE] CAM1 CAM2 … [-- SERVE OPTIONS]

e.g. bench/serve/cameras.py synthetic:fps=240,size=640x360,format=yuv420p synthetic:fps=240,size=320x240,format=gray
For GenICam cameras run it inside a network namespace with Aravis's fake cameras (as
Tests/SlomoCLITests/GenICamServeTests.swift does). SLOMO_BIN: the binary (default .build/debug/slomo)."""
import argparse
import json
import os
import statistics
import sys
import tempfile
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "serve"))
from client import Server  # noqa: E402


def frac(r):
    return Fraction(r["numerator"], r["denominator"])


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, default=10)
    ap.add_argument("--json")
    ap.add_argument("cameras", nargs="+")
    a = ap.parse_args(argv)
    d = tempfile.mkdtemp(prefix="slomo-cameras-")
    s = Server([*a.cameras, "--pre-trigger", "0.25", "--post-trigger", "0.25", *extra], os.path.join(d, "out"),
               token_file=os.path.join(d, "token"))
    try:
        c = s.client()
        c.wait(lambda st: all(k.get("achievedFps") for k in st.get("cameras", [])), what="every camera streaming")
        events = []
        for n in range(1, a.events + 1):
            c.wait(lambda st: st["state"] == "idle", what="idle")
            c.post("/api/v1/arm")
            c.wait(lambda st: st.get("preTriggerFill") == 1, what="the window full")
            t = frac(c.post("/api/v1/trigger").json()["time"])
            c.wait(lambda st: st["state"] == "idle", what="saved")
            shot = c.get(f"/api/v1/shots/{n}").json()
            late = [float((frac(k["report"]["triggerFrameTime"]) - t) * 1000) for k in shot["cameras"]]
            gaps = [k["report"]["sequenceGaps"] for k in shot["cameras"]]
            events.append({"event": n, "spreadMs": shot["triggerFrameSpreadMs"], "lateMs": late, "gaps": gaps,
                           "complete": all(k["complete"] for k in shot["cameras"])})
        st = c.status()
    finally:
        s.stop()
    spreads = [e["spreadMs"] for e in events]
    out = {
        "cameras": [{"name": k["name"], "fps": k["nominalFrameRate"], "frames": k["framesCaptured"],
                     "droppedByCamera": k["droppedByDriver"], "droppedBySlomo": k["droppedBySlomo"]} for k in st["cameras"]],
        "events": events,
        "spreadMs": {"median": statistics.median(spreads), "max": max(spreads)},
        "everyShotComplete": all(e["complete"] for e in events),
    }
    for k in out["cameras"]:
        print(f'{k["name"]}: {k["frames"]} frames, dropped {k["droppedByCamera"]} by the camera, {k["droppedBySlomo"]} by slomo')
    for e in events:
        print(f'event {e["event"]}: trigger frames {", ".join("%.3f" % x for x in e["lateMs"])} ms after the instant, '
              f'spread {e["spreadMs"]} ms, gaps {e["gaps"]}')
    print(f'spread: median {out["spreadMs"]["median"]} ms, max {out["spreadMs"]["max"]} ms; every shot complete: {out["everyShotComplete"]}')
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
