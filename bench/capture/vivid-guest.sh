#!/usr/bin/env bash
# Runs INSIDE the vivid VM (bench/capture/vivid.sh boots it). Prints one table.
set -u
S=${SLOMO_BIN:?}; D=/dev/video0; W=/tmp/bench; mkdir -p $W
count() { # file nominal_fps -> "frames drops achieved_fps" from the stored timestamps
  ffprobe -v error -select_streams v:0 -show_entries packet=pts_time -of csv=p=0 "$1" | sort -g | python3 -c '
import sys
t = [float(x) for x in sys.stdin if x.strip()]
p = 1 / float(sys.argv[1])
drops = sum(max(0, round((b - a) / p) - 1) for a, b in zip(t, t[1:]))
print(len(t), drops, "%.3f" % ((len(t) - 1) / (t[-1] - t[0])) if len(t) > 1 else "?")' "$2"
}
printf "%-8s %-22s %4s %7s %6s %9s %s\n" tool mode run frames drops "fps" "slomo report (driver gaps, ring drops, thread)"
mode() { # label input ffmpeg-args fps
  local label=$1 input=$2 ffargs=$3 fps=$4 r
  v4l2-ctl -d $D -i $input >/dev/null
  [ "$input" = 1 ] && v4l2-ctl -d $D --set-dv-bt-timings cvt,width=640,height=480,fps=100,reduced-blanking=2 >/dev/null
  for r in $(seq $RUNS); do
    rm -f $W/ff.mp4 $W/sl.mp4*
    # ffmpeg's default for MP4 is constant rate: it duplicates frames into gaps, so its file shows none;
    # passthrough keeps the kernel's timestamps and shows what was lost
    ffmpeg -v error -y -f v4l2 $ffargs -i $D -frames:v $FRAMES -c:v libx264 -preset superfast $W/ff.mp4 </dev/null
    printf "%-8s %-22s %4s %7s %6s %9s %s\n" ffmpeg "$label" $r $(count $W/ff.mp4 $fps) "(CFR output: gaps filled with duplicates)"
    ffmpeg -v error -y -f v4l2 $ffargs -i $D -frames:v $FRAMES -fps_mode passthrough -c:v libx264 -preset superfast $W/ff.mp4 </dev/null
    printf "%-8s %-22s %4s %7s %6s %9s %s\n" ffmpeg "$label" $r $(count $W/ff.mp4 $fps) "(-fps_mode passthrough)"
    $S capture $D --frames $FRAMES -o $W/sl.mp4 --json > $W/sl.json 2>/dev/null
    printf "%-8s %-22s %4s %7s %6s %9s %s\n" slomo "$label" $r $(count $W/sl.mp4 $fps) \
      "$(python3 -c 'import json; c=json.load(open("'$W'/sl.json")); print(c["droppedByDriver"], c["droppedBySlomo"], c["captureThread"].split(" (")[0], sep=", ")')"
  done
}
mode "webcam 320x180@60" 0 "-input_format yuyv422 -framerate 60 -video_size 320x180" 60
mode "hdmi 640x480@100" 1 "-input_format yuyv422 -video_size 640x480" 100
