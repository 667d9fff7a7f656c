#!/usr/bin/env bash
# Runs INSIDE the vivid VM (see ../shared/vivid): slomo against the real vivid driver, compared
# with v4l2-ctl in the same VM. Prints "CHECK name value" lines that Tests/SlomoV4L2Tests parses.
# vivid options: n_devs=1 node_types=0x1 num_inputs=2 input_types=0xc (input 0 webcam, input 1 HDMI)
set -u
S=${SLOMO_BIN:?}
OUT=${OUT_DIR:?}
D=/dev/video0
say() { echo "CHECK $*"; }

say devices_json "$($S devices --json | python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"]; print(";".join("%s,%s,%s" % (x["path"], x["driver"], x["isCapture"]) for x in d))')"
say v4l2ctl_card "$(v4l2-ctl -d /dev/video0 --info | awk -F': ' '/Driver name/ {print $2}')"

# --- webcam input: catalog vs v4l2-ctl, selection, apply + read-back
v4l2-ctl -d $D -i 0 >/dev/null
$S formats $D --json > $OUT/webcam.json; say formats_rc $?
v4l2-ctl -d $D --list-formats-ext > $OUT/webcam.listing
$S formats --listing $OUT/webcam.listing --json > $OUT/webcam-listing.json; say listing_rc $?
python3 - "$OUT/webcam.json" "$OUT/webcam-listing.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
fa = [(f["fourcc"], len(f["sizes"])) for f in a["catalog"]["formats"]]
fb = [(f["fourcc"], len(f["sizes"])) for f in b["catalog"]["formats"]]
print("CHECK formats_count", len(fa), len(fb))
print("CHECK same_formats_as_v4l2ctl", fa == fb)
m = a["maxFps"]
print("CHECK max_fps", f'{m["pixelFormat"]} {m["width"]}x{m["height"]} {m["frameDuration"]["numerator"]}/{m["frameDuration"]["denominator"]}')
print("CHECK max_fps_listing_same", a["maxFps"]["frameDuration"] == b["maxFps"]["frameDuration"] and a["maxFps"]["width"] == b["maxFps"]["width"])
PY
$S formats $D --apply --json > $OUT/apply.json; say apply_rc $?
say applied "$(python3 -c 'import json; a=json.load(open("'$OUT'/apply.json"))["applied"]; print(a["pixelFormat"], a["width"], a["height"], a["frameDuration"]["numerator"], a["frameDuration"]["denominator"], len(a["adjustments"]))')"
say v4l2ctl_parm "$(v4l2-ctl -d $D --get-parm | awk '/Frames per second/ {print $5}')"
say v4l2ctl_fmt "$(v4l2-ctl -d $D --get-fmt-video | awk -F"'" '/Pixel Format/ {print $2}') $(v4l2-ctl -d $D --get-fmt-video | awk '/Width\/Height/ {print $3}')"
# an unlisted rate: the driver rounds, slomo says so
$S formats $D --apply --format YUYV --size 640x360 --fps 35 --json > $OUT/apply35.json
say applied35 "$(python3 -c 'import json; a=json.load(open("'$OUT'/apply35.json"))["applied"]; print(a["frameDuration"]["numerator"], a["frameDuration"]["denominator"], len(a["adjustments"]))')"

# --- capture 300 frames at 60 fps (webcam 320x180)
$S capture $D --frames 300 -o $OUT/webcam60.mp4 --overwrite --json > $OUT/cap60.json; say cap60_rc $?
python3 -c 'import json; c=json.load(open("'$OUT'/cap60.json")); print("CHECK cap60", c["framesWritten"], c["droppedByDriver"], c["droppedBySlomo"], c["achievedFps"])'

# --- injected drops: vivid drops 10 % of buffers; every sequence gap is counted
v4l2-ctl -d $D -c percentage_of_dropped_buffers=10
$S capture $D --frames 200 -o $OUT/drops.mp4 --overwrite --json > $OUT/drops.json; say drops_rc $?
python3 -c 'import json; c=json.load(open("'$OUT'/drops.json")); print("CHECK drops", c["framesWritten"], c["droppedByDriver"])'
v4l2-ctl -d $D -c percentage_of_dropped_buffers=0

# --- HDMI input with custom 640x480 @ 100 fps timings
v4l2-ctl -d $D -i 1 >/dev/null
v4l2-ctl -d $D --set-dv-bt-timings cvt,width=640,height=480,fps=100,reduced-blanking=2 >/dev/null
$S formats $D --json > $OUT/hdmi.json
python3 -c 'import json; m=json.load(open("'$OUT'/hdmi.json"))["maxFps"]; print("CHECK hdmi_max", m["width"], m["height"], round(m["fps"]))'
$S capture $D --frames 300 -o $OUT/hdmi100.mp4 --overwrite --json > $OUT/cap100.json; say cap100_rc $?
python3 -c 'import json; c=json.load(open("'$OUT'/cap100.json")); print("CHECK cap100", c["framesWritten"], c["droppedByDriver"], c["droppedBySlomo"], c["achievedFps"])'

# --- SIGINT mid-capture: clean finish
v4l2-ctl -d $D -i 0 >/dev/null
$S capture $D -o $OUT/int.mp4 --overwrite --json > $OUT/int.json & pid=$!
for i in $(seq 100); do [ -s $OUT/int.mp4 ] && break; sleep 0.1; done
sleep 1; kill -INT $pid; wait $pid; say int_rc $?
python3 -c 'import json; c=json.load(open("'$OUT'/int.json")); print("CHECK int", c["stopReason"], c["framesWritten"])'
# --- SIGKILL mid-capture: the file plays up to its last fragment
$S capture $D -o $OUT/kill.mp4 --overwrite & pid=$!
for i in $(seq 100); do [ -s $OUT/kill.mp4 ] && break; sleep 0.1; done
sleep 2; kill -9 $pid; wait $pid 2>/dev/null
say kill_frames "$($S probe $OUT/kill.mp4 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["streams"][0]["frameCount"])')"
$S capture $D --frames 240 -o $OUT/b1.mp4 --overwrite >/dev/null 2>&1 & pid=$!
for i in $(seq 100); do [ -s $OUT/b1.mp4 ] && break; sleep 0.1; done
$S formats $D --apply >/dev/null 2>$OUT/busy.err; say busy_rc $?
say busy_msg "$(cat $OUT/busy.err)"
wait $pid
say done 1
