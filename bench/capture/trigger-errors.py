#!/usr/bin/env python3
# One row of bench/capture/triggers.sh: how far each shot's event lies outside the nearest reference
# (a GPIO edge: the window of the write that made it; a click: its play time), and whether its trigger
# frame is the frame of that instant.
#   trigger-errors.py WAY LOAD REFERENCE CAPTURE.json
# REFERENCE: "E t0 t1" lines (a GPIO edge written between t0 and t1 ns; its instant: the middle) or
# Tests/vivid/clicks.c's output (each click's play time).
import json, os, sys
from fractions import Fraction
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../Tests/vivid"))
from recording import click_track, is_frame_of

way, load, ref, cap = sys.argv[1:5]
lines = open(ref).read().split("\n")
# each reference: (its instant, the window it is known within)
if any(l.startswith("E ") for l in lines):
    w = [(Fraction(int(l.split()[1]), 10**9), Fraction(int(l.split()[2]), 10**9)) for l in lines if l.startswith("E ")]
    refs = [(a + b) / 2 for a, b in w]; window = dict(zip(refs, w))
else:
    refs = [Fraction(t).limit_denominator(10**9) for t in click_track(ref)[0]]; window = {r: (r, r) for r in refs}
try: report = json.load(open(cap))
except Exception: report = {}
shots = report.get("shots") or []
camera = "%.1f / %d" % (report.get("achievedFps", 0), report.get("droppedByDriver", 0))
errors, exact = [], 0
for s in shots:
    e = Fraction(s["triggerTime"]["numerator"], s["triggerTime"]["denominator"])
    near = min(refs, key=lambda r: abs(r - e)) if refs else None
    if near is None or abs(near - e) > Fraction(1, 4): continue
    # how far the event lies outside the reference's window (0 inside it; a click's window is its instant)
    a, b = window[near]
    errors.append(float(e - b if e > b else e - a if e < a else 0) * 1000)
    # the frame of the instant, where the write's window leaves a doubt: the frame of either end of it
    if any(is_frame_of(s, x) for x in (window[near][0], near, window[near][1])): exact += 1
# clicks play on past the capture: count those between its first and last shot (the holdoff allows each)
if not any(l.startswith("E ") for l in lines) and errors:
    times = [Fraction(x["triggerTime"]["numerator"], x["triggerTime"]["denominator"]) for x in shots]
    refs = [r for r in refs if min(times) - Fraction(1, 10) <= r <= max(times) + Fraction(1, 10)]
a = sorted(abs(x) for x in errors)
p50 = "%.3f / %.3f" % (a[(len(a) - 1) // 2], a[-1]) if a else "—"
wide = max(float(b - a) * 1000 for a, b in window.values()) if window else 0
print("| %s | %s | %d | %d | %s | %.3f | %d of %d | %s |" % (way, load, len(refs), len(shots), p50, wide, exact, len(errors), camera))
