"""Runs INSIDE the test machine (from checks.sh): `slomo serve` on the real vivid driver, driven
through its API on loopback (Tests/serve/client.py). Prints "CHECK name value" lines.
  python3 serve-checks.py DEVICE OUT_DIR"""
import json
import os
import subprocess
import sys
import time
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
from client import Server, mjpeg_parts  # noqa: E402

dev, out = sys.argv[1], sys.argv[2]


def say(name, *values):
    print("CHECK", name, *values, flush=True)


s = Server([dev, "--format", "YUYV", "--size", "320x180", "--pre-trigger", "0.5", "--post-trigger", "0.5"],
           os.path.join(out, "serve"), token_file=os.path.join(out, "serve-token"))
try:
    c = s.client()
    st = c.wait(lambda st: st["state"] == "idle" and st["framesCaptured"] > 10, what="vivid streaming")
    fps = st["nominalFrameRate"]["numerator"] / st["nominalFrameRate"]["denominator"]
    say("serve_idle", st["camera"], st["format"]["fourcc"], st["format"]["width"], st["format"]["height"], round(fps))
    say("serve_arm", c.post("/api/v1/arm").status)
    r = c.request("PATCH", "/api/v1/settings", {"postTrigger": 2})
    say("serve_patch_armed", r.status, r.json().get("field"))
    c.wait(lambda st: st.get("preTriggerFill") == 1, what="a full window")
    before = c.status()
    say("serve_trigger", c.post("/api/v1/trigger").status)
    st = c.wait(lambda st: st["shotsSaved"] == 1 and st["state"] == "idle", what="the shot saved")
    shot = c.get("/api/v1/shots").json()["shots"][0]
    rep = shot["report"]
    pre, post = rep["preFramesAsked"], rep["postFramesAsked"]
    # the emulated VM's vivid drops frames of its own (sequence gaps, counted by the driver); slomo drops none
    say("serve_shot", shot["firstFrame"], shot["lastFrame"], shot["frames"], rep["complete"], pre, post)
    say("serve_drops", st["droppedBySlomo"], rep["sequenceGaps"])
    # frame 0 is the trigger frame: the first frame at or after the trigger's instant. From the
    # file's own timestamps (exact, microseconds): the frame before it came before the instant
    # (vivid in the emulated VM drops frames, so the gap may be more than one period)
    whole = c.get("/api/v1/shots/1/file")
    path = os.path.join(out, "serve-shot.mp4")
    open(path, "wb").write(whole.body)
    probe = json.loads(subprocess.run([os.environ["SLOMO_BIN"], "probe", path, "--frames", "--json"], capture_output=True, text=True).stdout)
    tb = probe["streams"][0]["timeBase"]
    ticks = [f["ptsTicks"] for f in probe["frames"]]
    k = rep["triggerFrame"]
    r = lambda x: Fraction(x["numerator"], x["denominator"])
    frame_time = r(rep["triggerFrameTime"])
    before = frame_time - Fraction(ticks[k] - ticks[k - 1] if k > 0 else 0) * Fraction(tb["numerator"], tb["denominator"])
    say("serve_trigger_frame", k == -shot["firstFrame"], before < r(rep["triggerTime"]) <= frame_time)
    f0 = c.get("/api/v1/shots/1/frames/0.jpg")
    say("serve_frame0", f0.status, f0.body[:2] == b"\xff\xd8")
    part = c.get("/api/v1/shots/1/file", headers={"Range": "bytes=0-99"})
    on_disk = os.path.getsize(os.path.join(out, "serve", shot["file"]))
    say("serve_range", part.status, len(part.body), part.header("content-range") == f"bytes 0-99/{on_disk}")
    frames = json.loads(subprocess.run([os.environ["SLOMO_BIN"], "probe", path, "--json"], capture_output=True, text=True).stdout)["streams"][0]["frameCount"]
    say("serve_download", whole.status, frames == shot["frames"])
    parts = mjpeg_parts(c, 3)
    say("serve_mjpeg", len(parts), all(b[:2] == b"\xff\xd8" for _, b in parts))
    # export a quarter of a second around the trigger at 1/4
    job = c.post("/api/v1/shots/1/export", {"from": -5, "to": 5, "rate": "1/4"}).json()
    end = time.time() + 120
    while job["state"] in ("queued", "running") and time.time() < end:
        time.sleep(0.3)
        job = c.get(f"/api/v1/jobs/{job['id']}").json()
    say("serve_export", job["state"], job.get("outputFrames", 0) > 0)
    # the camera vanishes while serving: the state says so, the files stay, the server answers
    subprocess.run(["v4l2-ctl", "-d", dev, "-c", "disconnect=1"], check=False)
    st = c.wait(lambda st: st["state"] == "stopped", timeout=30, what="the camera's loss seen")
    say("serve_vanished", st["state"], "disconnect" in (st.get("message") or ""), c.get("/api/v1/shots").status,
        os.path.exists(os.path.join(out, "serve", shot["file"])))
    r = c.post("/api/v1/arm")
    say("serve_arm_gone", r.status, "gone" in r.json()["error"])
finally:
    say("serve_exit", s.stop())
