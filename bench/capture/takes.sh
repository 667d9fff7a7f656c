#!/usr/bin/env bash
# Takes held in RAM (#46) against saving straight from the ring (today's --save auto), on a disk
# slower than the camera: the synthetic camera at 640x480 gray, 1000 fps (307.2 MB/s), raw frames
# into Matroska, on a FUSE file system that takes a quarter of that (76.8 MB/s; Tests/TestSupport/
# nofsync-fs.py with a rate). Ten triggers 0.25 s apart, each shot 0.1 s before and after its
# trigger frame (201 frames, 61.7 MB).
#   bench/capture/takes.sh            (root: it mounts; SLOMO_BIN=… to use a build of your own)
# Per mode: frames the camera gave, lost by slomo (the goal with takes: 0), lost by the synthetic
# "driver" (its generator falling behind on a busy machine), frames missing inside the shots
# (sequence gaps, either cause), shots complete and whole, how long the capture ran from the first
# trigger until every shot was on disk, and the order they were saved in.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; fi
S=${SLOMO_BIN:-$(pwd)/.build/release/slomo}
RATE=${RATE:-76800000}
W=$(mktemp -d /var/tmp/slomo-bench-takes.XXXXXX)
mkdir -p "$W/back" "$W/mnt"
/usr/bin/python3 Tests/TestSupport/nofsync-fs.py "$W/back" "$W/mnt" none "$RATE" & FS=$!
trap 'fusermount -u "$W/mnt" 2>/dev/null; wait $FS 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 100); do grep -q " $W/mnt fuse" /proc/mounts && break; sleep 0.05; done
dd if=/dev/zero of="$W/mnt/dd" bs=1M count=300 conv=fdatasync 2> "$W/dd"; rm -f "$W/mnt/dd"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); disk: $RATE bytes/s asked of the FUSE file system, dd measured $(tail -1 "$W/dd" | awk -F, '{print $NF}'); camera 307200000 bytes/s"
printf "%-18s %8s %8s %8s %8s %8s %7s %s\n" mode captured "by slomo" "by drv" "in shots" complete "save s" "saved order"
for mode in "auto" "auto --takes 10" "lifo --takes 10"; do
  rm -f "$W"/mnt/* "$W/in" "$W/err"; mkfifo "$W/in"
  # shellcheck disable=SC2086
  "$S" capture --source synthetic:fps=1000,size=640x480,format=gray --pre-trigger 0.1 --post-trigger 0.1 --trigger stdin --shots 0 \
    --codec raw --save $mode -o "$W/mnt/shot%02d.mkv" --json < "$W/in" > "$W/r.json" 2> "$W/err" & pid=$!
  exec 3>"$W/in"
  for _ in $(seq 600); do grep -q '"armed"' "$W/err" && break; sleep 0.05; done
  start=$(date +%s.%N)
  for _ in $(seq 10); do echo trigger >&3; sleep 0.25; done
  echo quit >&3; exec 3>&-
  wait $pid || { cat "$W/err" >&2; exit 1; }
  end=$(date +%s.%N)
  python3 - "$W/r.json" "$mode" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); shots = r.get("shots") or []
gaps = sum(s["sequenceGaps"] for s in shots); whole = sum(1 for s in shots if s["complete"] and s["sequenceGaps"] == 0)
order = (r.get("takes") or {}).get("counts", {}).get("savedOrder") or [s["shot"] for s in shots]
print("%-18s %8d %8d %8d %8d %5d/%-2d %7.1f %s" % (sys.argv[2], r["framesCaptured"], r["droppedBySlomo"], r["droppedByDriver"], gaps, whole, len(shots),
      float(sys.argv[4]) - float(sys.argv[3]), " ".join(map(str, order))))
PY
done
