#!/usr/bin/env bash
# retime's audio packet copy (#43): a 1-hour clip (320x180 30 fps H.264, 48 kHz AAC sine) with one
# 10 s segment at 1/4, retimed by this build's default (AAC packets copied at rate 1, only the
# segment and its margins encoded) and with --no-audio (the video copy alone), and, with
# BASE=path/to/an/older/slomo (e.g. commit 8035808's release build), by that binary's default,
# which decodes, stretches and encodes the whole track; each RUNS times. Prints wall and CPU seconds.
# (--audio-codec aac is no stand-in for the old default: it encodes at 160 kbit/s, not the source's
# 69, and FFmpeg's AAC encoder takes about three times as long at that rate.)
#   bench/retime/audio-copy.sh [RUNS]        (the clip is kept in $CLIP, default /tmp/slomo-bench-hour.mp4)
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${1:-3}
CLIP=${CLIP:-/tmp/slomo-bench-hour.mp4}
swift build -c release --product slomo >/dev/null
S=$(pwd)/.build/release/slomo
W=$(mktemp -d /tmp/slomo-bench-retime.XXXXXX)
trap 'rm -rf "$W"' EXIT
[ -s "$CLIP" ] || ffmpeg -v error -y -f lavfi -i testsrc2=size=320x180:rate=30 -f lavfi -i sine=f=440:sample_rate=48000 \
  -t 3600 -c:v libx264 -preset ultrafast -c:a aac "$CLIP"
run() {   # label, binary, extra options
  local label=$1 bin=$2; shift 2
  /usr/bin/time -f "%e %U %S" -o "$W/t" "$bin" retime "$CLIP" -o "$W/out.mp4" --segment 1800-1810@1/4 --overwrite "$@" > "$W/line"
  read -r e u s < "$W/t"
  printf "%-9s %8.2f s wall %8.2f s CPU   %s\n" "$label" "$e" "$(echo "$u + $s" | bc)" "$(sed 's/.*fps//' "$W/line")"
}
echo "clip: $CLIP (1 h), --segment 1800-1810@1/4; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$RUNS"); do
  run copy "$S"
  run no-audio "$S" --no-audio
  if [ -n "${BASE:-}" ]; then run base "$BASE"; fi
done
