#!/usr/bin/env bash
# GenICam capture over GigE Vision: slomo against arv-camera-test-0.8 (Aravis's own receiver) and
# GStreamer's aravissrc ! fakesink, on Aravis's fake GigE Vision camera over loopback, in one run
# inside a network namespace of its own (unshare -n, only lo up: discovery broadcasts stay in it).
#   bench/capture/genicam.sh [--quick] [--rounds N]   (10 s per mode and tool, 3 rounds; --quick: 3 s, 1 round)
# The tools take turns (each round in another order) and the table gives each one's median: the fake
# camera's pace follows the machine's load, which moves by ±20 % within minutes here.
# Modes: 320x240 Mono8 asked 500 and 1000 fps, 640x480 asked 200 fps. Per tool: frames received,
# frames stored (slomo writes raw frames to RAM; the others store nothing), damaged; for slomo the
# frames the camera numbered (its frame ids, through the 16-bit wrap) and every missing id.
# Then the synthetic Mono8 camera at 2000 fps 320x240 into the ring (no network): frames lost by slomo.
# Needs root (the namespace). The fake paces itself by sleeping: late wake-ups skip whole periods
# without numbering them, so "asked" is not what was sent on a busy machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench
SECONDS_PER=10; ROUNDS=3
while [ $# -gt 0 ]; do case $1 in --quick) SECONDS_PER=3; ROUNDS=1 ;; --rounds) ROUNDS=$2; shift ;; *) echo "usage: $0 [--quick] [--rounds N]" >&2; exit 64 ;; esac; shift; done
[ "$(id -u)" = 0 ] || { echo "genicam bench: needs root for its network namespace (unshare -n)" >&2; exit 77; }
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; fi
BIN=${SLOMO_BIN:-$PWD/.build/release/slomo}
OUT=$(mktemp -d /dev/shm/slomo-genicam.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

cat > "$OUT/inside.sh" <<'INSIDE'
set -u
ip link set lo up
arv-fake-gv-camera-0.8 -i 127.0.0.1 >/dev/null 2>&1 & FAKE=$!
for i in $(seq 100); do arv-tool-0.8 -a 127.0.0.1 control DeviceID >/dev/null 2>&1 && break; sleep 0.1; done
export SLOMO_GENICAM_INTERFACES=GigEVision
run_slomo() {   # raw frames into a file in RAM, the report's counts
  "$BIN" capture genicam:127.0.0.1 --format Mono8 --size "$size" --fps "$fps" --duration "$SECONDS_PER" \
    --codec raw -o "$OUT/s.mkv" --overwrite --json > "$OUT/s.json" 2> "$OUT/s.err" || { cat "$OUT/s.err" >&2; }
  python3 - "$OUT/s.json" "$mode" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = r["transport"]
damaged = sum(t["damagedByStatus"].values())
sent = r["framesCaptured"] + r["droppedByDriver"]
missing = ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in t["missingFrameIds"]) or "none"
print(f"RESULT slomo {sys.argv[2]} sent={sent} received={r['framesCaptured'] - damaged} stored={r['framesWritten']} damaged={damaged} "
      f"lostBySlomo={r['droppedBySlomo']} missingIds={missing} wraps={t['frameIdWraps']} residualP50us={t.get('clockResidualP50Micros')}")
PY
}
run_arv() {     # Aravis's own receive loop (pops and pushes back, stores nothing)
  arv-camera-test-0.8 -n 127.0.0.1 -w "$w" -h "$h" -f "$fps" --duration "$SECONDS_PER" > "$OUT/a.txt" 2>&1 || true
  local c f m
  c=$(awk '/^n_completed_buffers/ {print $3}' "$OUT/a.txt"); f=$(awk '/^n_failures/ {print $3}' "$OUT/a.txt"); m=$(awk '/^n_missing_frames/ {print $3}' "$OUT/a.txt")
  echo "RESULT arv-camera-test $mode sent=$(( ${c:-0} + ${f:-0} + ${m:-0} )) received=${c:-0} stored=0 damaged=${f:-0}"
}
run_gst() {     # aravissrc ! fakesink, one line per buffer (aravissrc drops damaged frames silently)
  timeout -s INT "$SECONDS_PER" gst-launch-1.0 -e aravissrc camera-name=127.0.0.1 num-arv-buffers=64 \
    ! "video/x-raw,format=GRAY8,width=$w,height=$h,framerate=$fps/1" ! fakesink silent=false -v > "$OUT/g.txt" 2>&1 || true
  local got
  got=$(grep -c 'last-message = chain' "$OUT/g.txt" || true)
  echo "RESULT gstreamer $mode received=${got:-0} stored=0"
}
for round in $(seq "$ROUNDS"); do
  case $((round % 3)) in 1) order="slomo arv gst" ;; 2) order="arv gst slomo" ;; 0) order="gst slomo arv" ;; esac
  for mode in 320x240@500 320x240@1000 640x480@200; do
    size=${mode%@*}; fps=${mode#*@}; w=${size%x*}; h=${size#*x}
    for tool in $order; do "run_$tool"; done
  done
done
kill -9 $FAKE 2>/dev/null
INSIDE
unshare -n env BIN="$BIN" OUT="$OUT" SECONDS_PER="$SECONDS_PER" ROUNDS="$ROUNDS" bash "$OUT/inside.sh" | tee "$OUT/results.txt" | grep RESULT || true

# the synthetic Mono8 camera at 2000 fps into the ring (frames pre-rendered: the test source costs nothing)
"$BIN" capture --source "synthetic:fps=2000,size=320x240,format=gray,preload=64" --duration "$SECONDS_PER" \
  --codec raw -o "$OUT/syn.mkv" --overwrite --json > "$OUT/syn.json" 2>/dev/null
python3 - "$OUT/syn.json" <<'PY' | tee -a "$OUT/results.txt"
import json, sys
r = json.load(open(sys.argv[1]))
print(f"RESULT slomo synthetic-320x240@2000 sent={r['framesCaptured'] + r['droppedByDriver']} received={r['framesCaptured']} stored={r['framesWritten']} "
      f"lostBySlomo={r['droppedBySlomo']} fps={r['achievedFps']}")
PY

echo
echo "| mode | tool | frames received (median) | stored | damaged | received / arv-camera-test | camera numbered / missing ids / lost by slomo |"
echo "|---|---|---|---|---|---|---|"
python3 - "$OUT/results.txt" <<'PY'
import statistics, sys
rows = [dict([("tool", l.split()[1]), ("mode", l.split()[2])] + [kv.split("=", 1) for kv in l.split()[3:]])
        for l in open(sys.argv[1]) if l.startswith("RESULT")]
keys = []
for r in rows:
    if (r["mode"], r["tool"]) not in keys: keys.append((r["mode"], r["tool"]))
def med(mode, tool, field):
    v = [int(r[field]) for r in rows if r["mode"] == mode and r["tool"] == tool and r.get(field, "?").isdigit()]
    return int(statistics.median(v)) if v else None
for mode, tool in keys:
    got = med(mode, tool, "received"); base = med(mode, "arv-camera-test", "received")
    ratio = f"{got / base:.3f}" if base else "—"
    mine = [r for r in rows if r["mode"] == mode and r["tool"] == tool]
    notes = ""
    if "sent" in mine[0]:
        notes = f"{med(mode, tool, 'sent')}"
        if tool == "slomo" or "synthetic" in mode:
            ids = sorted({r.get('missingIds', 'none') for r in mine})
            notes += f" / {', '.join(ids)} / {sum(int(r['lostBySlomo']) for r in mine)}"
    dmg = med(mode, tool, "damaged")
    print(f"| {mode} | {tool} | {got} | {med(mode, tool, 'stored')} | {'—' if dmg is None else dmg} | {ratio} | {notes} |")
print(f"\n{len(rows)} runs in all.")
PY
