#!/usr/bin/env bash
# Runs INSIDE the vivid VM with --alsa (two vivid webcams + the snd-aloop loopback card): slomo's sound
# capture against a click track played into the loopback at known CLOCK_MONOTONIC times (clicks.c),
# and two cameras on one event.
# Prints "CHECK name value" lines that Tests/SlomoV4L2Tests/VividAudioTests.swift parses.
. "$(dirname "$0")/common.sh"
# the click player: the system's C compiler, else the clang that comes with Swift
CC=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
$CC -O2 -o $OUT/clicks $HERE/clicks.c -lasound || { echo "cannot build clicks.c with $CC" >&2; say done 0; exit 1; }
offsets() { python3 $HERE/av-offsets.py "$1" "$2"; }
# the player at a real-time priority: an underrun would spoil it as a reference
PLAY="chrt -f 70 $OUT/clicks"
# clicks_during CLICKS.txt COMMAND…: the click track from half a second before COMMAND until it ends
# (the player stopped then), so a capture that is slow to start still hears clicks all through; a fixed
# track length raced a cold first start in the VM (a 6 s capture that began 5 s late heard 7 clicks)
clicks_during() {
  local out=$1; shift
  $PLAY hw:Loopback,0,0 600 ${CLICK_ARGS:-} > "$out" & local p=$!
  sleep 0.5
  "$@"; local rc=$?
  kill -TERM $p; wait $p
  return $rc
}
# "video-end audio-end audio-start codec" of a recording: where each stream's last packet ends (s)
streams() {
  { ffprobe -v error -show_entries stream=codec_type,codec_name -of csv=p=0 "$1"
    ffprobe -v error -show_entries packet=codec_type,pts_time,duration_time -of csv=p=0 "$1"; } | python3 -c '
import sys
codec, end, start = {}, {}, {}
for line in sys.stdin:
    f = line.strip().split(",")
    if len(f) == 2: codec[f[1]] = f[0]; continue
    if len(f) != 3 or f[1] in ("", "N/A"): continue
    t = float(f[1]); d = float(f[2]) if f[2] not in ("", "N/A") else 0
    end[f[0]] = max(end.get(f[0], 0), t + d); start[f[0]] = min(start.get(f[0], t), t)
print("%.4f %.4f %.4f %s" % (end.get("video", 0), end.get("audio", 0), start.get("audio", -1), codec.get("audio")))'
}
v4l2-ctl -d $D -i 0 >/dev/null

$S devices --json > $OUT/devices.json
say sound_devices "$(python3 -c 'import json; print(";".join(d["name"] + "," + d["cardId"] for d in json.load(open("'$OUT'/devices.json"))["soundCapture"]))')"

# --- A/V placement: 6 s at 60 fps with clicks every 0.5 s (MKV: PCM)
clicks_during $OUT/clicks1.txt $S capture $D --audio hw:Loopback,1,0 --duration 6 -o $OUT/av.mkv --overwrite --json > $OUT/av.json; say av_rc $?
say av_offsets "$(offsets $OUT/clicks1.txt $OUT/av.mkv)"
say av_streams "$(streams $OUT/av.mkv)"
python3 -c 'import json; a=json.load(open("'$OUT'/av.json"))["audio"]; print("CHECK av_report", a["sampleRate"], a["channels"], a["codec"], a["overruns"], a["framesLost"], a["framesWritten"], a["timestampPairs"])'

# --- drift: the loopback cable off-speed by 0.1 % (PCM Rate Shift 100100 slows both of its ends), 60 s at
# 30 fps. The cable hw:Loopback,0,N → hw:Loopback,1,N is set by the device=1 controls (aloop's get_setup).
amixer -c Loopback cset iface=PCM,name='PCM Rate Shift 100000',device=1 100100 | tail -1 | tr -d ' ' > $OUT/shift.txt; say rate_shift "$(cat $OUT/shift.txt)"
clicks_during $OUT/clicks2.txt $S capture $D --fps 30 --audio hw:Loopback,1,0 --duration 60 -o $OUT/drift.mkv --overwrite --json > $OUT/drift.json; say drift_rc $?
amixer -q -c Loopback cset iface=PCM,name='PCM Rate Shift 100000',device=1 100000
say drift_offsets "$(offsets $OUT/clicks2.txt $OUT/drift.mkv)"
say drift_streams "$(streams $OUT/drift.mkv)"
python3 -c 'import json; a=json.load(open("'$OUT'/drift.json"))["audio"]; r=a["measuredRate"]; print("CHECK drift_report", round(r["numerator"]/r["denominator"], 1), a["ppm"], a["driftCorrectionFrames"], a["overruns"])'

# --- pre/post-trigger with sound: the shot's audio from its first frame (MP4: ALAC)
# triggers are sent once slomo says it is armed (the ring holds the window before the event): a
# fixed sleep raced a slow start under load once (both cameras' shots had no frame before it)
mkfifo /tmp/trig
( wait_armed $OUT/shot.err 300
  sleep 1; echo trigger; sleep 2; echo quit ) > /tmp/trig &
clicks_during $OUT/clicks3.txt $S capture $D --audio hw:Loopback,1,0 --pre-trigger 1 --post-trigger 1 --trigger stdin -o $OUT/shot.mp4 --overwrite --json < /tmp/trig > $OUT/shot.json 2> $OUT/shot.err; say shot_rc $?
wait
say shot_offsets "$(offsets $OUT/clicks3.txt $OUT/shot.mp4)"
say shot_streams "$(streams $OUT/shot.mp4)"
$S export $OUT/shot.mp4 -o $OUT/shot-slow.mp4 --rate 1/4 --pitch spectral --overwrite >/dev/null 2>$OUT/shot-slow.err
say shot_export "$? $(streams $OUT/shot-slow.mp4)"

# --- slowed while recording: 1-2 s at 1/4 with sound (time-domain through the same map)
clicks_during $OUT/clicks4.txt $S capture $D --audio hw:Loopback,1,0 --duration 4 --segment 1-2@1/4 -o $OUT/seg.mkv --overwrite --json > $OUT/seg.json; say seg_rc $?
say seg_streams "$(streams $OUT/seg.mkv)"
say seg_offsets "$(python3 $HERE/av-offsets.py $OUT/clicks4.txt $OUT/seg.mkv --map 1:2:1/4)"

# --- SIGKILL mid-capture: the sound survives up to the last fragment (fragmented MP4)
$S capture $D --audio hw:Loopback,1,0 -o $OUT/kill.mp4 --overwrite & pid=$!
for i in $(seq 100); do [ -s $OUT/kill.mp4 ] && break; sleep 0.1; done
sleep 3; kill -9 $pid; wait $pid 2>/dev/null
say kill_streams "$(streams $OUT/kill.mp4)"

# --- bad input: no such card, a rate the card does not offer, the card busy; nothing written
$S capture $D --audio hw:7,0 --frames 10 -o $OUT/bad1.mkv 2>$OUT/bad1.err; say bad_card "$? $(cat $OUT/bad1.err) $(ls $OUT/bad1.mkv 2>&1 | grep -c 'No such')"
$S capture $D --audio hw:Loopback,1,0 --audio-rate 384000 --frames 10 -o $OUT/bad2.mkv 2>$OUT/bad2.err; say bad_rate "$? $(cat $OUT/bad2.err) $(ls $OUT/bad2.mkv 2>&1 | grep -c 'No such')"
# arecord holds the device until it is killed: a fixed recording length once ran out before the
# emulated VM's slomo reached its sound device (after the camera and a 64 MiB ring), and it opened
arecord -q -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 2 /dev/null & rec=$!
# until arecord holds the device (a fixed half second was once too short for the emulated VM)
st=/proc/asound/Loopback/pcm1c/sub0/status
for i in $(seq 100); do [ -r $st ] && ! grep -q closed $st && break; sleep 0.1; done
$S capture $D --audio hw:Loopback,1,0 --frames 10 -o $OUT/bad3.mkv 2>$OUT/bad3.err; say bad_busy "$? $(cat $OUT/bad3.err) $(ls $OUT/bad3.mkv 2>&1 | grep -c 'No such')"
kill $rec; wait $rec 2>/dev/null
# --- two cameras, one timeline (vivid n_devs=2: /dev/video0 and /dev/video1, both webcams at 60 fps)
$S capture /dev/video0 /dev/video1 --duration 4 -o "$OUT/cam{camera}.mp4" --overwrite --json > $OUT/two.json; say two_rc $?
python3 - "$OUT/two.json" "$OUT/cam1.mp4" "$OUT/cam2.mp4" <<'PY'
import json, subprocess, sys
from fractions import Fraction
r = json.load(open(sys.argv[1]))
k = r["skew"][0]
print("CHECK two_report", len(r["cameras"]), r["cameras"][0]["framesWritten"], r["cameras"][1]["framesWritten"], k["frames"], k["p50Ms"], k["p99Ms"], k["maxMs"])
# the same from the files alone: each frame's time = slomo_capture_start + its pts
def times(path):
    tags = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format_tags", "-of", "json", path], capture_output=True, text=True).stdout)["format"]["tags"]
    start = Fraction(next(v for k, v in tags.items() if k.lower() == "slomo_capture_start"))
    tb = Fraction(subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=time_base", "-of", "csv=p=0", path], capture_output=True, text=True).stdout.strip())
    pts = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts", "-of", "csv=p=0", path], capture_output=True, text=True).stdout.split()
    return sorted(start + int(p) * tb for p in pts)
a, b = times(sys.argv[2]), times(sys.argv[3])
offs = []
for t in b:
    if a[0] <= t <= a[-1]:
        offs.append(min(abs(t - x) for x in a))
offs.sort()
# p50 as the report takes it (CaptureStats.percentile: element (n-1)*50/100 of the sorted list), so
# an even count compares the same element (the upper middle once differed by 2 µs and failed CI)
print("CHECK two_files", len(offs), float(offs[(len(offs) - 1) * 50 // 100] * 1000), float(offs[-1] * 1000))
PY
mkfifo /tmp/trig2
( wait_armed $OUT/twoshot.err 300
  sleep 0.5; echo trigger; sleep 2; echo quit ) > /tmp/trig2 &
$S capture /dev/video0 /dev/video1 --pre-trigger 0.5 --post-trigger 0.5 --trigger stdin -o "$OUT/shot{camera}.mp4" --overwrite --json < /tmp/trig2 > $OUT/twoshot.json 2> $OUT/twoshot.err; say twoshot_rc $?
python3 -c 'import json; r=json.load(open("'$OUT'/twoshot.json")); s=[c["shots"][0] for c in r["cameras"]]; print("CHECK twoshot", r["triggerFrameSpreadMs"][0], s[0]["triggerTime"] == s[1]["triggerTime"], s[0]["preFrames"], s[1]["preFrames"], s[0]["postFrames"], s[1]["postFrames"], s[0]["sequenceGaps"] + s[1]["sequenceGaps"])'
$S capture /dev/video0 /dev/video1 --frames 10 -o $OUT/nocam.mp4 2>$OUT/nocam.err; say two_noname "$? $(cat $OUT/nocam.err)"

# --- the sound trigger: a click every second fires a shot placed at the click's own instant (not when
# it was read), over 20 clicks and more; then a minute of noise at -40 dBFS (no click) fires nothing
CLICK_ARGS=1000 clicks_during $OUT/clicks5.txt $S capture $D --audio hw:Loopback,1,0 --trigger sound --shots 0 --duration 23 \
  --pre-trigger 0.2 --post-trigger 0.2 --codec ffv1 -o "$OUT/snd%d.mkv" --overwrite --json > $OUT/snd.json 2> $OUT/snd.err; say sound_rc $?
say sound_trigger "$(python3 $HERE/trigger-offsets.py $OUT/clicks5.txt $OUT/snd.json)"
CLICK_ARGS="0 328" clicks_during $OUT/noise.txt $S capture $D --audio hw:Loopback,1,0 --trigger sound --shots 0 --duration 60 \
  --codec ffv1 -o "$OUT/noise%d.mkv" --overwrite --json > $OUT/noise.json 2> $OUT/noise.err; say noise_rc $?
say noise_shots "$(python3 -c 'import json; print(len(json.load(open("'$OUT'/noise.json")).get("shots") or []))')"
$S capture $D --trigger sound -o $OUT/nosound.mkv 2>$OUT/nosound.err; say sound_without_audio "$? $(cat $OUT/nosound.err)"
# the trigger's own microphone (--trigger-audio): the clicks reach only hw:Loopback,1,0, the recording
# takes its sound from the silent hw:Loopback,1,1; the shots are still at the clicks
CLICK_ARGS=1000 clicks_during $OUT/clicks7.txt $S capture $D --audio hw:Loopback,1,1 --trigger sound --trigger-audio hw:Loopback,1,0 \
  --shots 0 --duration 7 --pre-trigger 0.2 --post-trigger 0.2 --codec ffv1 -o "$OUT/mic%d.mkv" --overwrite --json > $OUT/mic.json 2> $OUT/mic.err; say mic_rc $?
say mic_trigger "$(python3 $HERE/trigger-offsets.py $OUT/clicks7.txt $OUT/mic.json) $(python3 -c 'import json; print(json.load(open("'$OUT'/mic.json"))["audio"]["device"])')"
$S capture $D --trigger sound --trigger-audio hw:7,0 -o $OUT/nomic.mkv 2>$OUT/nomic.err; say mic_missing "$? $(tail -1 $OUT/nomic.err) $(ls $OUT/nomic.mkv 2>&1 | grep -c 'No such')"
# two cameras, one sound input: every click fires a shot on both, at the same instant (three shots, not a
# duration: each camera's duration runs from its own first frame, so a click in a capture's last moment
# once reached only the camera that started later)
CLICK_ARGS=1000 clicks_during $OUT/clicks6.txt $S capture /dev/video0 /dev/video1 --audio hw:Loopback,1,0 --trigger sound --shots 3 \
  --duration 15 --pre-trigger 0.2 --post-trigger 0.2 --codec ffv1 -o "$OUT/snd{camera}-%d.mkv" --overwrite --json > $OUT/snd2.json 2> $OUT/snd2.err; say sound_two_rc $?
python3 -c 'import json; r=json.load(open("'$OUT'/snd2.json")); s=[c.get("shots") or [] for c in r["cameras"]]; print("CHECK sound_two", len(s[0]), len(s[1]), all(a["triggerTime"] == b["triggerTime"] for a, b in zip(s[0], s[1])))'
say done 1
