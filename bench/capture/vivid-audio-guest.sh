#!/usr/bin/env bash
# Runs inside the VM (see vivid-audio.sh).
set -u
S=${SLOMO_BIN:?}
T=$(mktemp -d /tmp/avbench.XXXX)
CC=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
$CC -O2 -o $T/clicks Tests/vivid/clicks.c -lasound
PLAY="chrt -f 70 $T/clicks"
# the click track from half a second before each recording until it ends (a fixed-length track
# raced a slow start: a recording that began late heard fewer clicks than it lasted)
clicks_during() { local out=$1; shift; $PLAY hw:Loopback,0,0 600 > "$out" & local p=$!; sleep 0.5; "$@"; kill -TERM $p; wait $p; }
v4l2-ctl -d /dev/video0 -i 0 >/dev/null
clicks_during $T/c1.txt $S capture /dev/video0 --audio hw:Loopback,1,0 --duration 6 -o $T/slomo.mkv --json > $T/slomo.json 2>/dev/null
off=$(python3 -c 'import time; print(time.clock_gettime(time.CLOCK_REALTIME) - time.clock_gettime(time.CLOCK_MONOTONIC))')
clicks_during $T/c2.txt ffmpeg -v error -y -thread_queue_size 1024 -f alsa -ac 2 -ar 48000 -i hw:Loopback,1,0 -thread_queue_size 1024 -f v4l2 -ts mono2abs -input_format yuyv422 -framerate 60 \
  -video_size 320x180 -i /dev/video0 -frames:v 360 -copyts -c:v libx264 -preset superfast -c:a pcm_s16le -f nut $T/ffmpeg.nut
astart=$(ffprobe -v error -select_streams a -show_entries stream=start_time -of csv=p=0 $T/ffmpeg.nut)
mono=$(python3 -c "print($astart - $off)")
frames() { ffprobe -v error -select_streams v -show_entries packet=pts_time -of csv=p=0 "$1" | python3 -c '
import sys
t = sorted(float(x) for x in sys.stdin.read().split() if x not in ("", "N/A"))
lost = sum(max(0, round((b - a) * 60) - 1) for a, b in zip(t, t[1:]))
print("%d frames, %d lost, %.3f fps" % (len(t), lost, (len(t) - 1) / (t[-1] - t[0])))'; }
echo "tool   | video | clicks (offset p50 / max, first, last in ms)"
echo "slomo  | $(frames $T/slomo.mkv) | $(python3 Tests/vivid/av-offsets.py $T/c1.txt $T/slomo.mkv)"
echo "ffmpeg | $(frames $T/ffmpeg.nut) | $(python3 Tests/vivid/av-offsets.py $T/c2.txt $T/ffmpeg.nut --start $mono)"
