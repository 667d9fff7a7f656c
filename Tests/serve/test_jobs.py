"""Export jobs of `slomo serve`: numbered after a restarted server's files, cancelled over HTTP and
by SIGINT (nothing left under a final name or half-written), refused over the server's limit, and
their errors without the server's paths."""
import glob
import os
import signal
import time

from client import INTERRUPTED, Server
from conftest import SYNTHETIC
from test_api import arm_and_shoot


def start(scratch, servers, extra=()):
    servers.append(Server(SYNTHETIC, os.path.join(scratch, "out"), token_file=os.path.join(scratch, "token"), extra=extra))
    return servers[-1]


def shoot_one(c):
    arm_and_shoot(c)
    c.wait(lambda st: st["state"] == "idle" and st["shotsSaved"] >= 1, what="the shot saved")
    return max(x["id"] for x in c.get("/api/v1/shots").json()["shots"])


def finish(c, job, timeout=120):
    end = time.time() + timeout
    while job["state"] in ("queued", "running") and time.time() < end:
        time.sleep(0.1)
        job = c.get(f"/api/v1/jobs/{job['id']}").json()
    return job


def export(c, shot, body):
    r = c.post(f"/api/v1/shots/{shot}/export", body)
    assert r.status == 202, r.body
    return r.json()


def partials(out):
    return glob.glob(os.path.join(out, ".*partial*"))


def test_exports_of_a_restarted_server(scratch, servers):
    """The jobs of a server started again on the same directory are numbered after the export
    files there: every export succeeds and none of the earlier files changes."""
    s = start(scratch, servers)
    c = s.client()
    shot = shoot_one(c)
    first = [finish(c, export(c, shot, {"from": -4, "to": 4, "rate": 0.5})) for _ in range(2)]
    assert [j["state"] for j in first] == ["done", "done"], first
    before = {j["file"]: open(os.path.join(s.out_dir, j["file"]), "rb").read() for j in first}
    assert s.stop() == INTERRUPTED

    s = start(scratch, servers)
    c = s.client()
    again = [finish(c, export(c, shot, {"from": -4, "to": 4, "rate": 0.5})) for _ in range(3)]
    assert [j["state"] for j in again] == ["done"] * 3, again
    assert [j["id"] for j in again] == [3, 4, 5]
    assert [j["file"] for j in again] == [f"shot{shot:04d}-export{n}.mp4" for n in (3, 4, 5)]
    for name, data in before.items():
        assert open(os.path.join(s.out_dir, name), "rb").read() == data, name
    assert s.stop() == INTERRUPTED


def test_jobs_cancelled_over_http_and_the_limit(scratch, servers):
    s = start(scratch, servers, extra=("--max-export-frames", "5000"))
    c = s.client()
    shot = shoot_one(c)
    # over the limit: refused in one sentence naming the limit and how to raise it, nothing queued
    r = c.post(f"/api/v1/shots/{shot}/export", {"rate": "1/1000"})
    assert r.status == 400, r.body
    error = r.json()["error"]
    assert "over this server's limit of 5000" in error and "--max-export-frames" in error and "\n" not in error, error
    assert c.get("/api/v1/jobs").json()["jobs"] == []

    # a long job running, a second one queued behind it
    running = export(c, shot, {"rate": "1/16"})       # 241 frames at 240 fps, 16 times slower: 482 at 30 fps
    queued = export(c, shot, {"rate": "1/16"})
    end = time.time() + 60
    while c.get(f"/api/v1/jobs/{running['id']}").json()["progress"] == 0 and time.time() < end:
        time.sleep(0.05)
    r = c.request("DELETE", f"/api/v1/jobs/{queued['id']}")
    assert r.status == 202 and r.json()["state"] == "cancelled", r.body
    r = c.request("DELETE", f"/api/v1/jobs/{running['id']}")
    assert r.status == 202, r.body
    asked = time.monotonic()
    ran = finish(c, c.get(f"/api/v1/jobs/{running['id']}").json())
    print(f"running job cancelled over HTTP in {time.monotonic() - asked:.2f} s")
    assert ran["state"] == "cancelled" and ran["progress"] < 1, ran
    assert finish(c, c.get(f"/api/v1/jobs/{queued['id']}").json())["state"] == "cancelled"
    for j in (running, queued):
        assert not os.path.exists(os.path.join(s.out_dir, j["file"])), j
    assert partials(s.out_dir) == []
    # a finished job cannot be cancelled; an unknown one is not found
    assert c.request("DELETE", f"/api/v1/jobs/{running['id']}").status == 409
    assert c.request("DELETE", "/api/v1/jobs/99").status == 404
    # the queue goes on after a cancel
    assert finish(c, export(c, shot, {"from": -2, "to": 2}))["state"] == "done"

    # a shot that can no longer be read: refused without the server's paths
    with open(os.path.join(s.out_dir, f"shot{shot:04d}.mp4"), "wb") as f:
        f.write(b"no longer a recording")
    r = c.post(f"/api/v1/shots/{shot}/export", {"from": -2, "to": 2})
    assert r.status == 409, r.body
    assert s.out_dir not in r.json()["error"] and scratch not in r.json()["error"], r.body
    assert s.stop() == INTERRUPTED


def test_sigint_while_exporting(scratch, servers):
    """SIGINT ends the server while an export runs and another waits: both cancelled, their files
    not written, one line, 130."""
    s = start(scratch, servers)
    c = s.client()
    shot = shoot_one(c)
    running = export(c, shot, {"rate": "1/16"})
    queued = export(c, shot, {"rate": "1/16"})
    end = time.time() + 60
    while c.get(f"/api/v1/jobs/{running['id']}").json()["progress"] == 0 and time.time() < end:
        time.sleep(0.05)
    sent = time.monotonic()
    s.proc.send_signal(signal.SIGINT)
    assert s.proc.wait(30) == INTERRUPTED, s.lines
    print(f"serve ended {time.monotonic() - sent:.2f} s after SIGINT")
    said = [line for line in s.lines if "interrupted" in line]
    assert len(said) == 1 and f"export jobs {running['id']}, {queued['id']} cancelled" in said[0], s.lines
    for j in (running, queued):
        assert not os.path.exists(os.path.join(s.out_dir, j["file"])), j
    assert partials(s.out_dir) == []
    # the shot itself is kept
    assert os.path.exists(os.path.join(s.out_dir, f"shot{shot:04d}.mp4"))


def test_export_takes_what_a_batch_job_takes(scratch, servers):
    """An export over HTTP takes a manifest job's fields (any encoder, optical flow) through the same
    request and checks as `slomo export` and batch, refused in the same words."""
    import json
    import subprocess
    from client import binary
    s = start(scratch, servers)
    c = s.client()
    shot = shoot_one(c)
    prores = finish(c, export(c, shot, {"from": -4, "to": 4, "rate": "1/2", "codec": "prores_ks"}))
    assert prores["state"] == "done" and prores["file"].endswith(".mov"), prores
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name",
                            "-of", "csv=p=0", os.path.join(s.out_dir, prores["file"])], capture_output=True, text=True)
    assert probe.stdout.strip() == "prores", probe
    flow = finish(c, export(c, shot, {"from": -2, "to": 2, "rate": "1/16", "frameBlend": "flow", "fps": 30}))
    assert flow["state"] == "done", flow
    # a typo: 400 naming the field, in the words export and a manifest use
    r = c.post(f"/api/v1/shots/{shot}/export", {"codec": "libx264x"})
    assert r.status == 400 and r.json()["field"] == "codec", r.body
    reason = "no such video encoder in this FFmpeg (did you mean libx264?)"
    assert r.json()["error"] == "codec 'libx264x': " + reason, r.body
    shot_file = os.path.join(s.out_dir, f"shot{shot:04d}.mp4")
    cli = subprocess.run([binary(), "export", shot_file, "-o", os.path.join(scratch, "x.mp4"), "--codec", "libx264x"],
                         capture_output=True, text=True)
    assert cli.returncode == 64 and cli.stderr.strip().endswith("--codec 'libx264x': " + reason), cli.stderr
    manifest = os.path.join(scratch, "jobs.json")
    with open(manifest, "w") as f:
        json.dump([{"input": shot_file, "output": os.path.join(scratch, "y.mp4"), "codec": "libx264x"}], f)
    batch = subprocess.run([binary(), "batch", manifest, "--dry-run"], capture_output=True, text=True)
    assert reason in batch.stderr, batch.stderr
    r = c.post(f"/api/v1/shots/{shot}/export", {"frameblend": "flow"})
    assert r.status == 400 and "did you mean 'frameBlend'?" in r.json()["error"], r.body
    assert s.stop() == INTERRUPTED


def test_shots_in_phantom_cine(scratch, servers):
    """`--shot-format cine`: each shot written from the ring as a Phantom Cine of the camera's own
    samples (every sample the synthetic sensor's formula at the frame's sequence number, read by
    FFmpeg), its frame table beside it, its frames served as pictures, exported, and listed again by
    a restarted server."""
    import csv
    import subprocess
    from array import array

    args = ["--source", "synthetic:fps=240,size=96x64,format=gray16", "--pre-trigger", "0.1", "--post-trigger", "0.1"]
    out = os.path.join(scratch, "out")
    servers.append(Server(args, out, token_file=os.path.join(scratch, "token"), extra=["--shot-format", "cine"]))
    c = servers[-1].client()
    shot = shoot_one(c)
    listed = c.get(f"/api/v1/shots/{shot}").json()
    assert listed["file"] == f"shot{shot:04d}.cine" and (listed["firstFrame"], listed["lastFrame"]) == (-24, 24), listed
    path = os.path.join(out, listed["file"])
    rows = list(csv.DictReader(open(path + ".frames.csv")))
    assert [int(r["from_trigger"]) for r in rows] == list(range(-24, 25))
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray16le", "-"], capture_output=True, check=True).stdout
    samples = array("H", raw)  # little-endian, as this machine's
    assert len(samples) == 49 * 64 * 96
    for i, r in enumerate(rows):
        n = int(r["sequence"])
        expected = array("H", ((n * 1031 + x * 37 + y * 613) % 65536 for y in range(64) for x in range(96)))
        assert samples[i * 6144:(i + 1) * 6144] == expected, r
    assert int(rows[24]["sequence"]) == listed["report"]["triggerSequence"]
    pic = c.get(f"/api/v1/shots/{shot}/frames/0.jpg")
    assert pic.status == 200 and pic.header("content-type") == "image/jpeg"
    assert finish(c, export(c, shot, {"from": -4, "to": 4, "rate": 0.5}))["state"] == "done"
    assert servers[-1].stop() == INTERRUPTED

    servers.append(Server(args, out, token_file=os.path.join(scratch, "token"), extra=["--shot-format", "cine"]))
    c = servers[-1].client()
    assert [s["file"] for s in c.get("/api/v1/shots").json()["shots"]] == [f"shot{shot:04d}.cine"]
    assert shoot_one(c) == shot + 1
    assert servers[-1].stop() == INTERRUPTED
