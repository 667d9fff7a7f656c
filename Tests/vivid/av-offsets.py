#!/usr/bin/env python3
# Where the clicks of Tests/vivid/clicks.c landed in a slomo recording, against when they were
# played (CLOCK_MONOTONIC). Usage: av-offsets.py CLICKS.txt RECORDING
# Prints: "clicks N found M offset_ms p50 max first last rate R player_xruns X" (offset = recorded time − played time;
# recorded time = slomo_capture_start + the click's position in the file's audio).
import os, subprocess, sys, json, struct
from fractions import Fraction
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recording import click_track

clicks_txt, rec = sys.argv[1], sys.argv[2]
# --map A:B:R: the recording was slowed while recording, source A..B s at rate R; file times are
# mapped back to source times and clicks inside the slowed section are left out (stretched)
seg = None
if len(sys.argv) > 4 and sys.argv[3] == "--map":
    a, b, r = sys.argv[4].split(":"); seg = (float(a), float(b), float(Fraction(r)))
def source_time(t):
    if seg is None or t < seg[0]: return t
    a, b, r = seg
    out_b = a + (b - a) / r
    return a + (t - a) * r if t < out_b else t - out_b + b
played, rate, xruns = click_track(clicks_txt)
starts = played

meta = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format_tags", "-of", "json", rec],
                                 capture_output=True, text=True).stdout)["format"].get("tags", {})
# --start S: the audio's first sample at CLOCK_MONOTONIC S (a recording not written by slomo)
if "--start" in sys.argv:
    start = float(sys.argv[sys.argv.index("--start") + 1])
else:
    start = float(Fraction(next(v for k, v in meta.items() if k.lower() == "slomo_capture_start")))
pcm = subprocess.run(["ffmpeg", "-v", "error", "-i", rec, "-map", "0:a:0", "-ac", "1", "-f", "s16le", "-"],
                     capture_output=True).stdout
x = struct.unpack("<%dh" % (len(pcm) // 2), pcm)
found, i = [], 0
while i < len(x):
    if abs(x[i]) > 14000:
        s = source_time(i / 48000)
        if seg is None or not (seg[0] - 0.05 <= s <= seg[1] + 0.05): found.append(start + s)
        i += 4800 if seg is None or s < seg[0] else 4800 * 4         # past this click (stretched in the section)
    else:
        i += 1
offsets = []
for t in found:
    near = min(played, key=lambda p: abs(p - t))
    if abs(near - t) < 0.1: offsets.append((t - near) * 1000)
s = sorted(abs(o) for o in offsets)
if not s: print("clicks %d found %d offset_ms none" % (len(starts), len(found))); sys.exit()
print("clicks %d found %d offset_ms %.2f %.2f %.2f %.2f rate %.1f player_xruns %s" % (len(starts), len(offsets), s[len(s) // 2], s[-1], offsets[0], offsets[-1], rate, xruns))
