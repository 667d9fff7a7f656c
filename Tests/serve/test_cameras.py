"""A rig of several cameras: `slomo serve CAM1 CAM2`, one arm and one trigger for all, each
camera's shot around the same instant, named by camera in the API; a camera missing at the start
refuses the rig (exit 66); a camera lost later is said in its own state while the others go on.
The cameras are synthetic ones (`synthetic:SPEC` as a CAM), each frame carrying its own number."""
import json
import os
import subprocess
from fractions import Fraction

from client import INTERRUPTED, Server, binary, calibration_index

RATE = 120
CAM1 = f"synthetic:fps={RATE},size=320x240,format=yuv420p"
CAM2 = f"synthetic:fps={RATE},size=256x144,format=yuv420p"
WINDOW = ["--pre-trigger", "0.25", "--post-trigger", "0.25"]


def frac(r):
    return Fraction(r["numerator"], r["denominator"])


def video_size(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                          "stream=width,height,nb_read_packets", "-of", "json", path],
                         capture_output=True, text=True, check=True).stdout
    s = json.loads(out)["streams"][0]
    return s["width"], s["height"], int(s["nb_read_packets"])


def frame_times(path):
    """The file's frame times (exact: its packets' pts in its stream's time base), in order."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base:packet=pts",
                          "-of", "json", path], capture_output=True, text=True, check=True).stdout
    d = json.loads(out)
    tb = Fraction(d["streams"][0]["time_base"])
    return sorted(Fraction(p["pts"]) * tb for p in d["packets"])


def first_at_or_after(instant, rep, path):
    """Whether the report's trigger frame is the file's first frame at or after `instant`: its own
    time is at or after it and the frame before it came before it (whatever the camera dropped)."""
    times, k = frame_times(path), rep["triggerFrame"]
    t = frac(rep["triggerFrameTime"])
    before = t - (times[k] - times[k - 1]) if k > 0 else None
    return instant <= t and (before is None or before < instant + Fraction(1, 500_000))


def jpeg_size(body, scratch):
    path = os.path.join(scratch, "probe.jpg")
    with open(path, "wb") as f:
        f.write(body)
    w, h, _ = video_size(path)
    return w, h


def shoot(c):
    c.wait(lambda s: s["state"] == "idle", what="idle")
    assert c.post("/api/v1/arm").status == 200
    c.wait(lambda s: s["preTriggerFill"] == 1, what="the pre-trigger window full")
    t = c.post("/api/v1/trigger").json()
    assert t["accepted"], t
    c.wait(lambda s: s["state"] == "idle", what="the shot saved")
    return frac(t["time"])


def test_two_cameras_one_trigger(scratch, servers):
    out = os.path.join(scratch, "out")
    s = Server([CAM1, CAM2, *WINDOW], out, token_file=os.path.join(scratch, "token"))
    servers.append(s)
    c = s.client()
    st = c.wait(lambda st: all(k.get("achievedFps") for k in st.get("cameras", [])), what="both cameras streaming")
    assert [(k["camera"], k["name"], k["state"]) for k in st["cameras"]] == [(1, CAM1, "streaming"), (2, CAM2, "streaming")]
    assert st["framesCaptured"] == sum(k["framesCaptured"] for k in st["cameras"])

    instant = shoot(c)
    shots = c.get("/api/v1/shots").json()["shots"]
    assert len(shots) == 1
    shot = shots[0]
    assert [(k["camera"], k["cameraName"], k["file"]) for k in shot["cameras"]] == [
        (1, CAM1, "shot0001-cam1.mp4"), (2, CAM2, "shot0001-cam2.mp4")]
    period = Fraction(1, RATE)
    trigger_frames = []
    for k, size in ((1, (320, 240)), (2, (256, 144))):
        cam = shot["cameras"][k - 1]
        rep = cam["report"]
        # each camera's trigger frame is its first frame at or after the one instant
        t = frac(rep["triggerFrameTime"])
        assert first_at_or_after(instant, rep, os.path.join(out, cam["file"])), (k, float(t - instant))
        trigger_frames.append(t)
        # the file holds the whole window, at the camera's own size
        w, h, n = video_size(os.path.join(out, cam["file"]))
        assert (w, h) == size and n == cam["frames"] == 1 + rep["preFrames"] + rep["postFrames"], (k, w, h, n, cam)
        # frame 0 of camera k is that camera's trigger frame: its picture carries the frame's own number
        jpeg = c.get(f"/api/v1/shots/1/frames/0.jpg?camera={k}")
        assert jpeg.status == 200
        assert jpeg_size(jpeg.body, scratch)[1] * size[0] == jpeg_size(jpeg.body, scratch)[0] * size[1]
        assert calibration_index(jpeg.body, scratch) == rep["triggerSequence"], k
    # the spread is the reports' own times (at most a period apart, unless a camera dropped frames there)
    spread = max(trigger_frames) - min(trigger_frames)
    assert abs(shot["triggerFrameSpreadMs"] - float(spread) * 1000) < 0.002
    if all(k["report"]["sequenceGaps"] == 0 for k in shot["cameras"]):
        assert spread < period
    # a camera the shot does not have, and one the rig does not have, are refused by name
    r = c.get("/api/v1/shots/1/frames/0.jpg?camera=3")
    assert r.status == 404 and "camera 3" in r.json()["error"]
    r = c.get("/snapshot.jpg?camera=3")
    assert r.status == 404 and "no camera 3" in r.json()["error"]
    # each camera's live picture, at its own shape
    for k, size in ((1, (320, 240)), (2, (256, 144))):
        w, h = jpeg_size(c.get(f"/snapshot.jpg?camera={k}").body, scratch)
        assert abs(w / h - size[0] / size[1]) < 0.02, (k, w, h)
    # camera 2's file exported on its own
    job = c.post("/api/v1/shots/1/export", body={"camera": 2, "from": -5, "to": 5}).json()
    assert job["camera"] == 2, job
    c.wait(lambda st: c.get(f"/api/v1/jobs/{job['id']}").json()["state"] in ("done", "failed"), what="the export")
    done = c.get(f"/api/v1/jobs/{job['id']}").json()
    assert done["state"] == "done", done
    w, h, _ = video_size(os.path.join(out, done["file"]))
    assert abs(w / h - 256 / 144) < 0.02
    assert s.stop() == INTERRUPTED

    # a restarted rig lists the event with both cameras' files, and numbers the next one after it
    s2 = Server([CAM1, CAM2, *WINDOW], out, token_file=os.path.join(scratch, "token"))
    servers.append(s2)
    c2 = s2.client()
    again = c2.get("/api/v1/shots/1").json()
    assert [k["file"] for k in again["cameras"]] == ["shot0001-cam1.mp4", "shot0001-cam2.mp4"]
    shoot(c2)
    assert sorted(f for f in os.listdir(out) if f.startswith("shot0002")) == ["shot0002-cam1.mp4", "shot0002-cam2.mp4"]
    # deleting the event deletes every camera's file
    assert c2.request("DELETE", "/api/v1/shots/2").status == 204
    assert not [f for f in os.listdir(out) if f.startswith("shot0002")]
    assert s2.stop() == INTERRUPTED


def test_a_camera_lost_later_is_said_and_the_others_go_on(scratch, servers):
    gone = CAM2 + f",gone-after={RATE}"
    s = Server([CAM1, gone, *WINDOW], os.path.join(scratch, "out"), token_file=os.path.join(scratch, "token"))
    servers.append(s)
    c = s.client()
    st = c.wait(lambda st: st["cameras"][1]["state"] == "lost", what="camera 2 lost")
    cam2 = st["cameras"][1]
    assert "unplugged" in cam2["message"] and cam2["framesCaptured"] == RATE
    assert st["cameras"][0]["state"] == "streaming" and st["state"] == "idle"
    # the rig still shoots, with the camera it has
    shoot(c)
    shot = c.get("/api/v1/shots/1").json()
    assert [k["camera"] for k in shot["cameras"]] == [1]
    assert shot["cameras"][0]["complete"]
    assert s.stop() == INTERRUPTED


def test_a_camera_missing_at_start_refuses_the_rig(scratch):
    p = subprocess.run([binary(), "serve", CAM1, "/dev/video99", "--out-dir", os.path.join(scratch, "out"), "--no-token",
                        "--listen", "127.0.0.1:0"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 66, (p.returncode, p.stderr)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and "/dev/video99" in lines[0], p.stderr
    assert not os.listdir(os.path.join(scratch, "out"))
