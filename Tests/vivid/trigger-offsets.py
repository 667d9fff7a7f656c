#!/usr/bin/env python3
# How each sound-triggered shot's event lies against when its click was played (CLOCK_MONOTONIC,
# from Tests/vivid/clicks.c's timestamps). Usage: trigger-offsets.py CLICKS.txt CAPTURE.json
# Prints: "clicks N shots M matched K missed X offset_ms p50 max frame_after_ms p50 max exact E player_xruns R"
#   clicks: played while the capture could hear them (between its first and last shot's events,
#   which the holdoff allows to be every click); offset = event − played; frame_after = the trigger
#   frame's timestamp − the event; exact: shots whose file has the frame before the trigger frame
#   stamped before the event and the trigger frame at or after it (the frame of the instant, whatever
#   frames the camera lost around it).
import json, os, sys
from fractions import Fraction
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recording import click_track, is_frame_of

played, _, xruns = click_track(sys.argv[1])
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
exact = sum(1 for s in shots if is_frame_of(s, Fraction(s["triggerTime"]["numerator"], s["triggerTime"]["denominator"])))
o = sorted(abs(x) for x in offsets); f = sorted(after)
print("clicks %d shots %d matched %d missed %d offset_ms %.3f %.3f frame_after_ms %.3f %.3f exact %d player_xruns %s" % (
    len(heard), len(shots), len(matched), len(heard) - len(matched), o[len(o) // 2], o[-1], f[len(f) // 2], f[-1], exact, xruns))
