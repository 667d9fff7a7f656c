#!/usr/bin/env python3
# How each sound-triggered shot's event lies against when its click was played (CLOCK_MONOTONIC,
# from Tests/vivid/clicks.c's timestamps). Usage: trigger-offsets.py CLICKS.txt CAPTURE.json
# Prints: "clicks N shots M matched K missed X offset_ms p50 max frame_after_ms p50 max exact E player_xruns R"
#   clicks: played while the capture could hear them (between its first and last shot's events,
#   which the holdoff allows to be every click); offset = event − played; frame_after = the trigger
#   frame's timestamp − the event; exact: shots whose file has the frame before the trigger frame
#   stamped before the event and the trigger frame at or after it (the frame of the instant, whatever
#   frames the camera lost around it).
import json, subprocess, sys
from fractions import Fraction

starts, pairs, xruns = [], [], "?"
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "X": xruns = f[1]
    elif f[0] == "C": starts.append(int(f[1]))
    elif f[0] == "P": pairs.append((int(f[1]), int(f[2]) + int(f[3]) / 1e9))
pairs = [p for p in pairs if p[0] > 0]
n = len(pairs); sx = sum(p for p, _ in pairs); sy = sum(t for _, t in pairs)
sxx = sum(p * p for p, _ in pairs); sxy = sum(p * t for p, t in pairs)
b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
played = [a + b * k for k in starts]
frac = lambda r: float(Fraction(r["numerator"], r["denominator"]))
shots = json.load(open(sys.argv[2])).get("shots") or []
events = [(frac(s["triggerTime"]), frac(s["triggerFrameTime"])) for s in shots]
if not events: print("clicks %d shots 0" % len(played)); sys.exit()
lo, hi = min(e for e, _ in events) - 0.1, max(e for e, _ in events) + 0.1
heard = [p for p in played if lo <= p <= hi]
offsets, after, matched = [], [], set()
for e, f in events:
    near = min(heard, key=lambda p: abs(p - e))
    if abs(near - e) < 0.1:
        matched.add(near); offsets.append((e - near) * 1000); after.append((f - e) * 1000)
def frame_times(path):
    run = lambda *a: subprocess.run(["ffprobe", "-v", "error", *a, path], capture_output=True, text=True).stdout
    tags = json.loads(run("-show_entries", "format_tags", "-of", "json"))["format"].get("tags", {})
    start = Fraction(next(v for k, v in tags.items() if k.lower() == "slomo_capture_start"))
    tb = Fraction(run("-select_streams", "v", "-show_entries", "stream=time_base", "-of", "csv=p=0").strip())
    return sorted(start + int(p) * tb for p in run("-select_streams", "v", "-show_entries", "packet=pts", "-of", "csv=p=0").split())
exact = 0
for s in shots:
    t = frame_times(s["output"]); k = s["triggerFrame"]; e = Fraction(s["triggerTime"]["numerator"], s["triggerTime"]["denominator"])
    if k < len(t) and t[k] >= e and (k == 0 or t[k - 1] < e): exact += 1
o = sorted(abs(x) for x in offsets); f = sorted(after)
print("clicks %d shots %d matched %d missed %d offset_ms %.3f %.3f frame_after_ms %.3f %.3f exact %d player_xruns %s" % (
    len(heard), len(shots), len(matched), len(heard) - len(matched), o[len(o) // 2], o[-1], f[len(f) // 2], f[-1], exact, xruns))
