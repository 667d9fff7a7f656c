#!/usr/bin/env bash
# Trigger to selected frame on real drivers (the test machine, Tests/vm/run.sh --alsa --gpio-sim:
# vivid at 60 fps, the loopback card, gpio-sim): how far each way of firing a shot lands from the
# event's own instant, and whether the trigger frame is the frame of that instant, idle and with
# both processors busy. The event is a GPIO edge (driven through gpio-sim at a known CLOCK_MONOTONIC
# time) or a click (played into the loopback card at a known time, Tests/vivid/clicks.c). Ways:
#   slomo's own triggers:  --trigger gpio:…  (the kernel's edge time)   --trigger sound (the sound clock)
#   what a user scripts instead, given its best chance:
#     gpiomon (libgpiod's tool) → kill -USR1 → --trigger signal   (slomo's read time of the signal)
#     gpiomon → a 'trigger' line → --trigger stdin                  (slomo's read time of the line)
#     arecord (5 ms periods) → a threshold detector → kill -USR1    (the sound as it arrives)
#   bench/capture/triggers.sh            (EVENTS=20 per row by default; WAYS="gpio sound", LOADS=loaded: some rows)
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench   # the peers and tools benchmarks need (only those missing)
# SLOMO_BIN=path: run that build instead
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; fi
# the recordings and reports stay here for a look afterwards
out=${OUT:-/tmp/slomo-trigger-bench}
rm -rf "$out"; mkdir -p "$out"
Tests/vm/run.sh --alsa --gpio-sim --rw "$out" --timeout 1200 --vivid "n_devs=1 node_types=0x1 num_inputs=1 input_types=0x0" -- \
  env T="$out" SLOMO_BIN="${SLOMO_BIN:-$PWD/.build/release/slomo}" EVENTS="${EVENTS:-20}" WAYS="${WAYS:-}" LOADS="${LOADS:-}" EXTRA="${EXTRA:-}" bash bench/capture/triggers-guest.sh
echo "| way | load | events | shots | event outside the reference p50 / max (ms) | widest reference window (ms) | trigger frame = frame of the instant | camera fps / frames it dropped |"
echo "|---|---|---|---|---|---|---|---|"
while read -r name load; do
  python3 bench/capture/trigger-errors.py "$name" "$load" "$out/$name-$load.ref" "$out/$name-$load.json"
done < "$out/rows"
