#!/usr/bin/env bash
# Runs INSIDE the test machine (Tests/vm/run.sh): slomo against the real vivid driver, compared
# with v4l2-ctl in the same VM. Prints "CHECK name value" lines that Tests/SlomoV4L2Tests parses.
# vivid options: n_devs=1 node_types=0x1 num_inputs=2 input_types=0xc (input 0 webcam, input 1 HDMI)
. "$(dirname "$0")/common.sh"
# A 320x180 capture's first frame as gray: "bytesPerLine frames planes shortFrames sizeOK worst bars".
# vivid's colour bars are vertical, so below its text every row equals the others column by column
# (a shear would slant them): worst = the largest difference to the first such row; bars = distinct bars seen.
shear() {
  ffmpeg -v error -y -i "$1" -frames:v 1 -f rawvideo -pix_fmt gray "$1.gray"
  python3 - "$2" "$1.gray" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); g = open(sys.argv[2], "rb").read()
rows = [g[y * 320:(y + 1) * 320] for y in range(150, 180)]
worst = max(abs(a - b) for r in rows for a, b in zip(r, rows[0]))
bars = len(set(rows[0][x] for x in range(20, 320, 40)))
print(c["format"]["bytesPerLine"], c["framesWritten"], len(c["format"]["planes"]), c["shortFrames"], int(len(g) == 320 * 180), worst, bars)
PY
}

$S devices --json > $OUT/devices.json
say devices_json "$(python3 -c 'import json; d=json.load(open("'$OUT'/devices.json"))["devices"]; print(";".join("%s,%s,%s" % (x["path"], x["driver"], x["isCapture"]) for x in d))')"
say devices_info "$(python3 -c 'import json; d=json.load(open("'$OUT'/devices.json"))["devices"][0]; print("|".join([d["driver"], d["card"], d["bus"], str(d["hasTimePerFrame"])]))')"
say v4l2ctl_info "$(v4l2-ctl -d $D --info | awk -F': ' '/Driver name/ {a=$2} /Card type/ {b=$2} /Bus info/ {c=$2} END {print a "|" b "|" c}')"

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
# every format, size and interval slomo read (exact fractions) vs v4l2-ctl's text, parsed here
python3 - "$OUT/webcam.json" "$OUT/webcam.listing" <<'PY'
import json, re, sys
live = json.load(open(sys.argv[1]))["catalog"]["formats"]
a = {}
for f in live:
    for s in f["sizes"]:
        d = s["size"]                              # {"type": "discrete", "width", "height"}
        assert d["type"] == "discrete" and s["intervals"]["type"] == "discrete"
        ivs = s["intervals"]["intervals"]
        a[(f["fourcc"], d["width"], d["height"])] = sorted("%.3f" % (i["denominator"] / i["numerator"]) for i in ivs)
b, cur, size = {}, None, None
for line in open(sys.argv[2]):
    m = re.match(r"\s*\[\d+\]: '([^']+)'", line)
    if m: cur = m.group(1); continue
    m = re.match(r"\s*Size: Discrete (\d+)x(\d+)", line)
    if m: size = (cur, int(m.group(1)), int(m.group(2))); b[size] = []; continue
    m = re.search(r"Interval: Discrete .*\(([\d.]+) fps\)", line)
    if m: b[size].append(m.group(1))
b = {k: sorted(v) for k, v in b.items()}
print("CHECK catalog_entries", len(a), len(b))
print("CHECK catalog_equal_v4l2ctl", a == b)
PY
# the human table: selection and read-back lines
$S formats $D --apply > $OUT/apply.txt; say apply_rc $?
say table_max "$(grep '^max fps' $OUT/apply.txt)"
say applied_summary "$(grep '^applied:' $OUT/apply.txt)"
say applied_notes "$(grep -c '^  note:' $OUT/apply.txt)"
say v4l2ctl_parm "$(v4l2-ctl -d $D --get-parm | awk '/Frames per second/ {print $5}')"
say v4l2ctl_fmt "$(v4l2-ctl -d $D --get-fmt-video | awk -F"'" '/Pixel Format/ {print $2}') $(v4l2-ctl -d $D --get-fmt-video | awk '/Width\/Height/ {print $3}')"
# an unlisted rate: the driver rounds, slomo says so
$S formats $D --apply --format YUYV --size 640x360 --fps 35 --json > $OUT/apply35.json
say applied35 "$(python3 -c 'import json; a=json.load(open("'$OUT'/apply35.json"))["applied"]; print(a["frameDuration"]["numerator"], a["frameDuration"]["denominator"], len(a["adjustments"]))')"

# --- capture 300 frames at 60 fps (webcam 320x180)
$S capture $D --frames 300 -o $OUT/webcam60.mp4 --overwrite --json > $OUT/cap60.json; say cap60_rc $?
python3 -c 'import json; c=json.load(open("'$OUT'/cap60.json")); print("CHECK cap60", c["framesWritten"], c["droppedByDriver"], c["droppedBySlomo"], c["achievedFps"])'
# the same with a 10 fps live preview beside it: what it costs the capture (drops with and without)
$S capture $D --frames 300 -o $OUT/prev60.mp4 --overwrite --preview $OUT/preview.nut --json > $OUT/prev60.json; say prev60_rc $?
python3 -c 'import json; c=json.load(open("'$OUT'/prev60.json")); p=c["preview"]; print("CHECK prev60", c["framesWritten"], c["droppedByDriver"], c["droppedBySlomo"], c["achievedFps"], p["framesSent"], p["width"], p["height"])'
say prev60_decoded "$(ffprobe -v error -count_frames -show_entries stream=codec_name,nb_read_frames -of csv=p=0 $OUT/preview.nut)"

# --- injected drops: vivid drops 10 % of buffers; every sequence gap is counted
v4l2-ctl -d $D -c percentage_of_dropped_buffers=10
$S capture $D --frames 200 -o $OUT/drops.mp4 --overwrite --json > $OUT/drops.json; say drops_rc $?
python3 -c 'import json; c=json.load(open("'$OUT'/drops.json")); print("CHECK drops", c["framesWritten"], c["droppedByDriver"])'
v4l2-ctl -d $D -c percentage_of_dropped_buffers=0

# --- HDMI input with custom 640x480 @ 100 fps timings
v4l2-ctl -d $D -i 1 >/dev/null
v4l2-ctl -d $D --set-dv-bt-timings cvt,width=640,height=480,fps=100,reduced-blanking=2 >/dev/null
$S formats $D --apply --json > $OUT/hdmi-apply.json; say hdmi_apply_rc $?
python3 -c 'import json; m=json.load(open("'$OUT'/hdmi-apply.json"))["maxFps"]; print("CHECK hdmi_max", m["width"], m["height"], round(m["fps"]))'
v4l2-ctl -d $D --get-parm > $OUT/hdmi.parm; v4l2-ctl -d $D --get-dv-timings > $OUT/hdmi.dv; v4l2-ctl -d $D --get-fmt-video > $OUT/hdmi.fmt
python3 - "$OUT/hdmi-apply.json" "$OUT/hdmi.parm" "$OUT/hdmi.dv" "$OUT/hdmi.fmt" <<'PY'
import json, re, sys
from fractions import Fraction
a = json.load(open(sys.argv[1]))["applied"]
parm = re.search(r"Frames per second: [\d.]+ \((\d+)/(\d+)\)", open(sys.argv[2]).read())
fd = a["frameDuration"]; dv = a["dvTimingsFrameDuration"]
# v4l2-ctl prints fps as (denominator/numerator) of timeperframe, unreduced
print("CHECK hdmi_parm_equal", Fraction(fd["numerator"], fd["denominator"]) == Fraction(int(parm.group(2)), int(parm.group(1))))
t = open(sys.argv[3]).read()
num = lambda k: int(re.search(k + r"\s*:\s*(\d+)", t).group(1))
clock = num("Pixelclock")
ht = num("Active width") + num("Horizontal frontporch") + num("Horizontal sync") + num("Horizontal backporch")
vt = num("Active height") + num("Vertical frontporch") + num("Vertical sync") + num("Vertical backporch")
print("CHECK hdmi_dv_equal", Fraction(dv["numerator"], dv["denominator"]) == Fraction(ht * vt, clock), Fraction(clock, ht * vt))
wh = re.search(r"Width/Height\s*:\s*(\d+)/(\d+)", open(sys.argv[4]).read())
print("CHECK hdmi_fmt_equal", (a["width"], a["height"]) == (int(wh.group(1)), int(wh.group(2))))
print("CHECK hdmi_applied", a["summary"], "|", "; ".join(a["adjustments"]))
PY
$S capture $D --frames 300 --ring-memory 256M -o $OUT/hdmi100.mp4 --overwrite --json > $OUT/cap100.json; say cap100_rc $?
python3 -c 'import json; c=json.load(open("'$OUT'/cap100.json")); print("CHECK cap100", c["framesWritten"], c["droppedByDriver"], c["droppedBySlomo"], c["achievedFps"])'

# --- formats --measure: each mode streamed for 2 s of timestamps beside what it advertises
# (HDMI at 100 fps, then with vivid's reduced_framerate: the DV timings' x1000/1001)
measured() {
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["measured"][0]; n = m["nominalFrameDuration"]
print(m["pixelFormat"], m["width"], m["height"], m["advertisedFps"], round(m["sequenceRate"]["numerator"] / m["sequenceRate"]["denominator"]) if m["sequenceRate"] else None,
      "%d/%d" % (n["numerator"], n["denominator"]) if n else None, m["frames"], m["error"], r["notMeasured"])
PY
}
$S formats $D --measure --measure-seconds 2 --json > $OUT/measure100.json; say measure100_rc $?
say measure100 "$(measured $OUT/measure100.json)"
v4l2-ctl -d $D -c reduced_framerate=1
$S formats $D --measure --measure-seconds 2 --json > $OUT/measure-reduced.json; say measure_reduced_rc $?
say measure_reduced "$(measured $OUT/measure-reduced.json)"
$S formats $D --measure --format YUYV --measure-seconds 2 | tail -1 > $OUT/measure-reduced.txt; say measure_reduced_text "$(cat $OUT/measure-reduced.txt)"
v4l2-ctl -d $D -c reduced_framerate=0
v4l2-ctl -d $D -i 0 >/dev/null
$S formats $D --measure --format YUYV --size 320x180 --measure-seconds 2 --json > $OUT/measure60.json; say measure60_rc $?
say measure60 "$(measured $OUT/measure60.json)"

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

# --- camera controls on the real driver (webcam input): listing vs v4l2-ctl, gain lock, brightness, refusals, crop
v4l2-ctl -d $D -i 0 >/dev/null
$S controls $D --json > $OUT/ctrls.json; say controls_rc $?
v4l2-ctl -d $D --list-ctrls-menus > $OUT/ctrls.listing
$S controls --listing $OUT/ctrls.listing --json > $OUT/ctrls-listing.json; say controls_listing_rc $?
python3 - "$OUT/ctrls.json" "$OUT/ctrls-listing.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["controls"]; b = json.load(open(sys.argv[2]))["controls"]
key = lambda c: (c["name"], c["id"], c["type"], c["minimum"], c["maximum"], c["default"], [m["index"] for m in c.get("menu") or []])
same = [key(x) for x in a] == [key(x) for x in b]
diff = [x["name"] for x, y in zip(a, b) if "volatile" not in x["flags"] and x["value"] != y["value"]]
vals = not diff and all(x["valueText"] == y["valueText"] for x, y in zip(a, b) if x["type"] == "string")
g = {c["name"]: c for c in a}["gain"]
print("CHECK controls_same", len(a), len(b), same, vals, ",".join(g["flags"]), ",".join(diff))
PY
# vivid's automatic gain moves while it streams (read twice during a plain capture); --gain lock holds
# the value it had settled on
v4l2-ctl -d $D -c gain_automatic=1
rm -f $OUT/auto.mp4
$S capture $D --format YUYV --size 320x180 --frames 360 -o $OUT/auto.mp4 --overwrite >/dev/null 2>&1 & pid=$!
for i in $(seq 200); do [ -s $OUT/auto.mp4 ] && break; sleep 0.1; done
g=$(for i in 1 2 3 4 5 6; do v4l2-ctl -d $D -C gain | awk '{print $2}'; sleep 0.3; done | paste -sd' ')
wait $pid
say gain_auto_moves "$g"
$S capture $D --format YUYV --size 320x180 --frames 90 --gain lock --control brightness=200 -o $OUT/lock.mp4 --overwrite --json > $OUT/lock.json; say lock_rc $?
python3 - "$OUT/lock.json" <<'PY'
import json, sys
c = {x["name"]: x for x in json.load(open(sys.argv[1]))["controls"]}
a, g, b = c["gain_automatic"], c["gain"], c["brightness"]
print("CHECK gain_lock", a["written"], a["readBack"], g["written"], g["readBack"], g["atEnd"], b["readBack"], b["atEnd"], g["option"])
PY
say gain_lock_after "$(v4l2-ctl -d $D -C gain_automatic,gain,brightness | awk '{print $2}' | paste -sd' ')"
say lock_meta "$($S probe $OUT/lock.mp4 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["container"]["metadata"].get("slomo_controls"))')"
# brightness changes the picture: mean luma of the frames at brightness 60 and 200
for v in 60 200; do
  $S capture $D --format YUYV --size 320x180 --frames 10 --codec raw --control brightness=$v -o $OUT/bright$v.mkv --overwrite >/dev/null 2>&1
  ffmpeg -v error -y -i $OUT/bright$v.mkv -frames:v 1 -f rawvideo -pix_fmt gray $OUT/bright$v.gray
done
say brightness "$(python3 -c 'import sys; m=[sum(open("'$OUT'/bright%d.gray" % v, "rb").read()) / (320 * 180) for v in (60, 200)]; print(round(m[0], 1), round(m[1], 1))')"
v4l2-ctl -d $D -c brightness=128 -c gain_automatic=1
# refusals: one line, the documented exit status, nothing recorded
bad() {  # name, then capture options
  local n=$1; shift; rm -f $OUT/bad-$n.mp4
  $S capture $D --frames 10 -o $OUT/bad-$n.mp4 "$@" > /dev/null 2> $OUT/bad-$n.err; local rc=$?
  say bad_$n "$rc $(wc -l < $OUT/bad-$n.err) $([ -e $OUT/bad-$n.mp4 ] && echo written || echo none) $(head -c 300 $OUT/bad-$n.err)"
}
bad range --gain 300
bad unknown --control gian=5
bad inactive --control gain=50
bad readonly --control read_only_integer_32_bits=1
bad nofocus --focus lock
bad noshutter --shutter 1/1000
bad nocrop --zoom 2
# formats --apply with a control: set, read back, and what v4l2-ctl sees
$S formats $D --apply --gain 42 --json > $OUT/apply-gain.json; say apply_gain_rc $?
say apply_gain "$(python3 -c 'import json; c=json.load(open("'$OUT'/apply-gain.json"))["applied"]["cameraControls"]; print(" ".join("%s=%s" % (x["name"], x["readBack"]) for x in c))') $(v4l2-ctl -d $D -C gain | awk '{print $2}')"
v4l2-ctl -d $D -c gain_automatic=1
# --zoom on the HDMI input (no zoom control; crop through the selection API, scaled back by vivid)
v4l2-ctl -d $D -i 1 >/dev/null
$S formats $D --apply --zoom 2 --json > $OUT/zoom.json; say zoom_rc $?
say zoom "$(python3 -c 'import json; a=json.load(open("'$OUT'/zoom.json"))["applied"]; c=a["crop"]; r=c["readBack"]; b=c["bounds"]; print(r["left"], r["top"], r["width"], r["height"], "of", b["width"], b["height"], "->", a["width"], a["height"])') | $(v4l2-ctl -d $D --get-selection target=crop | sed 's/.*crop, //; s/ *$//')"
v4l2-ctl -d $D --set-selection "$(python3 -c 'import json; b=json.load(open("'$OUT'/zoom.json"))["applied"]["crop"]["bounds"]; print("target=crop,left=0,top=0,width=%d,height=%d" % (b["width"], b["height"]))')" >/dev/null 2>&1
v4l2-ctl -d $D -i 0 >/dev/null

# --- capture path details on the webcam input (60 fps, 320x180)
v4l2-ctl -d $D -i 0 >/dev/null
$S capture $D --frames 120 -o $OUT/clock.mp4 --overwrite --json > $OUT/clock.json; say clock_rc $?
say clock "$(python3 -c 'import json; c=json.load(open("'$OUT'/clock.json")); print(c["timestampClock"], "|", c["captureThread"].split(" (")[0], "|", c["ring"]["locked"], c["droppedBySlomo"])')"
v4l2-ctl -d $D -c timestamp_source=1
$S capture $D --frames 30 -o $OUT/soe.mp4 --overwrite --json > $OUT/soe.json
say clock_soe "$(python3 -c 'import json; print(json.load(open("'$OUT'/soe.json"))["timestampClock"])')"
v4l2-ctl -d $D -c timestamp_source=0
# padded rows: bytesperline 1024 for 320-wide YUYV; vivid's colour bars are vertical, so every
# row below the text must equal the others column by column (a shear would slant them)
$S capture $D --format YUYV --size 320x180 --bytes-per-line 1024 --frames 20 --codec raw -o $OUT/pad.mkv --overwrite --json > $OUT/pad.json; say pad_rc $?
say pad "$(shear $OUT/pad.mkv $OUT/pad.json)"
# a damaged buffer (V4L2_BUF_FLAG_ERROR) is counted, not stored
rm -f $OUT/flag.mp4
( for i in $(seq 200); do [ -s $OUT/flag.mp4 ] && break; sleep 0.1; done; sleep 0.5; v4l2-ctl -d $D -c inject_v4l2_buf_flag_error=1 ) &
$S capture $D --frames 150 -o $OUT/flag.mp4 --overwrite --json > $OUT/flag.json; say flag_rc $?
wait
python3 -c 'import json; c=json.load(open("'$OUT'/flag.json")); print("CHECK flag", c["driverErrors"], c["framesWritten"], c["framesCaptured"], c["droppedBySlomo"])'
# pre/post trigger on the real driver: a line on stdin once armed keeps 1 s before (60 frames) and 0.5 s after (30)
F=/tmp/slomo-trig.fifo; rm -f $F; mkfifo $F          # in the guest's RAM: 9p has no fifos
$S capture $D --pre-trigger 1 --post-trigger 0.5 --trigger stdin -o $OUT/trig.mp4 --overwrite --json < $F > $OUT/trig.json 2> $OUT/trig.err & pid=$!
exec 3> $F
wait_armed $OUT/trig.err 200
sleep 0.3; echo trigger >&3; exec 3>&-
wait $pid; say trig_rc $?
python3 -c 'import json; s=json.load(open("'$OUT'/trig.json"))["shots"][0]; print("CHECK trig", s["preFrames"], s["postFrames"], s["framesWritten"], s["sequenceGaps"], s["complete"], s["lastSequence"] - s["firstSequence"], s["latencyMs"])'
say trig_probe "$($S probe $OUT/trig.mp4 --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["streams"][0]["frameCount"], d["container"]["metadata"].get("slomo_trigger_frame"))')"
# the image trigger on the real driver: still bars until the pattern starts moving
v4l2-ctl -d $D -c osd_text_mode=2
rm -f $OUT/motion.err
( wait_armed $OUT/motion.err 200; sleep 1; v4l2-ctl -d $D -c horizontal_movement=0 ) &
$S capture $D --pre-trigger 0.5 --post-trigger 0.5 --trigger motion=2 --trigger-region 0,140,320,40 --duration 8 -o $OUT/motion.mp4 --overwrite --json > $OUT/motion.json 2> $OUT/motion.err; say motion_rc $?
wait
v4l2-ctl -d $D -c horizontal_movement=3 -c osd_text_mode=0
python3 -c 'import json; c=json.load(open("'$OUT'/motion.json")); s=(c["shots"] or [{}])[0]; print("CHECK motion", len(c["shots"]), s.get("preFrames"), s.get("postFrames"), s.get("complete"), c["motionFramesSkipped"], c["motionFramesEvaluated"])'
# --- the documentation's camera examples (```sh camera blocks, --help examples on /dev/video0),
# run as written by scripts/doc-examples.sh on the webcam input
v4l2-ctl -d $D -i 0 >/dev/null
SLOMO=$S bash scripts/doc-examples.sh camera > $OUT/doc-examples.txt 2>&1
say doc_examples_camera "$? $(tail -1 $OUT/doc-examples.txt)"

# --- driver faults injected by vivid (its fault-injection controls): each gives a clear line and
# exit status, or is counted and reported; never a crash or a lost recording
v4l2-ctl -d $D -i 0 >/dev/null
fault() {  # name control[=value] capture-options...: inject, capture, report "rc lines file frames first-line"
  local n=$1 c=$2; shift 2; rm -f $OUT/fault-$n.mp4 $OUT/fault-$n.json
  ( for i in $(seq 300); do [ -s $OUT/fault-$n.mp4 ] && break; sleep 0.1; done; sleep 0.5; [ "${LATE:-0}" = 1 ] && v4l2-ctl -d $D -c $c ) &
  local watcher=$!
  [ "${LATE:-0}" = 1 ] || v4l2-ctl -d $D -c $c
  $S capture $D --format YUYV --size 320x180 -o $OUT/fault-$n.mp4 --overwrite --json "$@" > $OUT/fault-$n.json 2> $OUT/fault-$n.err; local rc=$?
  # a fault that ends the capture before its file appears leaves the watcher waiting 30 s for nothing
  kill $watcher 2>/dev/null; wait
  local frames=none
  [ -e $OUT/fault-$n.mp4 ] && frames=$($S probe $OUT/fault-$n.mp4 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["streams"][0]["frameCount"])' 2>/dev/null || echo unreadable)
  say fault_$n "$rc $(grep -v '^slomo: ring:' $OUT/fault-$n.err | grep -vc '^slomo: warning') $frames $(grep -v '^slomo: ring:' $OUT/fault-$n.err | grep -v '^slomo: warning' | tail -1 | head -c 300)"
}
fault reqbufs inject_vidioc_reqbufs_error=1 --frames 60
fault streamon inject_vidioc_streamon_error=1 --frames 60
LATE=1 fault qbuf inject_vidioc_qbuf_error=1 --frames 600
LATE=1 fault fatal inject_fatal_streaming_error=1 --frames 600
# sequence numbers that wrap at 2^32 a few frames in: no drop counted for the wrap
v4l2-ctl -d $D -c wrap_sequence_number=1
$S capture $D --format YUYV --size 320x180 --frames 300 -o $OUT/wrapseq.mp4 --overwrite --json > $OUT/wrapseq.json 2>/dev/null; say wrapseq_rc $?
v4l2-ctl -d $D -c wrap_sequence_number=0
say wrapseq "$(python3 -c 'import json; c=json.load(open("'$OUT'/wrapseq.json")); print(c["framesWritten"], c["droppedByDriver"], c["repeatedSequence"])')"
# timestamps that wrap (vivid starts them 16 s before the wrap): capture across it
for w in 1; do   # 64-bit: the ns count passes 2^63 (a timeval goes negative); 2 (32-bit time_t) changes nothing for 64-bit programs
  v4l2-ctl -d $D -c wrap_timestamp=$w
  $S capture $D --format YUYV --size 320x180 --duration 20 -o $OUT/wrapts$w.mp4 --overwrite --json > $OUT/wrapts$w.json 2> $OUT/wrapts$w.err; say wrapts${w}_rc $?
  v4l2-ctl -d $D -c wrap_timestamp=0
  say wrapts$w "$(python3 -c 'import json; c=json.load(open("'$OUT'/wrapts'$w'.json")); print(c["framesWritten"], c["durationSeconds"], c["droppedByDriver"], c["stopReason"], len(c["warnings"]))' 2>&1 | head -c 300) | $(grep 'timestamps went back' $OUT/wrapts$w.err | head -1 | head -c 300)"
done
# device disconnect mid-stream: the file is finished and playable, the report says why, exit 74
rm -f $OUT/disc.mp4
( for i in $(seq 200); do [ -s $OUT/disc.mp4 ] && break; sleep 0.1; done; sleep 1; v4l2-ctl -d $D -c disconnect=1 ) &
$S capture $D -o $OUT/disc.mp4 --overwrite --json > $OUT/disc.json 2>$OUT/disc.err; say disc_rc $?
wait
say disc "$(python3 -c 'import json; c=json.load(open("'$OUT'/disc.json")); print(c["stopReason"], c["framesWritten"] > 30)') $($S probe $OUT/disc.mp4 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["streams"][0]["frameCount"])') $(grep -c 'device disconnected' $OUT/disc.err)"
say disc_frames "$(python3 -c 'import json; print(json.load(open("'$OUT'/disc.json"))["framesWritten"])')"
sleep 0.5

# --- slomo serve on vivid: the API on loopback, a shot, its frames and file, the camera vanishing
modprobe -r vivid && modprobe vivid n_devs=1 node_types=0x1 num_inputs=2 input_types=0xc
v4l2-ctl -d $D -i 0 >/dev/null
ip link set lo up      # the guest's loopback (the server and its client both inside the VM)
python3 $HERE/serve-checks.py $D $OUT 2>$OUT/serve.err
sleep 0.5
# --- a serve rig of two cameras: vivid and the synthetic one, one trigger; vivid vanishing
modprobe -r vivid && modprobe vivid n_devs=1 node_types=0x1 num_inputs=2 input_types=0xc
v4l2-ctl -d $D -i 0 >/dev/null
python3 $HERE/serve-cameras-checks.py $D $OUT 2>$OUT/serve-cameras.err
sleep 0.5

# --- multi-planar capture node + output node + metadata node (a new vivid instance)
modprobe -r vivid && modprobe vivid n_devs=1 node_types=0x20101 multiplanar=2 num_inputs=1 input_types=0x0
for i in $(seq 50); do [ -e /dev/video2 ] && break; sleep 0.1; done
say mp_devices "$($S devices --json | python3 -c 'import json,sys; print(";".join("%s,%s,%s,%s" % (x["path"], x["isCapture"], x["isMultiplanar"], x["isMetadata"]) for x in json.load(sys.stdin)["devices"]))')"
say mp_table "$($S devices | cut -f1,5 | tr '\t\n' ' ;')"
$S formats /dev/video0 --json > $OUT/mp.json; say mp_formats_rc $?
say mp_counts "$(python3 -c 'import json; print(len(json.load(open("'$OUT'/mp.json"))["catalog"]["formats"]))') $(v4l2-ctl -d /dev/video0 --list-formats | grep -c "^\s*\[")"
$S formats /dev/video0 --apply --json > $OUT/mp-apply.json; say mp_apply_rc $?
say mp_applied "$(python3 -c 'import json; a=json.load(open("'$OUT'/mp-apply.json"))["applied"]; print(a["pixelFormat"], a["width"], a["height"], a["frameDuration"]["numerator"], a["frameDuration"]["denominator"], a["exact"])')"
say mp_v4l2ctl_fmt "$(v4l2-ctl -d /dev/video0 --get-fmt-video | awk -F"'" '/Pixel Format/ {print $2}') $(v4l2-ctl -d /dev/video0 --get-fmt-video | awk '/Width\/Height/ {print $3}')"
for n in 1 2; do $S formats /dev/video$n 2>$OUT/n$n; say notcap$n "$? $(cat $OUT/n$n)"; done
# capture from the multi-planar node: YUYV (one plane with a 128-byte data offset) and NM12 (two planes)
for f in YUYV NM12; do
  $S capture /dev/video0 --format $f --size 320x180 --frames 40 --codec raw -o $OUT/mp-$f.mkv --overwrite --json > $OUT/mp-$f.json; say mpcap_${f}_rc $?
  say mpcap_$f "$(shear $OUT/mp-$f.mkv $OUT/mp-$f.json)"
done

say done 1
