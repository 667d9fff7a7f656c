#!/usr/bin/env bash
# Capture-path benchmark: per-frame cost of dequeue -> queue -> store, with the synthetic camera
# pre-rendered in memory (preload, pace=0), so only slomo's capture path is timed. Pinned to one core.
#   bench/capture/run.sh [--quick]
# Rows: MJPEG 640x360 stored as it arrives (copy); raw YUYV 1280x720 encoded with x264 (superfast,
# droppable GOP) at 240 fps worth of frames; the highest raw 720p rate sustained is frames / wall time.
# Compared in the same run with ffmpeg doing the same store from a pre-encoded file (-c copy / -c:v libx264).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench   # the peers and tools benchmarks need (only those missing)
N=5000; RAWN=720
[ "${1:-}" = "--quick" ] && { N=1500; RAWN=240; }
# SLOMO_BIN=path: time that build instead (a before/after comparison on one boot)
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; fi
S=${SLOMO_BIN:-$(pwd)/.build/release/slomo}
W=$(mktemp -d /tmp/slomo-bench-capture.XXXXXX)
trap 'rm -rf "$W"' EXIT
run() { # label frames cmd...
  local label=$1 frames=$2; shift 2
  /usr/bin/time -f "%e %U %S" -o "$W/t" "$@" >/dev/null 2>"$W/err" || { cat "$W/err" >&2; return 1; }
  read -r wall user sys < "$W/t"
  awk -v l="$label" -v n="$frames" -v w="$wall" -v u="$user" -v s="$sys" \
    'BEGIN { printf "%-44s %7d %8.2f %8.2f %10.1f %12.1f\n", l, n, w, u + s, n / w, (u + s) * 1e6 / n }'
}
printf "%-44s %7s %8s %8s %10s %12s\n" path frames "wall s" "cpu s" "frames/s" "cpu µs/frame"
run "slomo MJPEG 640x360 copy (1 core)" "$N" taskset -c 0 "$S" capture --source "synthetic:fps=1000,size=640x360,format=mjpeg,pace=0,preload=64" --frames "$N" -o "$W/m.mp4" --ring-memory 1G
run "slomo raw YUYV 1280x720 -> x264 superfast" "$RAWN" "$S" capture --source "synthetic:fps=240,size=1280x720,format=yuyv,pace=0,preload=32" --frames "$RAWN" -o "$W/r.mp4" --ring-memory 2G
run "slomo raw YUYV 1280x720 -> x264 (1 core)" "$RAWN" taskset -c 0 "$S" capture --source "synthetic:fps=240,size=1280x720,format=yuyv,pace=0,preload=32" --frames "$RAWN" -o "$W/r1.mp4" --ring-memory 2G
# ffmpeg storing the same kinds of frames: an MJPEG file remuxed into fragmented MP4, raw yuyv encoded
"$S" generate --fps 240 --duration "$((N / 240 + 1))" --size 640x360 --codec mjpeg --no-audio -o "$W/src.mov" >/dev/null
run "ffmpeg MJPEG 640x360 -c copy to fMP4 (1 core)" "$N" taskset -c 0 ffmpeg -v error -y -i "$W/src.mov" -frames:v "$N" -c copy -movflags +frag_keyframe+empty_moov "$W/f.mp4"
ffmpeg -v error -y -i "$W/src.mov" -frames:v 32 -vf scale=1280:720 -pix_fmt yuyv422 -f rawvideo "$W/raw.yuv"
run "ffmpeg raw YUYV 1280x720 -> x264 superfast" "$RAWN" ffmpeg -v error -y -stream_loop -1 -f rawvideo -pix_fmt yuyv422 -s 1280x720 -r 240 -i "$W/raw.yuv" -frames:v "$RAWN" \
  -c:v libx264 -preset superfast -crf 20 -x264-params bframes=7:b-adapt=0:b-pyramid=none -movflags +frag_keyframe+empty_moov "$W/fr.mp4"
