#!/usr/bin/env python3
"""An hour that stands for a day: `slomo serve` armed for the whole run with four WebSocket viewers
reading every live picture, a trigger every 30 s and an export every 5 minutes. Every minute the
server's resident memory, open file descriptors and threads (from /proc) and its capture counters
(GET status) are sampled; at the end every shot is checked: listed by the API, complete, and its
file playable with every frame (ffprobe counts them). The figures at the start (after the first
shot), the middle and the end are printed, with the verdict:

  flat      resident memory at the end within 10 % (and 16 MiB) of the middle's, the same file
            descriptors and threads at the middle and the end (viewers reconnect each 10 minutes,
            so a leak per connection shows)
  lossless  0 frames dropped by slomo over the run (the camera's own drops are reported apart)
  shots     every trigger a shot, each listed, complete, playable with its frames; every export done

  bench/serve/soak.py [--minutes 60] [--camera ARGS] [--json FILE]
  SLOMO_BIN=/tmp/slomo bench/serve/soak.py --minutes 60 --camera "--source synthetic:fps=120,size=320x240"

Exit 0 when all three hold, 1 otherwise. Loopback only: the server listens on 127.0.0.1.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "serve"))
from client import Server  # noqa: E402


class Viewer(threading.Thread):
    """A WebSocket viewer reading every picture until stopped; pictures counted."""

    def __init__(self, c):
        super().__init__(daemon=True)
        self.c, self.pictures, self.stop, self.error = c, 0, threading.Event(), None
        self.started = time.monotonic()

    def run(self):
        try:
            ws = self.c.websocket()
            while not self.stop.is_set():
                ws.message()
                self.pictures += 1
            ws.close()
        except Exception as e:  # a viewer that fails before it is stopped is a finding, said at the end
            if not self.stop.is_set():
                self.error = repr(e)


def report_errors(viewers):
    return [v.error for v in viewers if v.error]


def proc_figures(pid):
    with open(f"/proc/{pid}/status") as f:
        status = dict(line.split(":", 1) for line in f if ":" in line)
    return {
        "rssMiB": round(int(status["VmRSS"].split()[0]) / 1024, 1),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "threads": int(status["Threads"]),
    }


def frames_in(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
                        "stream=nb_read_packets", "-of", "csv=p=0", path], capture_output=True, text=True)
    return int(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip().isdigit() else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--camera", default="--source synthetic:fps=120,size=320x240")
    ap.add_argument("--trigger-every", type=float, default=30)
    ap.add_argument("--export-every", type=float, default=300)
    ap.add_argument("--json", help="write the figures here too")
    a = ap.parse_args()
    out_dir = tempfile.mkdtemp(prefix="slomo-soak-")
    s = Server(shlex.split(a.camera) + ["--pre-trigger", "0.5", "--post-trigger", "0.5", "--shots", "0"], out_dir)
    c = s.client()
    samples, triggers, exports, viewers = [], 0, [], []
    t0 = time.monotonic()
    end = t0 + a.minutes * 60
    next_trigger, next_export, next_sample, next_reconnect = t0 + 5, t0 + a.export_every, t0, t0 + 600
    try:
        assert c.post("/api/v1/arm").status == 200, "arm refused"
        c.wait(lambda st: st.get("preTriggerFill") == 1, what="armed")
        viewers = [Viewer(s.client()) for _ in range(4)]
        for v in viewers:
            v.start()
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= next_trigger:
                saved = c.status()["shotsSaved"]
                r = c.post("/api/v1/trigger")
                assert r.status == 202, f"trigger {triggers + 1}: {r.status} {r.body[:200]}"
                triggers += 1
                c.wait(lambda st: st["shotsSaved"] == saved + 1 and st["state"] == "armed", timeout=120, what="the shot saved")
                next_trigger += a.trigger_every
            if now >= next_export:
                shot = c.get("/api/v1/shots").json()["shots"][-1]
                r = c.post(f"/api/v1/shots/{shot['id']}/export", {"from": -30, "to": 30, "rate": "1/4"})
                assert r.status == 202, f"export: {r.status} {r.body[:200]}"
                exports.append({"job": r.json()["id"], "shot": shot["id"], "at": round(now - t0)})
                next_export += a.export_every
            if now >= next_reconnect:  # the viewers leave and others come: a connection's leak shows
                for v in viewers:
                    v.stop.set()
                for v in viewers:
                    v.join(10)
                viewers += [Viewer(s.client()) for _ in range(4)]
                for v in viewers[-4:]:
                    v.start()
                next_reconnect += 600
            if now >= next_sample:
                st = c.status()
                samples.append({"minute": round((now - t0) / 60, 1), **proc_figures(s.proc.pid), "state": st["state"],
                                "framesCaptured": st["framesCaptured"], "droppedBySlomo": st["droppedBySlomo"],
                                "droppedByDriver": st["droppedByDriver"], "shotsSaved": st["shotsSaved"]})
                print(json.dumps(samples[-1]), flush=True)
                next_sample += 60
            time.sleep(0.2)
        for v in viewers:
            v.stop.set()
        for e in exports:  # the last export may still run
            c.wait(lambda st, j=e["job"]: c.get(f"/api/v1/jobs/{j}").json()["state"] in ("done", "failed", "cancelled"),
                   timeout=600, what=f"export job {e['job']}")
            job = c.get(f"/api/v1/jobs/{e['job']}").json()
            e["state"] = job["state"]
            if job["state"] == "done":
                local = os.path.join(out_dir, job["file"]) if job.get("file") else None
                e["frames"] = frames_in(local) if local and os.path.exists(local) else None
        shots = c.get("/api/v1/shots").json()["shots"]
        final = c.status()
        samples.append({"minute": round((time.monotonic() - t0) / 60, 1), **proc_figures(s.proc.pid), "state": final["state"],
                        "framesCaptured": final["framesCaptured"], "droppedBySlomo": final["droppedBySlomo"],
                        "droppedByDriver": final["droppedByDriver"], "shotsSaved": final["shotsSaved"]})
    finally:
        s.stop()
    checked = []
    for sh in shots:
        path = os.path.join(out_dir, sh["file"])
        checked.append({"id": sh["id"], "complete": sh["complete"], "frames": sh["frames"], "playable": frames_in(path)})
    first = next((x for x in samples if x["shotsSaved"] >= 1), samples[0])
    middle = min(samples, key=lambda x: abs(x["minute"] - samples[-1]["minute"] / 2))
    last = samples[-1]
    flat = (last["rssMiB"] - middle["rssMiB"] <= max(0.10 * middle["rssMiB"], 16)
            and last["fds"] <= middle["fds"] and last["threads"] <= middle["threads"])
    lossless = last["droppedBySlomo"] == 0
    shots_ok = (not report_errors(viewers) and len(shots) == triggers and all(x["complete"] and x["playable"] == x["frames"] for x in checked)
                and all(e.get("state") == "done" and (e.get("frames") or 0) > 0 for e in exports))
    report = {
        "version": 1, "type": "soak", "minutes": a.minutes, "camera": a.camera, "binary": s.proc.args[0],
        "start": first, "middle": middle, "end": last, "triggers": triggers, "shots": len(shots),
        "shotsPlayable": sum(1 for x in checked if x["playable"] == x["frames"]), "exports": exports,
        "viewerPictures": [v.pictures for v in viewers],
        "viewerFps": [round(v.pictures / max(1, time.monotonic() - v.started), 2) for v in viewers[-4:]], "viewerErrors": [v.error for v in viewers if v.error],
        "flat": flat, "lossless": lossless, "shotsOk": shots_ok, "samples": samples,
    }
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    print(json.dumps({k: v for k, v in report.items() if k != "samples"}, indent=1))
    print(f"soak: {a.minutes:g} min, {triggers} triggers, {len(shots)} shots ({report['shotsPlayable']} playable), "
          f"{len(exports)} exports; RSS {first['rssMiB']}/{middle['rssMiB']}/{last['rssMiB']} MiB, fds {first['fds']}/{middle['fds']}/{last['fds']}, "
          f"threads {first['threads']}/{middle['threads']}/{last['threads']} (start/middle/end); dropped by slomo {last['droppedBySlomo']}, "
          f"by the camera {last['droppedByDriver']}: {'flat' if flat else 'NOT FLAT'}, {'lossless' if lossless else 'FRAMES LOST'}, "
          f"{'every shot and export good' if shots_ok else 'SHOTS OR EXPORTS MISSING'}")
    return 0 if flat and lossless and shots_ok else 1


if __name__ == "__main__":
    sys.exit(main())
