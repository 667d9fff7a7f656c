#!/usr/bin/env bash
# Batch benchmark: 32 calibration clips (mixed 60/120/240 fps, 640x360, 2 s, with audio) re-timed to
# half speed at 30 fps with spectral pitch, by `slomo batch --jobs N` and by a shell loop of the
# equivalent ffmpeg commands (setpts/fps + rubberband filter, same x264 and AAC settings), in the
# same run. Prints throughput (clips/min) and the ratio.
#   bench/batch/run.sh [--quick] [--jobs N]      (--quick: 8 clips)
set -euo pipefail
cd "$(dirname "$0")/../.."
N=32; JOBS=""
while [ $# -gt 0 ]; do
  case "$1" in --quick) N=8; shift ;; --jobs) JOBS="--jobs $2"; shift 2 ;; *) echo "usage: $0 [--quick] [--jobs N]" >&2; exit 64 ;; esac
done
swift build -c release --product slomo >/dev/null
S=$(pwd)/.build/release/slomo
W=$(mktemp -d /tmp/slomo-bench-batch.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/clips" "$W/slomo" "$W/ffmpeg"
rates=(60 120 240)
for i in $(seq 1 "$N"); do
  fps=${rates[$((i % 3))]}
  "$S" generate --fps "$fps" --duration 2 --size 640x360 -o "$W/clips/clip$i-${fps}fps.mp4" >/dev/null
done
t0=$(date +%s.%N)
# shellcheck disable=SC2086
"$S" batch "$W/clips/*.mp4" --out-dir "$W/slomo" --rate 1/2 --fps 30 --pitch spectral --preset medium --crf 23 --progress none $JOBS > "$W/slomo.jsonl" || true
t1=$(date +%s.%N)
for f in "$W"/clips/*.mp4; do
  ffmpeg -v error -y -i "$f" -filter_complex "[0:v]setpts=2*PTS,fps=30[v];[0:a]rubberband=tempo=0.5[a]" -map "[v]" -map "[a]" \
    -c:v libx264 -preset medium -crf 23 -c:a aac -b:a 160k "$W/ffmpeg/$(basename "$f")"
done
t2=$(date +%s.%N)
ok=$(grep -c '"status":"ok"' "$W/slomo.jsonl" || true)
awk -v n="$N" -v ok="$ok" -v s="$(echo "$t1 - $t0" | bc)" -v f="$(echo "$t2 - $t1" | bc)" -v j="$(grep summary "$W/slomo.jsonl" | sed 's/.*"jobs":\([0-9]*\).*/\1/')" 'BEGIN {
  printf "clips: %d (60/120/240 fps, 640x360, 2 s, with audio); slomo ok: %d; slomo jobs: %s\n", n, ok, j
  printf "%-28s %10s %12s\n", "runner", "seconds", "clips/min"
  printf "%-28s %10.1f %12.1f\n", "slomo batch", s, n * 60 / s
  printf "%-28s %10.1f %12.1f\n", "shell loop of ffmpeg", f, n * 60 / f
  printf "speed-up (ffmpeg loop / slomo batch): %.2fx\n", f / s }'
