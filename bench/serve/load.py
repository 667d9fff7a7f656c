#!/usr/bin/env python3
"""slomo serve under load: does the capture lose frames to viewers, how late do the pictures reach
them, how fast does the API answer? One run, two phases on one camera:

  quiet   no viewer; the status polled every 50 ms (the API's latency alone)
  loaded  four WebSocket viewers reading every picture, one multipart viewer that connects and
          never reads, and the same polling

Each phase arms, waits for the pre-trigger window, triggers one shot and waits for it to be saved:
a shot with every frame (no sequence gap, complete) and the capture's drop counters over the phase
say whether the viewers cost the camera anything. Picture latency: the frame's CLOCK_MONOTONIC time
(in each picture's header) to its arrival at the viewer (same machine, same clock).

  bench/serve/load.py [--camera ARGS] [--seconds N] [--json]
  SLOMO_BIN=.build/release/slomo bench/serve/load.py --camera "--source synthetic:fps=240,size=640x360,format=yuv420p"
"""
import argparse
import http.client
import json
import os
import shlex
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "serve"))
from client import Server  # noqa: E402


def pct(values, p):
    if not values:
        return None
    v = sorted(values)
    return round(v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))], 2)


class Poller(threading.Thread):
    """GET /api/v1/status every 50 ms; the latency of each, in ms."""
    def __init__(self, c):
        super().__init__(daemon=True)
        self.c, self.ms, self.stop = c, [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            t = time.monotonic()
            self.c.get("/api/v1/status")
            self.ms.append((time.monotonic() - t) * 1000)
            time.sleep(0.05)


class Viewer(threading.Thread):
    """A WebSocket viewer reading every picture: pictures, frame indices, latency in ms."""
    def __init__(self, c):
        super().__init__(daemon=True)
        self.c, self.latency, self.frames, self.stop = c, [], [], threading.Event()

    def run(self):
        ws = self.c.websocket()
        while not self.stop.is_set():
            header, jpeg = ws.message()
            now = time.clock_gettime(time.CLOCK_MONOTONIC)
            self.latency.append((now - header["frameTime"]) * 1000)
            self.frames.append(header["frameIndex"])
        ws.close()


def stalled(c):
    """A multipart viewer that connects and never reads a byte."""
    conn = http.client.HTTPConnection(c.host, c.port, timeout=30)
    conn.request("GET", "/preview.mjpg", headers=c.headers())
    conn.getresponse()          # the headers only; the body is never read
    return conn


def phase(c, seconds, loaded):
    before = c.status()
    poller = Poller(c)
    poller.start()
    viewers, slow = [], None
    if loaded:
        viewers = [Viewer(c) for _ in range(4)]
        for v in viewers:
            v.start()
        slow = stalled(c)
    t0 = time.monotonic()
    assert c.post("/api/v1/arm").status == 200
    c.wait(lambda s: s.get("preTriggerFill") == 1, what="armed")
    # the rest of the phase's time before the trigger, so that viewers run through a whole shot
    time.sleep(max(0, seconds - (time.monotonic() - t0) - 1))
    shots = c.status()["shotsSaved"]
    assert c.post("/api/v1/trigger").status == 202
    c.wait(lambda s: s["shotsSaved"] == shots + 1 and s["state"] == "idle", timeout=120, what="the shot saved")
    after = c.status()
    poller.stop.set()
    for v in viewers:
        v.stop.set()
    for v in viewers:
        v.join(10)
    poller.join(5)
    elapsed = time.monotonic() - t0
    shot = c.get("/api/v1/shots").json()["shots"][-1]["report"]
    lat = [x for v in viewers for x in v.latency]
    out = {
        "phase": "loaded" if loaded else "quiet",
        "seconds": round(elapsed, 1),
        "framesCaptured": after["framesCaptured"] - before["framesCaptured"],
        "droppedByDriver": after["droppedByDriver"] - before["droppedByDriver"],
        "droppedBySlomo": after["droppedBySlomo"] - before["droppedBySlomo"],
        "shotComplete": shot["complete"], "shotSequenceGaps": shot["sequenceGaps"], "shotFrames": shot["framesWritten"],
        "apiP50Ms": pct(poller.ms, 50), "apiP99Ms": pct(poller.ms, 99), "apiRequests": len(poller.ms),
    }
    if loaded:
        out.update({
            "viewers": 4, "stalledViewers": 1,
            "picturesPerViewer": [len(v.frames) for v in viewers],
            "pictureFpsPerViewer": round(statistics.mean(len(v.frames) for v in viewers) / elapsed, 2),
            "pictureLatencyP50Ms": pct(lat, 50), "pictureLatencyP99Ms": pct(lat, 99),
            "picturesReplaced": after["live"]["replaced"],
        })
        slow.close()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--camera", default="--source synthetic:fps=240,size=640x360,format=yuv420p")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--preview-fps", default="15")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="slomo-serve-load-") as d:
        s = Server(shlex.split(a.camera) + ["--pre-trigger", "1", "--post-trigger", "1", "--preview-fps", a.preview_fps],
                   os.path.join(d, "out"), token_file=os.path.join(d, "token"))
        try:
            c = s.client()
            c.wait(lambda st: st["state"] == "idle" and st["framesCaptured"] > 0, what="the camera streaming")
            camera = c.status()
            results = [phase(c, a.seconds, False), phase(c, a.seconds, True)]
        finally:
            s.stop()
    f = camera["format"]
    head = {"camera": camera["camera"], "mode": f"{f['fourcc']} {f['width']}x{f['height']}",
            "nominalFps": camera["nominalFrameRate"]["numerator"] / camera["nominalFrameRate"]["denominator"],
            "previewFps": a.preview_fps}
    if a.json:
        print(json.dumps({"run": head, "phases": results}, indent=1))
        return
    print(f"slomo serve load: {head['camera']} {head['mode']} at {head['nominalFps']:g} fps, pictures at {a.preview_fps} fps")
    for r in results:
        line = (f"  {r['phase']:6}: {r['framesCaptured']} frames in {r['seconds']} s, dropped {r['droppedByDriver']} by the camera + "
                f"{r['droppedBySlomo']} by slomo; shot {r['shotFrames']} frames, complete {r['shotComplete']}, gaps {r['shotSequenceGaps']}; "
                f"API p50 {r['apiP50Ms']} ms p99 {r['apiP99Ms']} ms ({r['apiRequests']} requests)")
        if r["phase"] == "loaded":
            line += (f"\n          4 viewers: {r['pictureFpsPerViewer']} pictures/s each, latency p50 {r['pictureLatencyP50Ms']} ms "
                     f"p99 {r['pictureLatencyP99Ms']} ms; 1 stalled viewer; {r['picturesReplaced']} pictures replaced unread")
        print(line)


if __name__ == "__main__":
    main()
