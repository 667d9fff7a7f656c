# Shared by the test machine's Python checks: when a click track was played, and when a recording's
# frames were captured, both on CLOCK_MONOTONIC.
import json, subprocess
from fractions import Fraction


def click_track(path):
    """Tests/vivid/clicks.c's output: (played times of its clicks, the fit's rate in Hz, player underruns).
    The player's (position, time) pairs are fitted by least squares: time = a + b * position."""
    starts, pairs, xruns = [], [], "?"
    for line in open(path):
        f = line.split()
        if f[0] == "X": xruns = f[1]
        elif f[0] == "C": starts.append(int(f[1]))
        elif f[0] == "P": pairs.append((int(f[1]), int(f[2]) + int(f[3]) / 1e9))
    pairs = [p for p in pairs if p[0] > 0]
    n = len(pairs); sx = sum(p for p, _ in pairs); sy = sum(t for _, t in pairs)
    sxx = sum(p * p for p, _ in pairs); sxy = sum(p * t for p, t in pairs)
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
    return [a + b * k for k in starts], 1 / b, xruns


def frame_times(path, with_time_base=False):
    """A slomo recording's video frames as CLOCK_MONOTONIC times: slomo_capture_start + each pts, sorted
    (and the stream's time base: a Matroska file holds times to the millisecond)."""
    run = lambda *a: subprocess.run(["ffprobe", "-v", "error", *a, path], capture_output=True, text=True).stdout
    tags = json.loads(run("-show_entries", "format_tags", "-of", "json"))["format"].get("tags", {})
    start = Fraction(next(v for k, v in tags.items() if k.lower() == "slomo_capture_start"))
    tb = Fraction(run("-select_streams", "v", "-show_entries", "stream=time_base", "-of", "csv=p=0").strip())
    t = sorted(start + int(p) * tb for p in run("-select_streams", "v", "-show_entries", "packet=pts", "-of", "csv=p=0").split())
    return (t, tb) if with_time_base else t


def is_frame_of(shot, event):
    """The shot's trigger frame is the frame of `event`: the report's trigger frame time (exact) at or
    after it, the file's frame at the trigger index that frame (its time within the file's rounding:
    half a tick of its time base) and the file's frame before it stamped before the event (to that
    rounding: a Matroska file's millisecond put a frame 0.3 ms after a click 0.2 ms before it)."""
    t, tb = frame_times(shot["output"], with_time_base=True); k = shot["triggerFrame"]
    r = shot.get("triggerFrameTime")
    exact = Fraction(r["numerator"], r["denominator"]) if r else t[k] if k < len(t) else None
    return (k < len(t) and exact >= event and abs(t[k] - exact) <= tb / 2
            and (k == 0 or t[k - 1] < event + tb / 2))
