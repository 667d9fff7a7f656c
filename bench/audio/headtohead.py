#!/usr/bin/env python3
"""Head to head: slomo's spectral and time-domain `stretch` against `rubberband -3` and
`soundstretch` on the same WAV files, run alternately so that both see the same machine state.
Prints CPU seconds (user + sys of the process and its threads) as min and median of N runs, and
the ratio peer / slomo of each (> 1: slomo is faster). Min is the fairest single figure for a
CPU-bound job on a shared machine (noise only ever adds); the median shows the spread.

  bench/audio/headtohead.py --slomo PATH [--runs N] [--quick]
"""
import argparse, statistics, subprocess, sys, tempfile
from run import run, frac   # run.py beside this file: CPU seconds of one command, None if it failed

def cpu(cmd):
    seconds = run(cmd)
    if seconds is None:
        sys.exit(1)
    return seconds

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--slomo", required=True)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    w = tempfile.mkdtemp(prefix="slomo-h2h.")
    def make(name, seconds, channels, rate=48000):
        path = f"{w}/{name}-{seconds}s-{channels}ch.wav"
        # a harmonic mix with a click every 250 ms: tonal and transient content, as music has
        expr = r"0.3*sin(2*PI*220*t)+0.2*sin(2*PI*330*t)+0.1*sin(2*PI*880*t)+0.3*lt(mod(t\,0.25)\,0.0005)"
        src = "|".join([expr] * channels)
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"aevalsrc={src}:s={rate}:d={seconds}",
                        "-c:a", "pcm_s16le", path], check=True)
        return path
    cases = []   # (label, input, slomo args, peer command)
    plan = [("1/8", 4, 1), ("1/2", 16, 1), ("2", 24, 1), ("4", 24, 1), ("32", 24, 1), ("1/2", 16, 2)]
    if a.quick: plan = [("1/2", 8, 1), ("4", 24, 1)]
    for r, s, ch in plan:
        f = frac(r)
        i = make("mix", s, ch)
        cases.append((f"spectral {r} ({s} s, {ch} ch)", i, ["--pitch", "spectral", "--rate", r],
                      lambda i, o, f=f: ["rubberband", "-3", "-q", "-T", f"{f:.9f}", i, o], "rubberband -3"))
    for r, s, ch in ([("1/2", 180, 1), ("2", 180, 1), ("1/2", 60, 2)] if not a.quick else [("1/2", 60, 1)]):
        f = frac(r)
        i = make("mix", s, ch, 44100)
        cases.append((f"time-domain {r} ({s} s, {ch} ch)", i, ["--pitch", "time-domain", "--rate", r],
                      lambda i, o, f=f: ["soundstretch", i, o, f"-tempo={(f - 1) * 100:.6f}"], "soundstretch"))
    print(f"{'case':32s} {'peer':14s} {'slomo min':>9s} {'peer min':>9s} {'ratio':>6s} {'slomo med':>9s} {'peer med':>9s} {'ratio':>6s}")
    for label, i, args, peer, peer_name in cases:
        mine, theirs = [], []
        for _ in range(a.runs):
            mine.append(cpu([a.slomo, "stretch", i, "-o", f"{w}/s.wav", "--overwrite"] + args))
            theirs.append(cpu(peer(i, f"{w}/p.wav")))
        m1, t1, m2, t2 = min(mine), min(theirs), statistics.median(mine), statistics.median(theirs)
        print(f"{label:32s} {peer_name:14s} {m1:9.3f} {t1:9.3f} {t1 / m1:6.2f} {m2:9.3f} {t2:9.3f} {t2 / m2:6.2f}", flush=True)

main()
