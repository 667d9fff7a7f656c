#!/usr/bin/env bash
# Capture straight into lab formats (#45): the synthetic camera at 640x480 gray, 1000 fps.
#   bench/capture/lab.sh [SECONDS]     (default 10)
# 1. Paced at 1000 fps for SECONDS: `-o take.cine | take.h5 | frames/ | take.mkv --codec raw`, each
#    with the frames captured, dropped by slomo (the goal: 0), dropped by the synthetic "driver"
#    (its generator falling behind on a busy machine), the achieved rate and the writer's deepest backlog.
# 2. Unpaced (pace=0, frames pre-rendered): how many frames a second each output takes at most, beside
#    the ffmpeg CLI storing the same raw gray frames (-f rawvideo in, -c copy into Matroska), as ratios.
# The outputs go to a directory under /tmp (on this machine's disk, not a tmpfs, unless /tmp is one).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-10}
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; fi
S=${SLOMO_BIN:-$(pwd)/.build/release/slomo}
W=$(mktemp -d /var/tmp/slomo-bench-lab.XXXXXX)
trap 'rm -rf "$W"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); outputs in $W ($(df -T "$W" | awk 'NR==2 {print $2}'))"
printf "%-22s %9s %9s %9s %9s %9s %9s\n" "paced 1000 fps" captured "by slomo" "by drv" "fps" backlog "MB/s"
for out in take.cine take.h5 frames/ take.mkv; do
  extra=(); [ "$out" = take.mkv ] && extra=(--codec raw)
  rm -rf "${W:?}"/take* "$W/frames"*
  "$S" capture --source synthetic:fps=1000,size=640x480,format=gray --duration "$SECS" -o "$W/$out" "${extra[@]}" --json > "$W/r.json" 2> "$W/err" \
    || { cat "$W/err" >&2; exit 1; }
  python3 - "$W/r.json" "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
mb = r["bytesWritten"] / r["durationSeconds"] / 1e6
print("%-22s %9d %9d %9d %9.1f %9d %9.1f" % (sys.argv[2], r["framesCaptured"], r["droppedBySlomo"], r["droppedByDriver"], r["achievedFps"], r["writerBacklogMax"], mb))
PY
done
N=$((SECS * 1000))
printf "\n%-34s %7s %8s %8s %10s\n" "unpaced (most a second)" frames "wall s" "cpu s" "frames/s"
run() { # label cmd...: prints the row and keeps frames/s in $W/label
  local label=$1; shift
  rm -rf "${W:?}"/take* "$W/frames"* "$W/ff.mkv"
  /usr/bin/time -f "%e %U %S" -o "$W/t" "$@" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
  read -r wall user sys < "$W/t"
  awk -v l="$label" -v n="$N" -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%-34s %7d %8.2f %8.2f %10.1f\n", l, n, w, u + s, n / w }'
  awk -v n="$N" -v w="$wall" 'BEGIN { print n / w }' > "$W/${label//[ \/]/_}"
}
SRC="synthetic:fps=1000,size=640x480,format=gray,pace=0,preload=64"
for out in take.cine take.h5 frames/ take.mkv; do
  extra=(); [ "$out" = take.mkv ] && extra=(--codec raw)
  run "slomo $out" "$S" capture --source "$SRC" --frames "$N" -o "$W/$out" "${extra[@]}" --ring-memory 1G
done
ffmpeg -v error -y -f lavfi -i testsrc2=size=640x480:rate=1000 -frames:v 64 -pix_fmt gray -f rawvideo "$W/raw.gray"
run "ffmpeg rawvideo -c copy to mkv" ffmpeg -v error -y -stream_loop -1 -f rawvideo -pix_fmt gray -s 640x480 -r 1000 -i "$W/raw.gray" -frames:v "$N" -c copy "$W/ff.mkv"
f=$(cat "$W/ffmpeg_rawvideo_-c_copy_to_mkv")
for out in take.cine take.h5 frames/ take.mkv; do
  label="slomo $out"
  echo "ratio ${label} / ffmpeg (frames a second): $(echo "scale=2; $(cat "$W/${label//[ \/]/_}") / $f" | bc)"
done
