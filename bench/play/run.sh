#!/usr/bin/env bash
# Play benchmark: how soon a rate change reaches a paced `slomo play` stream, per algorithm.
# Plays a 1280x720 240 fps clip with audio to a NUT file, sends 12 rate changes (1/2 <-> 1, every
# 300 ms) on stdin and prints, from the "applied" events: wall-clock latency (command read to first
# packet written with it) and how far after the command's moment the change starts to play in the
# stream's video and audio (the figures PlayAudioSwitchTests checks against the decoded audio).
#   bench/play/run.sh [--lead MS]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench   # the peers and tools benchmarks need (only those missing)
LEAD=10
while [ $# -gt 0 ]; do
  case "$1" in --lead) LEAD=$2; shift 2 ;; *) echo "usage: $0 [--lead MS]" >&2; exit 64 ;; esac
done
swift build -c release --product slomo >/dev/null
S=$(pwd)/.build/release/slomo
W=$(mktemp -d /tmp/slomo-bench-play.XXXXXX)
trap 'rm -rf "$W"' EXIT
"$S" generate --fps 240 --duration 8 --size 1280x720 -o "$W/clip.mp4" >/dev/null
for pitch in zero-latency time-domain spectral varispeed; do
  { sleep 0.5; for i in $(seq 1 6); do echo "rate 1/2"; sleep 0.3; echo "rate 1"; sleep 0.3; done; echo quit; } |
    "$S" play "$W/clip.mp4" --pitch "$pitch" --lead "$LEAD" -o "$W/out-$pitch.nut" 2> "$W/events-$pitch.jsonl"
done
python3 - "$W" "$LEAD" <<'PY'
import json, statistics, sys
w, lead = sys.argv[1], sys.argv[2]
print(f"slomo play, 1280x720 240 fps H.264 (B-frames) + AAC, --lead {lead} ms; 12 rate changes 1/2 <-> 1 per algorithm")
print(f"{'pitch':14} {'wall ms (med/max)':>18} {'video effect ms':>16} {'audio effect ms':>16}")
for p in ["zero-latency", "time-domain", "spectral", "varispeed"]:
    ev = [json.loads(l) for l in open(f"{w}/events-{p}.jsonl") if l.startswith("{")]
    a = [e for e in ev if e.get("event") == "applied"]
    errors = [e for e in ev if e.get("event") == "error"]
    f = lambda k: f"{statistics.median([e[k] for e in a]):6.1f} / {max(e[k] for e in a):5.1f}" if a else "-"
    print(f"{p:14} {f('latencyMs'):>18} {f('videoEffectMs'):>16} {f('audioEffectMs'):>16}" + (f"  ({len(errors)} errors)" if errors else ""))
PY
