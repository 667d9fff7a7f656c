#!/usr/bin/env bash
# Batch benchmark: 32 calibration clips (mixed 60/120/240 fps, 640x360, 2 s, with audio) re-timed to
# half speed at 30 fps with spectral pitch, by `slomo batch --jobs N` and by a shell loop of the
# equivalent ffmpeg commands (setpts/fps + rubberband filter, same x264 and AAC settings), in the
# same run. Prints throughput (clips/min) and the ratio.
#   bench/batch/run.sh [--quick] [--jobs N]      (--quick: 8 clips)
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench   # the peers and tools benchmarks need (only those missing)
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
# one comparison: slomo batch with --pitch $1 against a shell loop of ffmpeg with audio filter $2
compare() {
  local pitch=$1 filter=$2 tag=$3
  rm -rf "$W/slomo" "$W/ffmpeg"; mkdir -p "$W/slomo" "$W/ffmpeg"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %U %S" -o "$W/time-slomo" "$S" batch "$W/clips/*.mp4" --out-dir "$W/slomo" --rate 1/2 --fps 30 \
    --pitch "$pitch" --preset medium --crf 23 --progress none $JOBS > "$W/slomo.jsonl" || true
  /usr/bin/time -f "%e %U %S" -o "$W/time-ffmpeg" bash -c '
    for f in "$1"/clips/*.mp4; do
      ffmpeg -v error -y -i "$f" -filter_complex "[0:v]setpts=2*PTS,fps=30[v];[0:a]$2[a]" -map "[v]" -map "[a]" \
        -c:v libx264 -preset medium -crf 23 -c:a aac -b:a 160k "$1/ffmpeg/$(basename "$f")"
    done' _ "$W" "$filter"
  ok=$(grep -c '"status":"ok"' "$W/slomo.jsonl" || true)
  j=$(grep summary "$W/slomo.jsonl" | sed 's/.*"jobs":\([0-9]*\).*/\1/')
  read -r se su ss < "$W/time-slomo"; read -r fe fu fs < "$W/time-ffmpeg"
  awk -v n="$N" -v ok="$ok" -v j="$j" -v tag="$tag" -v se="$se" -v cs="$(echo "$su + $ss" | bc)" -v fe="$fe" -v cf="$(echo "$fu + $fs" | bc)" 'BEGIN {
    printf "\n%s (slomo ok: %d, jobs: %s)\n", tag, ok, j
    printf "%-28s %10s %12s %10s\n", "runner", "seconds", "clips/min", "CPU s"
    printf "%-28s %10.1f %12.1f %10.1f\n", "slomo batch", se, n * 60 / se, cs
    printf "%-28s %10.1f %12.1f %10.1f\n", "shell loop of ffmpeg", fe, n * 60 / fe, cf
    printf "speed-up (ffmpeg loop / slomo batch): %.2fx; CPU ratio (ffmpeg / slomo): %.2f\n", fe / se, cf / cs }'
}
echo "clips: $N (60/120/240 fps, 640x360, 2 s, with audio), to half speed at 30 fps, x264 medium CRF 23, AAC"
compare spectral "rubberband=tempo=0.5" "spectral (Rubber Band R3) vs ffmpeg's rubberband filter (R2: ffmpeg 5.1 has no R3)"
compare time-domain "atempo=0.5" "time-domain (SoundTouch) vs ffmpeg atempo: audio of similar cost"
