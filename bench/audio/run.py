#!/usr/bin/env python3
"""Time-pitch benchmark: slomo's four algorithms against the tools a user would pick instead,
on the same generated inputs, in one run, printed as one table.

  bench/audio/run.sh [--quick]          (builds slomo in release mode first)
  bench/audio/run.py [--quick] [--slomo PATH]

Inputs (48 kHz mono, made here; longer at fast rates so that process start-up does not dominate): a 1 kHz tone (pitch), a harmonic mix with clicks every 250 ms
(transients), and speech from espeak-ng. Peers: rubberband -2 / -3 (rubberband-cli), soundstretch,
ffmpeg atempo (chained below 0.5) and its rubberband filter, ffmpeg asetrate+aresample (varispeed).
Columns: CPU seconds (user+sys) and x realtime (input seconds per CPU second), duration error in
samples against round(N / rate), pitch error in cents on the tone (varispeed: against 1000 x rate),
latency (slomo only: the largest engine latency from `stretch --json`, ms, already compensated),
and transients on the click signal: peaks found per click and their smear (ms, 10-90 % rise of
the high-passed click envelope; 1 peak and a short rise is a clean click). Rates per algorithm: those it covers out of 1/32 1/8 1/4 1/2 2 4 32.
"""
import argparse, json, os, resource, subprocess, sys, tempfile
import numpy as np

SR = 48000
RATES = ["1/32", "1/8", "1/4", "1/2", "2", "4", "32"]
# input seconds per rate: output length and CPU stay comparable across rates
SECONDS = {"1/32": 2, "1/8": 4, "1/4": 6, "1/2": 16, "2": 24, "4": 24, "32": 24}
QUICK_SECONDS = {"1/8": 2, "1/2": 6, "2": 8}

def frac(r):
    n, _, d = r.partition("/")
    return float(n) / float(d or 1)

def run(cmd, capture=False):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.PIPE if capture else subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.stderr.write(f"failed: {' '.join(cmd)}: {p.stderr.decode(errors='replace').strip()}\n")
        return None
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (cpu, p.stdout) if capture else cpu

def read(path):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-ac", "1", "-ar", str(SR), "-"],
                         stdout=subprocess.PIPE, check=True).stdout
    return np.frombuffer(raw, dtype=np.float32)

def write(path, x):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "f32le", "-ar", str(SR), "-ac", "1", "-i", "-", "-c:a", "pcm_s16le", path],
                   input=x.astype(np.float32).tobytes(), check=True)

def pitch(x):
    a, b = len(x) // 4, len(x) * 3 // 4
    seg = x[a:b] * np.hanning(b - a)
    sp = np.abs(np.fft.rfft(seg, len(seg) * 4)); k = int(np.argmax(sp[1:])) + 1
    l, c, r = np.log(sp[k - 1] + 1e-12), np.log(sp[k] + 1e-12), np.log(sp[k + 1] + 1e-12)
    return (k + 0.5 * (l - r) / (l - 2 * c + r)) * SR / (len(seg) * 4)

def transients(x, rate, n_clicks):
    """Peaks per click and 10-90 % rise time (ms) of the envelope around each expected click."""
    # second difference: the 4 kHz clicks pass, the 220-880 Hz harmonic bed is attenuated ~20x
    hp = np.diff(x, 2, prepend=[0, 0])
    env = np.convolve(np.abs(hp), np.ones(48) / 48, mode="same")
    peaks, rises = [], []
    for k in range(1, n_clicks - 1):
        t = int(k * 0.25 / rate * SR)
        w = int(0.06 * SR)
        seg = env[max(0, t - w): t + w]
        if len(seg) == 0 or seg.max() <= 0:
            continue
        top = seg.max(); base = np.median(env)
        above = seg > base + 0.5 * (top - base)
        peaks.append(int(np.sum(np.diff(above.astype(int)) == 1)) or 1)
        i90 = int(np.argmax(seg >= base + 0.9 * (top - base)))
        before = np.where(seg[:i90] <= base + 0.1 * (top - base))[0]
        rises.append((i90 - (before[-1] if len(before) else 0)) * 1000 / SR)
    return (np.mean(peaks) if peaks else float("nan"), np.median(rises) if rises else float("nan"))

def make_inputs(w, seconds):
    t = np.arange(int(seconds * SR)) / SR
    tone = 0.5 * np.sin(2 * np.pi * 1000 * t)
    mix = sum(0.15 * np.sin(2 * np.pi * f * t) for f in (220, 440, 660, 880))
    for k in range(int(seconds / 0.25)):
        i = int(k * 0.25 * SR); mix[i:i + 96] += 0.8 * np.hanning(96) * np.sin(2 * np.pi * 4000 * np.arange(96) / SR)
    write(f"{w}/tone-{seconds}.wav", tone); write(f"{w}/clicks-{seconds}.wav", mix)
    return len(tone)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--slomo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.build-audio/release/slomo"))
    a = ap.parse_args()
    lengths = QUICK_SECONDS if a.quick else SECONDS
    rates = list(lengths)
    w = tempfile.mkdtemp(prefix="slomo-bench-audio.")
    subprocess.run(["espeak-ng", "-w", f"{w}/speech-raw.wav", "slow motion makes fast things visible, one frame at a time"], check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", f"{w}/speech-raw.wav", "-ar", str(SR), "-ac", "1", f"{w}/speech.wav"], check=True)
    speech_seconds = len(read(f"{w}/speech.wav")) / SR
    # start-up cost of each program (a 10 ms input at rate 1/2), so that short runs can be read fairly
    write(f"{w}/tiny.wav", np.zeros(SR // 100))

    def tools(r):
        f = frac(r)
        atempo = []
        tempo = f
        while tempo < 0.5: atempo.append("atempo=0.5"); tempo /= 0.5
        while tempo > 100: atempo.append("atempo=100"); tempo /= 100
        atempo.append(f"atempo={tempo:.9f}")
        slomo = lambda alg: (lambda i, o: [a.slomo, "stretch", i, "-o", o, "--rate", r, "--pitch", alg, "--overwrite", "--json"])
        return {
            "slomo spectral": ("keep", slomo("spectral")),
            "slomo time-domain": ("keep", slomo("time-domain")),
            "slomo zero-latency": ("keep", slomo("zero-latency")),
            "slomo varispeed": ("vari", slomo("varispeed")),
            "rubberband -3": ("keep", lambda i, o: ["rubberband", "-3", "-q", "-T", f"{f:.9f}", i, o]),
            "rubberband -2": ("keep", lambda i, o: ["rubberband", "-2", "-q", "-T", f"{f:.9f}", i, o]),
            "soundstretch": ("keep", lambda i, o: ["soundstretch", i, o, f"-tempo={(f - 1) * 100:.6f}"]),
            "ffmpeg atempo": ("keep", lambda i, o: ["ffmpeg", "-v", "error", "-y", "-i", i, "-af", ",".join(atempo), o]),
            "ffmpeg rubberband": ("keep", lambda i, o: ["ffmpeg", "-v", "error", "-y", "-i", i, "-af", f"rubberband=tempo={f:.9f}", o]),
            "ffmpeg asetrate": ("vari", lambda i, o: ["ffmpeg", "-v", "error", "-y", "-i", i, "-af", f"asetrate={SR * f:.6f},aresample={SR}", o]),
        }

    startup = {}
    for name, (_, cmd) in tools("1/2").items():
        c = run(cmd(f"{w}/tiny.wav", f"{w}/tiny-out.wav"))
        startup[name] = c if c is not None else float("nan")
    ranges = {"slomo time-domain": (0.5, 2), "slomo zero-latency": (0.5, 2), "soundstretch": (0.5, 2)}
    print(f"{'tool':20s} {'rate':>5s} {'in s':>5s} {'cpu s':>7s} {'x rt':>7s} {'dur err':>8s} {'cents':>8s} {'peaks/click':>11s} {'rise ms':>8s} {'lat ms':>7s} {'speech cpu s':>12s}")
    for r in rates:
        f = frac(r)
        seconds = lengths[r]
        n = make_inputs(w, seconds)
        for name, (kind, cmd) in tools(r).items():
            lo, hi = ranges.get(name, (1 / 32, 32))
            if not (lo <= f <= hi):
                continue
            out = f"{w}/out.wav"
            res = run(cmd(f"{w}/tone-{seconds}.wav", out), capture=True)
            if res is None:
                print(f"{name:20s} {r:>5s} failed"); continue
            cpu, stdout = res
            latency = "-"
            if name.startswith("slomo"):
                latency = f"{json.loads(stdout)['latencyFrames'] * 1000 / SR:.1f}"
            y = read(out)
            want = round(n / f)
            ref = 1000 * f if kind == "vari" else 1000
            p = pitch(y)
            cents = 1200 * np.log2(p / ref) if 0 < p and ref < SR / 2 else float("nan")
            run(cmd(f"{w}/clicks-{seconds}.wav", out)); pk, rise = transients(read(out), f, int(seconds / 0.25))
            scpu = run(cmd(f"{w}/speech.wav", out))
            print(f"{name:20s} {r:>5s} {seconds:5d} {cpu:7.2f} {seconds / max(cpu, 1e-3):7.1f} {len(y) - want:8d} {cents:8.2f} {pk:11.2f} {rise:8.2f} {latency:>7s} {scpu if scpu is not None else float('nan'):12.2f}")
        print()
    print("start-up CPU s (10 ms input): " + ", ".join(f"{k} {v:.3f}" for k, v in startup.items()))
    print(f"speech: espeak-ng, {speech_seconds:.2f} s")

if __name__ == "__main__":
    main()
