#!/usr/bin/env python3
# One row of bench/interpolate/run.sh: the rebuilt frames of MADE (those strictly between two kept
# frames: n not a multiple of K, before the last kept one) against the same frames of REAL.
#   score.py REAL.nut MADE.nut K CLIP METHOD
import math, subprocess, sys
real, made, k, clip, method = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
count = lambda p: int(subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v", "-show_entries",
                                      "stream=nb_read_frames", "-of", "csv=p=0", p], capture_output=True, text=True).stdout.strip() or 0)
n_real, n_made = count(real), count(made)
last_kept = (n_real - 1) // k * k
scored = [n for n in range(last_kept) if n % k]
missing = sum(1 for n in scored if n >= n_made)
sel = "gt(mod(n\\,%d)\\,0)*lt(n\\,%d)" % (k, min(last_kept, n_made))
graph = ("[0:v]select='%s',setpts=N/TB[a];[1:v]select='%s',setpts=N/TB[b];[a]split[a1][a2];[b]split[b1][b2];"
         "[a1][b1]psnr=stats_file=-[p];[a2][b2]ssim[s]") % (sel, sel)
out = subprocess.run(["ffmpeg", "-v", "info", "-nostats", "-i", made, "-i", real, "-filter_complex", graph, "-map", "[p]", "-f", "null", "-",
                      "-map", "[s]", "-f", "null", "-"], capture_output=True, text=True)
ys = [float(f.split(":")[1]) for line in out.stdout.splitlines() for f in line.split() if f.startswith("psnr_y:")]
kept_order = [n for n in range(min(last_kept, n_made)) if n % k]   # the scored frames, in the order psnr saw them
ssim = next((float(f.split(":")[1]) for line in out.stderr.splitlines() if "SSIM" in line for f in line.split() if f.startswith("All:")), float("nan"))
finite = [min(y, 99.0) if not math.isinf(y) else 99.0 for y in ys]
mean = sum(finite) / len(finite) if finite else float("nan")
worst = min(range(len(finite)), key=lambda i: finite[i]) if finite else -1
print("| %s | %d | %s | %.2f | %.4f | %.2f | %d | %d | %d |" % (clip, k, method, mean, ssim, min(finite) if finite else float("nan"),
                                                          kept_order[worst] if worst >= 0 else -1, len(finite), missing))
