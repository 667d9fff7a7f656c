#!/usr/bin/env bash
# slomo convert to a TIFF sequence against the ffmpeg CLI, in one run (#45): a 10 s 640x480 gray16
# FFV1 take in Matroska (100 fps, 1000 frames, FFmpeg's testsrc2 in gray16le), written as one
# 16-bit TIFF per frame by `slomo convert take.mkv -o DIR/` and by `ffmpeg -i take.mkv out_%06d.tiff`
# (FFmpeg's defaults: its TIFF encoder's packbits compression, one thread per core for FFV1's slices),
# alternately, RUNS times each, into a fresh directory on the same disk. Prints each run's wall and
# CPU seconds, the medians and the ratio ffmpeg / slomo of the median wall times (Docs/Benchmarks.md's
# convention: above 1, slomo is faster).
#   bench/convert/tiff.sh [RUNS]      (the take is kept in $TAKE, default /tmp/slomo-bench-take.mkv)
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-3}
TAKE=${TAKE:-/tmp/slomo-bench-take.mkv}
swift build -c release --product slomo >/dev/null
S=$(pwd)/.build/release/slomo
W=$(mktemp -d /tmp/slomo-bench-convert.XXXXXX)
trap 'rm -rf "$W"' EXIT
[ -s "$TAKE" ] || ffmpeg -v error -y -f lavfi -i testsrc2=size=640x480:rate=100 -t 10 -pix_fmt gray16le -c:v ffv1 -slices 4 "$TAKE"
frames=$(ffprobe -v error -count_packets -select_streams v -show_entries stream=nb_read_packets -of csv=p=0 "$TAKE")
run() {   # label, command…: prints "wall cpu" and keeps the label's times
  local label=$1; shift
  rm -rf "$W/out" && mkdir -p "$W/out"
  sync
  /usr/bin/time -f "%e %U %S" -o "$W/t" "$@" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
  read -r e u s < "$W/t"
  local n; n=$(find "$W/out" -name '*.tiff' | wc -l)
  [ "$n" = "$frames" ] || { echo "$label wrote $n of $frames frames" >&2; exit 1; }
  printf "%-7s %7.2f s wall %7.2f s CPU  %s\n" "$label" "$e" "$(echo "$u + $s" | bc)" "$(du -sh "$W/out" | cut -f1)"
  echo "$e" >> "$W/$label.wall"
}
median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "take: $TAKE ($frames frames, 640x480 gray16le FFV1); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$RUNS"); do
  run slomo "$S" convert "$TAKE" -o "$W/out/" --progress none
  run ffmpeg ffmpeg -v error -y -i "$TAKE" "$W/out/out_%06d.tiff"
done
s=$(median "$W/slomo.wall"); f=$(median "$W/ffmpeg.wall")
echo "median wall: slomo convert $s s, ffmpeg $f s; ratio (ffmpeg / slomo) $(echo "scale=2; $f / $s" | bc)"
