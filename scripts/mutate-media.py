#!/usr/bin/env python3
"""Mutated media against slomo's readers (Docs/Reliability.md, "Mutated media").

Real clips (slomo's calibration clips in several codecs and containers, its own capture
recordings, AVI/MJPEG, WAV and FLAC made by the ffmpeg CLI) are damaged by bit flips, byte
runs, truncation and container size fields (MP4/MOV boxes, Matroska element sizes, RIFF
chunks, FLAC metadata blocks), and each damaged file goes through one of `probe --frames`,
`export`, `retime`, `stretch` and `play -o FILE`, in turn, under a timeout.

A run passes when the process
  - ends by itself within the timeout (no hang) and not by a signal,
  - prints no sanitizer report (AddressSanitizer, LeakSanitizer, UBSan),
  - exits 0 with its output written, or exits 65/66 with exactly one `slomo:` line
    naming the input, and leaves nothing under the output name or beside it.
Each failing case is kept (input, command, stderr) under WORK/failures/.
The last line is `mutate: R runs, F failures (S signals, H hangs, A sanitizer reports, C contract)`.

Usage: scripts/mutate-media.py --bin PATH [--runs N] [--seed S] [--jobs J] [--timeout T] [--work DIR]
"""
import argparse
import concurrent.futures
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import time

OPS = ["probe", "export", "retime", "stretch", "play"]
ALLOWED_FAIL = {65, 66}
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                   "WARNING: AddressSanitizer", "SUMMARY: AddressSanitizer",
                   "SUMMARY: UndefinedBehaviorSanitizer")


# ---------------------------------------------------------------- clips

def make_clips(slomo, work):
    """Real clips, small so that a run takes a fraction of a second."""
    d = os.path.join(work, "clips")
    os.makedirs(d, exist_ok=True)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")

    def run(args):
        subprocess.run(args, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def gen(name, *extra):
        out = os.path.join(d, name)
        if not os.path.exists(out):
            run([slomo, "generate", "--fps", "60", "--duration", "0.5", "--size", "160x96",
                 "-o", out, *extra])
        return out

    def ff(name, src, *args):
        out = os.path.join(d, name)
        if not os.path.exists(out) and shutil.which("ffmpeg"):
            run(["ffmpeg", "-v", "error", "-y", "-i", src, *args, out])
        return out if os.path.exists(out) else None

    clips = [gen("cal-h264.mp4"), gen("cal-mjpeg.mov", "--codec", "mjpeg"),
             gen("cal-ffv1.mkv", "--codec", "ffv1"), gen("cal-h264-gop.mkv", "--gop", "8"),
             gen("cal-h264.nut")]
    base = clips[0]
    for name in ("rec-synthetic.mp4", "rec-synthetic-ffv1.mkv"):
        out = os.path.join(d, name)
        if not os.path.exists(out):
            extra = ["--codec", "ffv1"] if name.endswith(".mkv") else []
            run([slomo, "capture", "--source", "synthetic:fps=240,size=160x96", "--duration", "0.25",
                 "-o", out, "--no-sync", *extra])
        clips.append(out)
    # a Phantom Cine take: its time block is read by slomo itself (CineTimes), not by FFmpeg
    cine = os.path.join(d, "rec-synthetic.cine")
    if not os.path.exists(cine):
        run([slomo, "capture", "--source", "synthetic:fps=240,size=160x96,format=gray16", "--frames", "40",
             "-o", cine, "--no-sync"])
    clips.append(cine)
    clips += [ff("avi-mjpeg.avi", base, "-c:v", "mjpeg", "-q:v", "5", "-c:a", "pcm_s16le"),
              ff("hevc.mp4", base, "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                 "log-level=none", "-c:a", "aac"),
              ff("vp9.webm", base, "-c:v", "libvpx-vp9", "-deadline", "realtime", "-c:a", "libopus"),
              ff("tone.wav", base, "-vn", "-c:a", "pcm_s16le"),
              ff("tone.flac", base, "-vn", "-c:a", "flac")]
    return [c for c in clips if c]


# ---------------------------------------------------------------- mutations

def flip_bits(data, rng):
    for _ in range(rng.randint(1, 16)):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return "bits"


def byte_run(data, rng):
    n = rng.randint(1, 256)
    i = rng.randrange(len(data))
    fill = rng.choice([0x00, 0xFF, None])
    for k in range(i, min(len(data), i + n)):
        data[k] = rng.randrange(256) if fill is None else fill
    return "run"


def truncate(data, rng):
    cut = rng.randrange(len(data))
    del data[cut:]
    return "truncate"


MP4_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf", b"udta",
                  b"moof", b"traf", b"mvex", b"meta", b"ilst", b"stsd"}


def mp4_boxes(data, start=0, end=None, depth=0, out=None):
    out = [] if out is None else out
    end = len(data) if end is None else end
    i = start
    while i + 8 <= end and depth < 8:
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        header = 8
        if size == 1 and i + 16 <= end:
            size = struct.unpack(">Q", data[i + 8:i + 16])[0]
            header = 16
        if size < header or i + size > end:
            break
        out.append((i, header))
        if kind in MP4_CONTAINERS:
            skip = {b"meta": 4, b"stsd": 8}.get(kind, 0)
            mp4_boxes(data, i + header + skip, i + size, depth + 1, out)
        i += size
    return out


def riff_chunks(data):
    out, i = [], 0
    while True:
        j = min((data.find(t, i) for t in (b"RIFF", b"LIST", b"data", b"fmt ", b"movi", b"idx1",
                                           b"strh", b"strf", b"avih", b"00dc", b"01wb")
                 if data.find(t, i) >= 0), default=-1)
        if j < 0 or j + 8 > len(data):
            return out
        out.append(j + 4)
        i = j + 4


EBML_IDS = [bytes.fromhex(h) for h in ("1a45dfa3", "18538067", "1f43b675", "1654ae6b", "ae", "a3",
                                       "a0", "a1", "e7", "1c53bb6b", "114d9b74", "e0", "e1", "6d80")]


def ebml_sizes(data):
    out = []
    for ident in EBML_IDS:
        i = 0
        while len(out) < 400:
            j = data.find(ident, i)
            if j < 0:
                break
            if j + len(ident) < len(data):
                out.append(j + len(ident))
            i = j + 1
    return out


def corrupt_size(data, rng, path):
    ext = os.path.splitext(path)[1]
    if ext in (".mp4", ".mov"):
        boxes = mp4_boxes(data)
        if boxes:
            at, header = rng.choice(boxes)
            old = struct.unpack(">I", data[at:at + 4])[0]
            new = rng.choice([0, 1, 7, 8, 0xFFFFFFFF, 0x7FFFFFFF, old + rng.randint(1, 64),
                              max(0, old - rng.randint(1, 64)), rng.randrange(1 << 32)])
            data[at:at + 4] = struct.pack(">I", new & 0xFFFFFFFF)
            return "box-size"
    elif ext in (".wav", ".avi"):
        places = riff_chunks(data)
        if places:
            at = rng.choice(places)
            data[at:at + 4] = struct.pack("<I", rng.choice([0, 1, 0xFFFFFFFF, 0x7FFFFFFF,
                                                          rng.randrange(1 << 32)]))
            return "chunk-size"
    elif ext in (".mkv", ".webm"):
        places = ebml_sizes(data)
        if places:
            at = rng.choice(places)
            first = rng.choice([0x01, 0x08, 0x10, 0x40, 0x80, 0xFF, 0x00, rng.randrange(256)])
            data[at] = first
            for k in range(1, 8):
                if at + k < len(data) and rng.random() < 0.5:
                    data[at + k] = rng.choice([0x00, 0xFF, rng.randrange(256)])
            return "element-size"
    elif ext == ".flac" and data[:4] == b"fLaC":
        i, places = 4, []
        while i + 4 <= len(data) and len(places) < 16:
            places.append(i)
            length = int.from_bytes(data[i + 1:i + 4], "big")
            if data[i] & 0x80:
                break
            i += 4 + length
        at = rng.choice(places)
        data[at + 1:at + 4] = rng.randrange(1 << 24).to_bytes(3, "big")
        if rng.random() < 0.3:
            data[at] ^= 0x80
        return "block-size"
    return byte_run(data, rng)


MUTATORS = [flip_bits, byte_run, truncate, corrupt_size, corrupt_size]


def mutate(original, rng, path):
    data = bytearray(original)
    kinds = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if len(data) < 16:
            break
        m = rng.choice(MUTATORS)
        kinds.append(m(data, rng, path) if m is corrupt_size else m(data, rng))
    return bytes(data), "+".join(kinds)


# ---------------------------------------------------------------- runs

def command(slomo, op, src, outdir):
    ext = os.path.splitext(src)[1]
    if op == "probe":
        return [slomo, "probe", "--frames", src], None
    if op == "export":
        out = os.path.join(outdir, "out.mp4")
        return [slomo, "export", src, "-o", out, "--rate", "1/2", "--preset", "ultrafast",
                "--threads", "1"], out
    if op == "retime":
        # a .cine's 16-bit raw frames go into NUT (FFmpeg 5.1's Matroska refuses them, naming NUT)
        out = os.path.join(outdir, "out" + (ext if ext in (".mp4", ".mov", ".mkv", ".nut") else ".nut" if ext == ".cine" else ".mkv"))
        return [slomo, "retime", src, "-o", out, "--rate", "1/2"], out
    if op == "stretch":
        out = os.path.join(outdir, "out.wav")
        return [slomo, "stretch", src, "-o", out, "--rate", "1/2", "--pitch", "time-domain"], out
    out = os.path.join(outdir, "out.nut")
    return [slomo, "play", src, "-o", out, "--rate", "16", "--pitch", "varispeed"], out


def check(rc, stderr, out, outdir, src_name, timed_out):
    """Returns (category, reason) or None when the run kept the contract."""
    if timed_out:
        return "hang", "no exit within the timeout"
    if any(m in stderr for m in SANITIZER_MARKS):
        return "sanitizer", next(l for l in stderr.splitlines() if any(m in l for m in SANITIZER_MARKS))
    if rc < 0:
        return "signal", f"killed by signal {-rc} ({signal.Signals(-rc).name})"
    if rc == 0:
        if out and not os.path.exists(out):
            return "contract", "exit 0 but no output"
        return None
    lines = [l for l in stderr.splitlines() if l.strip()]
    errors = [l for l in lines if l.startswith("slomo:") and "warning" not in l.split(":", 2)[1]]
    if rc not in ALLOWED_FAIL:
        return "contract", f"exit {rc}: {errors[-1] if errors else stderr.strip()[:300]}"
    if len(errors) != 1:
        return "contract", f"exit {rc} with {len(errors)} error lines: {stderr.strip()[:300]}"
    if src_name not in errors[0]:
        return "contract", f"error line does not name the input: {errors[0]}"
    left = [f for f in os.listdir(outdir) if f != os.path.basename(src_name)]
    if left:
        return "contract", f"exit {rc} left {left} in the output directory"
    return None


def one_run(args, index, clips, originals):
    rng = random.Random(args.seed * 1_000_003 + index)
    clip = clips[index % len(clips)]
    op = OPS[(index // len(clips)) % len(OPS)]
    data, kinds = mutate(originals[clip], rng, clip)
    rundir = os.path.join(args.work, "runs", str(index))
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    src = os.path.join(rundir, "in-" + os.path.basename(clip))
    with open(src, "wb") as f:
        f.write(data)
    outdir = os.path.join(rundir, "out")
    os.makedirs(outdir)
    cmd, out = command(args.bin, op, src, outdir)
    env = dict(os.environ, ASAN_OPTIONS=args.asan_options, TMPDIR=rundir)
    timed_out = False
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        timed_out = True
    seconds = time.monotonic() - start
    stderr = err.decode("utf-8", "replace")
    verdict = check(proc.returncode, stderr, out, outdir, src, timed_out)
    if verdict:
        keep = os.path.join(args.work, "failures", f"{index:06d}-{op}-{os.path.basename(clip)}")
        os.makedirs(keep, exist_ok=True)
        shutil.copy(src, keep)
        with open(os.path.join(keep, "run.txt"), "w") as f:
            f.write(f"seed {args.seed} index {index} mutation {kinds}\n{' '.join(cmd)}\n"
                    f"exit {proc.returncode}; {verdict[0]}: {verdict[1]}\n--- stderr\n{stderr}")
    shutil.rmtree(rundir, ignore_errors=True)
    return op, proc.returncode, verdict, seconds, kinds


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--work", default=".build-mutate")
    p.add_argument("--asan-options", default="detect_leaks=1:abort_on_error=0:exitcode=99")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args()
    args.bin = os.path.abspath(args.bin)
    args.work = os.path.abspath(args.work)
    shutil.rmtree(os.path.join(args.work, "runs"), ignore_errors=True)
    clips = make_clips(args.bin, args.work)
    originals = {c: open(c, "rb").read() for c in clips}
    counts = {"signal": 0, "hang": 0, "sanitizer": 0, "contract": 0}
    exits, per_op, total_seconds = {}, {}, 0.0
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(one_run, args, i, clips, originals) for i in range(args.runs)]
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            op, rc, verdict, seconds, kinds = fut.result()
            total_seconds += seconds
            exits[rc] = exits.get(rc, 0) + 1
            per_op[op] = per_op.get(op, 0) + 1
            if verdict:
                counts[verdict[0]] += 1
                print(f"mutate: FAIL {op} ({kinds}): {verdict[0]}: {verdict[1]}", file=sys.stderr)
            if not args.quiet and n % 500 == 0:
                print(f"mutate: {n}/{args.runs} runs, {sum(counts.values())} failures, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    failures = sum(counts.values())
    print(f"mutate: clips {len(clips)} ({', '.join(os.path.basename(c) for c in clips)}); "
          f"per operation {dict(sorted(per_op.items()))}; exit statuses {dict(sorted(exits.items()))}; "
          f"{time.monotonic() - started:.0f} s wall, {total_seconds / max(1, args.runs):.2f} s per run")
    print(f"mutate: {args.runs} runs, {failures} failures ({counts['signal']} signals, {counts['hang']} hangs, "
          f"{counts['sanitizer']} sanitizer reports, {counts['contract']} contract)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
