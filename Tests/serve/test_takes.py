"""Takes held in RAM in a serve rig (`--save lifo --takes N`): each shot copied out of the camera's
ring and saved in the background; the status and /metrics say how many takes are held, saving and
free; with none free, arm and trigger are refused (409) in one sentence; every shot held is saved."""
import json
import os

from client import INTERRUPTED, Server

# x264's slowest preset: saving a shot takes longer than the camera takes to fill the next one
RIG = ["--source", "synthetic:fps=240,size=640x360,format=yuv420p", "--pre-trigger", "0.25", "--post-trigger", "0.25",
       "--preset", "veryslow", "--save", "lifo", "--takes", "2"]


def test_takes_fill_refuse_and_are_all_saved(scratch):
    s = Server(RIG, os.path.join(scratch, "out"))
    try:
        c = s.client()
        t = c.status()["takes"]
        assert (t["save"], t["takes"], t["held"], t["saving"], t["free"]) == ("lifo", 2, 0, 0, 2), t
        assert t["framesEach"] == 121 and t["bytesEach"] >= 121 * 640 * 360 * 3 // 2, t
        assert c.post("/api/v1/arm", {"shots": 0}).status == 200
        c.wait(lambda st: st["state"] == "armed" and st.get("preTriggerFill", 0) >= 1, what="armed with a full window")
        assert c.post("/api/v1/trigger").status == 202
        # the first shot's window in, copied: a take held or saving, one free
        c.wait(lambda st: st["takes"]["free"] == 1, what="one take taken")
        assert c.post("/api/v1/trigger").status == 202
        c.wait(lambda st: st["takes"]["free"] == 0, what="both takes taken")
        metrics = c.get("/metrics").body.decode()
        assert 'slomo_takes{state="free"} 0' in metrics, metrics
        r = c.post("/api/v1/trigger")
        assert r.status == 409 and "all 2 takes hold shots not yet saved" in r.json()["error"], (r.status, r.body)
        # saved in the background: both listed, every take free again
        c.wait(lambda st: st["shotsSaved"] == 2 and st["takes"]["free"] == 2, timeout=180, what="both shots saved")
        shots = c.get("/api/v1/shots").json()["shots"]
        assert [x["id"] for x in shots] == [1, 2] and all(x["frames"] == 121 and x["complete"] for x in shots), shots
        assert not [n for n in os.listdir(os.path.join(scratch, "out")) if ".partial." in n]
        assert c.post("/api/v1/disarm").status == 200
    finally:
        assert s.stop() == INTERRUPTED, " | ".join(s.lines)


def test_an_unknown_save_mode_is_one_line(scratch):
    s = Server(RIG[:-4] + ["--save", "sometimes"], os.path.join(scratch, "out"), wait=False)
    s.proc.wait(60)
    s._ready.wait(10)  # stderr read to its end
    assert s.proc.returncode == 64 and "--save 'sometimes': expected auto or lifo" in " ".join(s.lines), s.lines


def test_two_cameras_hold_their_takes_together(scratch):
    """A rig of two cameras with takes: each trigger takes a take in every camera; the status gives
    the camera with the fewest free; with none free the trigger is refused; every camera's file of
    every shot is saved whole."""
    cams = ["synthetic:fps=240,size=320x240,format=yuv420p", "synthetic:fps=240,size=256x144,format=yuv420p"]
    out = os.path.join(scratch, "out")
    s = Server(cams + RIG[2:], out)
    try:
        c = s.client()
        c.wait(lambda st: len(st.get("cameras", [])) == 2 and st["takes"]["free"] == 2, what="two cameras with two takes")
        assert c.post("/api/v1/arm", {"shots": 0}).status == 200
        c.wait(lambda st: st["state"] == "armed" and st.get("preTriggerFill", 0) >= 1, what="armed with both windows full")
        assert c.post("/api/v1/trigger").status == 202
        c.wait(lambda st: st["takes"]["free"] <= 1, what="one take taken")
        assert c.post("/api/v1/trigger").status == 202
        c.wait(lambda st: st["takes"]["free"] == 0, what="both takes taken")
        r = c.post("/api/v1/trigger")
        assert r.status == 409 and "all 2 takes hold shots not yet saved" in r.json()["error"], (r.status, r.body)
        c.wait(lambda st: st["shotsSaved"] == 2 and st["takes"]["free"] == 2, timeout=240, what="both events saved by both cameras")
        shots = c.get("/api/v1/shots").json()["shots"]
        assert [x["id"] for x in shots] == [1, 2], shots
        for x in shots:
            files = [(k["camera"], k["file"], k["frames"], k["complete"]) for k in x["cameras"]]
            assert files == [(1, f"shot{x['id']:04d}-cam1.mp4", 121, True), (2, f"shot{x['id']:04d}-cam2.mp4", 121, True)], files
        names = sorted(os.listdir(out))
        assert not [n for n in names if ".partial." in n], names
        assert len([n for n in names if n.endswith(".mp4")]) == 4, names
        assert c.post("/api/v1/disarm").status == 200
    finally:
        assert s.stop() == INTERRUPTED, " | ".join(s.lines)
    # each camera held its own shots: the report beside each file (written as the server stops) says how
    for cam in (1, 2):
        with open(os.path.join(out, f"shot0002-cam{cam}.mp4.capture.json")) as f:
            t = json.load(f)["takes"]
        assert (t["save"], t["takes"], sorted(t["counts"]["savedOrder"]), t["counts"]["mostHeld"]) == ("lifo", 2, [1, 2], 2), (cam, t)
