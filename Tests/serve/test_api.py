"""The API against a running `slomo serve` on the synthetic camera, whose frames carry their own
sequence number (the calibration code): a shot's frames are checked by what they show."""
import os
import subprocess
import threading
import json
import re
import signal
import time

from client import INTERRUPTED, binary, calibration_index, mjpeg_parts


def arm_and_shoot(c, **arm):
    r = c.post("/api/v1/arm", arm or None)
    assert r.status == 200, r.body
    assert r.json()["state"] == "armed"
    c.wait(lambda s: s.get("preTriggerFill") == 1, what="a full pre-trigger window")
    r = c.post("/api/v1/trigger")
    assert r.status == 202, r.body
    return r.json()


def test_shot_frames_export_download(server, scratch):
    c = server.client()
    assert c.status()["state"] == "idle"
    arm_and_shoot(c)
    s = c.wait(lambda s: s["shotsSaved"] == 1 and s["state"] == "idle", what="the shot saved")
    shots = c.get("/api/v1/shots").json()["shots"]
    assert [x["id"] for x in shots] == [1]
    shot = shots[0]
    rep = shot["report"]
    # 0.5 s each side at 240 fps: 120 frames before the trigger frame, 120 after
    assert (shot["firstFrame"], shot["lastFrame"], shot["frames"]) == (-120, 120, 241), shot
    assert rep["trigger"] == "api" and rep["complete"]
    assert os.path.exists(os.path.join(server.out_dir, shot["file"]))
    # frame 0 is the trigger frame: it shows the trigger frame's own sequence number
    f0 = c.get("/api/v1/shots/1/frames/0.jpg")
    assert f0.status == 200 and f0.header("content-type") == "image/jpeg"
    assert calibration_index(f0.body, scratch) == rep["triggerSequence"]
    assert calibration_index(c.get("/api/v1/shots/1/frames/-120.jpg").body, scratch) == rep["firstSequence"]
    assert calibration_index(c.get("/api/v1/shots/1/frames/120.jpg").body, scratch) == rep["lastSequence"]
    assert calibration_index(c.get("/api/v1/shots/1/frames/-7.jpg").body, scratch) == rep["triggerSequence"] - 7
    # the trigger frame is the first frame at or after the request's instant
    latency = rep["latency"]["numerator"] / rep["latency"]["denominator"]
    assert 0 <= latency < 1 / 240 + 1e-9, rep["latency"]
    r = c.get("/api/v1/shots/1/frames/121.jpg")
    assert r.status == 404 and "-120...120" in r.json()["error"]
    assert c.get("/api/v1/shots/1/frames/x.jpg").status == 400

    # export frames -8...8 at 1/4 speed to 30 fps
    r = c.post("/api/v1/shots/1/export", {"from": -8, "to": 8, "rate": 0.25, "fps": 30, "pitch": "spectral"})
    assert r.status == 202, r.body
    job = r.json()
    assert r.header("location") == f"/api/v1/jobs/{job['id']}"
    end = time.time() + 120
    while job["state"] in ("queued", "running") and time.time() < end:
        time.sleep(0.2)
        job = c.get(f"/api/v1/jobs/{job['id']}").json()
    assert job["state"] == "done", job
    # 17 source frames at 240 fps are 17/240 s; a quarter speed makes it 17/60 s: 8.5 frames at 30 fps
    assert job["outputFrames"] in (8, 9), job
    whole = c.get(f"/api/v1/jobs/{job['id']}/file")
    assert whole.status == 200 and whole.header("accept-ranges") == "bytes"
    assert int(whole.header("content-length")) == len(whole.body) > 1000
    part = c.get(f"/api/v1/jobs/{job['id']}/file", headers={"Range": "bytes=100-199"})
    assert part.status == 206 and part.body == whole.body[100:200]
    assert part.header("content-range") == f"bytes 100-199/{len(whole.body)}"
    tail = c.get(f"/api/v1/jobs/{job['id']}/file", headers={"Range": "bytes=-50"})
    assert tail.status == 206 and tail.body == whole.body[-50:]
    assert c.get(f"/api/v1/jobs/{job['id']}/file", headers={"Range": f"bytes={len(whole.body)}-"}).status == 416
    path = os.path.join(scratch, "export.mp4")
    with open(path, "wb") as f:
        f.write(whole.body)
    probe = json.loads(subprocess.run([binary(), "probe", path, "--frames", "--json"], capture_output=True, text=True, check=True).stdout)
    first = probe["frames"][0]["calibrationIndex"]
    assert first == rep["triggerSequence"] - 8, probe["frames"][0]
    assert len(probe["frames"]) == job["outputFrames"]
    # the shot's own file, with a range
    f = c.get("/api/v1/shots/1/file", headers={"Range": "bytes=0-7"})
    assert f.status == 206 and len(f.body) == 8 and f.body[4:8] == b"ftyp"

    # deleted: gone from the list and the disk
    assert c.request("DELETE", "/api/v1/shots/1").status == 204
    assert c.get("/api/v1/shots/1").status == 404
    assert not os.path.exists(os.path.join(server.out_dir, shot["file"]))


def test_shots_of_an_earlier_server_are_listed(scratch, servers):
    """A restarted server lists the shots in its output directory: from their reports when the
    server before stopped cleanly, from the files' own tags when it was killed."""
    from conftest import SYNTHETIC
    from client import Server
    out, token = os.path.join(scratch, "out"), os.path.join(scratch, "token")
    def start():
        servers.append(Server(SYNTHETIC, out, token_file=token))
        return servers[-1]
    s = start()
    c = s.client()
    arm_and_shoot(c)
    c.wait(lambda st: st["shotsSaved"] == 1 and st["state"] == "idle", what="shot 1 saved")
    rep1 = c.get("/api/v1/shots/1").json()["report"]
    assert s.stop() == INTERRUPTED

    # stopped cleanly: shot 1 from its report, whole; the next shot is 2
    s = start()
    c = s.client()
    assert c.status()["shotsSaved"] == 1
    assert c.get("/api/v1/shots/1").json()["report"] == rep1
    assert calibration_index(c.get("/api/v1/shots/1/frames/0.jpg").body, scratch) == rep1["triggerSequence"]
    arm_and_shoot(c)
    c.wait(lambda st: st["shotsSaved"] == 2 and st["state"] == "idle", what="shot 2 saved")
    rep2 = c.get("/api/v1/shots/2").json()["report"]
    assert os.path.basename(rep2["output"]) == "shot0002.mp4"
    s.stop(signal.SIGKILL)      # no report written for shot 2

    # a file of that name that is no shot of slomo's
    stray = os.path.join(out, "shot0009.mp4")
    with open(stray, "wb") as f:
        f.write(b"not a recording")
    s = start()
    c = s.client()
    assert any("shot0009.mp4: not listed" in line for line in s.lines), s.lines
    assert [x["id"] for x in c.get("/api/v1/shots").json()["shots"]] == [1, 2]
    sh = c.get("/api/v1/shots/2").json()
    assert (sh["firstFrame"], sh["lastFrame"], sh["frames"], sh["complete"]) == (-120, 120, 241, True), sh
    assert "report was not written" in sh["warning"]
    assert sh["report"]["triggerFrame"] == rep2["triggerFrame"] and sh["report"]["triggerFrameTime"] == rep2["triggerFrameTime"]
    assert calibration_index(c.get("/api/v1/shots/2/frames/0.jpg").body, scratch) == rep2["triggerSequence"]
    assert calibration_index(c.get("/api/v1/shots/2/frames/-120.jpg").body, scratch) == rep2["firstSequence"]
    # the next shot after the highest file, the stray one untouched
    arm_and_shoot(c)
    c.wait(lambda st: st["state"] == "idle" and st["shotsSaved"] == 3, what="the next shot saved")
    assert [x["id"] for x in c.get("/api/v1/shots").json()["shots"]] == [1, 2, 10]
    assert open(stray, "rb").read() == b"not a recording"
    assert s.stop() == INTERRUPTED

    # another codec, another extension (.mkv): numbered after the .mp4 shots, none taken twice
    servers.append(Server(SYNTHETIC + ["--codec", "ffv1"], out, token_file=token))
    s = servers[-1]
    c = s.client()
    arm_and_shoot(c)
    c.wait(lambda st: st["state"] == "idle" and st["shotsSaved"] == 4, what="the ffv1 shot saved")
    listed = {x["id"]: x["file"] for x in c.get("/api/v1/shots").json()["shots"]}
    assert listed == {1: "shot0001.mp4", 2: "shot0002.mp4", 10: "shot0010.mp4", 11: "shot0011.mkv"}, listed
    assert s.stop() == INTERRUPTED


def test_settings_need_idle(server):
    c = server.client()
    before = c.get("/api/v1/settings").json()
    assert c.post("/api/v1/arm").status == 200
    r = c.request("PATCH", "/api/v1/settings", {"preTrigger": 2})
    assert r.status == 409 and r.json()["field"] == "preTrigger" and "idle" in r.json()["error"]
    assert c.get("/api/v1/settings").json() == before
    # the live pictures' rate is not the ring's: it changes while armed
    r = c.request("PATCH", "/api/v1/settings", {"previewFps": 5})
    assert r.status == 200 and r.json()["previewFps"] == {"numerator": 5, "denominator": 1}
    assert c.status()["state"] == "armed"
    assert c.post("/api/v1/disarm").json()["state"] == "idle"
    r = c.request("PATCH", "/api/v1/settings", {"preTrigger": "1/4"})
    assert r.status == 200, r.body
    s = c.wait(lambda s: s["state"] == "idle" and s["preFrames"] == 60, what="the new ring")
    # PATCH changes only what it names
    after = c.get("/api/v1/settings").json()
    assert after["postTrigger"] == before["postTrigger"] and after["shots"] == before["shots"]
    r = c.request("PATCH", "/api/v1/settings", {"postTrigger": -1})
    assert r.status == 400 and r.json()["field"] == "postTrigger"
    r = c.request("PATCH", "/api/v1/settings", {"shots": "two"})
    assert r.status == 400 and r.json()["field"] == "shots"
    r = c.request("PATCH", "/api/v1/settings", {"colour": 1})
    assert r.status == 400 and r.json()["field"] == "colour"


def test_trigger_needs_arm_and_multishot(server):
    c = server.client()
    r = c.post("/api/v1/trigger")
    assert r.status == 409 and "arm" in r.json()["error"]
    arm_and_shoot(c, shots=2)
    # a second trigger while the first shot is still filling: a further shot, never a lost one
    assert c.post("/api/v1/trigger").status == 202
    r = c.post("/api/v1/trigger")
    assert r.status == 409 and "taken" in r.json()["error"]
    c.wait(lambda s: s["shotsSaved"] == 2 and s["state"] == "idle", what="both shots saved")
    files = sorted(x["file"] for x in c.get("/api/v1/shots").json()["shots"])
    assert files == ["shot0001.mp4", "shot0002.mp4"]


def test_events_in_order(server):
    c = server.client()
    got = []
    started = threading.Event()
    def saved(events):
        names = [n for n, _ in events]
        return "shot" in names and events[-1] == ("state", events[-1][1]) and events[-1][1]["state"] == "idle"
    t = threading.Thread(target=lambda: c.events(got, saved, timeout=30, started=started))
    t.start()
    assert started.wait(10)
    arm_and_shoot(c)
    c.wait(lambda s: s["shotsSaved"] == 1 and s["state"] == "idle", what="the shot saved")
    t.join(35)
    names = [n for n, _ in got]
    assert names[0] == "status"
    seqs = [d["seq"] for n, d in got[1:]]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    states = [(n, d.get("state")) for n, d in got[1:]]
    armed = states.index(("state", "armed"))
    trig = names.index("trigger")
    shot = names.index("shot")
    idle = max(i for i, s in enumerate(states) if s == ("state", "idle")) + 1
    assert armed + 1 < trig < shot < idle, states


def test_live_pictures(server, scratch):
    c = server.client()
    parts = mjpeg_parts(c, 3)
    idx = [int(h["x-frame-index"]) for h, _ in parts]
    assert len(parts) == 3 and idx == sorted(idx) and len(set(idx)) == 3
    assert all(b[:2] == b"\xff\xd8" for _, b in parts)
    # each picture shows the frame it names (the calibration code: the sequence number, from 0)
    assert calibration_index(parts[-1][1], scratch) == idx[-1]
    snap = c.get("/snapshot.jpg")
    assert snap.status == 200 and snap.body[:2] == b"\xff\xd8"
    ws = c.websocket()
    h1, j1 = ws.message()
    h2, j2 = ws.message()
    ws.close()
    assert h2["frameIndex"] > h1["frameIndex"] and j1[:2] == b"\xff\xd8"
    assert h1["width"] == 640 and h1["height"] == 360
    # pictures are made only while someone watches
    time.sleep(0.5)
    n = c.status()["live"]["pictures"]
    time.sleep(1)
    assert c.status()["live"]["pictures"] == n


def test_openapi_names_every_route(server):
    c = server.client()
    doc = c.get("/api/v1/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    src = open(os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "SlomoServe", "RigServer.swift")).read()
    routes = set()
    for method, path in re.findall(r'r\.(get|post|patch|delete|ws)\("(/[^"]*)"', src):
        path = re.sub(r":(\w+)", r"{\1}", path).replace("{frame}", "{frame}.jpg")
        routes.add((("get" if method == "ws" else method), path))
    for method, path in routes:
        if path in ("/app.js", "/style.css"):
            continue
        assert path in doc["paths"] and method in doc["paths"][path], (method, path)
