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
import socket
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
    """A multipart viewer that connects and never reads a byte (a 4 KiB receive buffer, so the
    server's writes to it block within a picture or two, as a phone's would on a bad link)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((c.host, c.port))
    h = c.headers()
    s.sendall(("GET /preview.mjpg HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items()) + "\r\n").encode())
    return s


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


class PeerViewer(threading.Thread):
    """A reader of µStreamer's /stream with its extra headers: pictures and latency (its grab
    time to arrival)."""
    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.latency, self.frames, self.stop = port, [], 0, threading.Event()

    def run(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", "/stream?extra_headers=1")
        r = conn.getresponse()
        headers = {}
        while not self.stop.is_set():
            line = r.fp.readline()
            if not line:
                return
            line = line.decode(errors="replace").strip()
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
            elif not line and "content-length" in headers:
                r.fp.read(int(headers["content-length"]))
                # µStreamer's times are CLOCK_MONOTONIC_RAW (its us_get_now_monotonic); its
                # grab time is when it dequeued the buffer
                now = time.clock_gettime(time.CLOCK_MONOTONIC_RAW)
                if self.frames == 0:
                    self.first_headers = dict(headers)
                grab = headers.get("x-ustreamer-grab-time") or headers.get("x-ustreamer-grab-timestamp")
                if grab:
                    self.latency.append((now - float(grab)) * 1000)
                self.frames += 1
                headers = {}


def peer(device, size, fmt, seconds):
    """µStreamer (the MJPEG streamer users pick for a headless camera) on the same camera and mode,
    alone, with the same four readers and one stalled client."""
    import shutil
    import subprocess
    if not shutil.which("ustreamer"):
        return None
    port = 18080
    p = subprocess.Popen(["ustreamer", "-d", device, "-r", size, "-m", fmt, "-s", "127.0.0.1", "-p", str(port)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(3)
        viewers = [PeerViewer(port) for _ in range(4)]
        for v in viewers:
            v.start()
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.connect(("127.0.0.1", port))
        slow.sendall(b"GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        t0 = time.monotonic()
        time.sleep(seconds)
        for v in viewers:
            v.stop.set()
        elapsed = time.monotonic() - t0
        lat = [x for v in viewers for x in v.latency]
        slow.close()
        return {"peer": "ustreamer", "headers": getattr(viewers[0], "first_headers", None), "pictureFpsPerViewer": round(statistics.mean(v.frames for v in viewers) / elapsed, 2),
                "pictureLatencyP50Ms": pct(lat, 50), "pictureLatencyP99Ms": pct(lat, 99)}
    finally:
        p.terminate()
        p.wait(10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--camera", default="--source synthetic:fps=240,size=640x360,format=yuv420p")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--preview-fps", default="15")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--peer", action="store_true", help="also µStreamer on the same camera (a V4L2 device), after slomo")
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
    other = None
    if a.peer:
        words = shlex.split(a.camera)
        size = words[words.index("--size") + 1] if "--size" in words else f"{camera['format']['width']}x{camera['format']['height']}"
        other = peer(words[0], size, camera["format"]["fourcc"], a.seconds)
    head = {"camera": camera["camera"], "mode": f"{f['fourcc']} {f['width']}x{f['height']}",
            "nominalFps": camera["nominalFrameRate"]["numerator"] / camera["nominalFrameRate"]["denominator"],
            "previewFps": a.preview_fps}
    if a.json:
        print(json.dumps({"run": head, "phases": results, "peer": other}, indent=1))
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
    if other:
        mine = results[1]
        if not other["pictureLatencyP50Ms"]:
            print("  ustreamer part headers:", other["headers"])
        print(f"  ustreamer (alone, recording nothing; same camera, 4 readers + 1 stalled): {other['pictureFpsPerViewer']} pictures/s each, "
              f"latency p50 {other['pictureLatencyP50Ms']} ms p99 {other['pictureLatencyP99Ms']} ms; "
              f"slomo/ustreamer latency p50 {round(mine['pictureLatencyP50Ms'] / other['pictureLatencyP50Ms'], 2) if other['pictureLatencyP50Ms'] else '?'}")


if __name__ == "__main__":
    main()
