"""Runs INSIDE the test machine (from checks.sh): a `slomo serve` rig of two cameras, the real
vivid driver and the synthetic camera at the same rate, one trigger for both; then vivid vanishes
and the rig goes on with the other camera. Prints "CHECK name value" lines.
  python3 serve-cameras-checks.py DEVICE OUT_DIR"""
import os
import subprocess
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
from client import Server  # noqa: E402

dev, out = sys.argv[1], sys.argv[2]
SYNTHETIC = "synthetic:fps=60,size=320x180,format=yuyv"


def say(name, *values):
    print("CHECK", name, *values, flush=True)


def frac(r):
    return Fraction(r["numerator"], r["denominator"])


def shoot(c):
    c.wait(lambda st: st["state"] == "idle", what="idle")
    c.post("/api/v1/arm")
    c.wait(lambda st: st.get("preTriggerFill") == 1, what="a full window")
    t = frac(c.post("/api/v1/trigger").json()["time"])
    c.wait(lambda st: st["state"] == "idle", timeout=60, what="the shot saved")
    return t


s = Server([dev, SYNTHETIC, "--format", "YUYV", "--size", "320x180", "--fps", "60", "--pre-trigger", "0.25", "--post-trigger", "0.25"],
           os.path.join(out, "serve-cameras"), token_file=os.path.join(out, "serve-token"))
try:
    c = s.client()
    st = c.wait(lambda st: all(k["framesCaptured"] > 10 for k in st.get("cameras", [])), what="both cameras streaming")
    say("cams_idle", *[f'{k["camera"]}:{k["name"]}:{k["state"]}' for k in st["cameras"]])
    t = shoot(c)
    shot = c.get("/api/v1/shots/1").json()
    # each camera's trigger frame is at or after the one instant, within a few of its frames (the
    # emulated VM's vivid drops frames of its own)
    late = [frac(k["report"]["triggerFrameTime"]) - t for k in shot["cameras"]]
    say("cams_shot", *[k["file"] for k in shot["cameras"]], all(Fraction(0) <= x < Fraction(4, 60) for x in late),
        all(k["frames"] > 20 for k in shot["cameras"]))
    # vivid vanishes: its state says so, the synthetic camera goes on, and the rig still shoots
    subprocess.run(["v4l2-ctl", "-d", dev, "-c", "disconnect=1"], check=False)
    st = c.wait(lambda st: st["cameras"][0]["state"] == "lost", timeout=30, what="vivid's loss seen")
    say("cams_lost", st["state"], st["cameras"][0]["state"], "disconnect" in (st["cameras"][0].get("message") or ""), st["cameras"][1]["state"])
    shoot(c)
    say("cams_after", [k["camera"] for k in c.get("/api/v1/shots/2").json()["cameras"]] == [2])
finally:
    say("cams_exit", s.stop())
