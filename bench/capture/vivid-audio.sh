#!/usr/bin/env bash
# Sound beside the camera on real drivers (the test machine, Tests/vm/run.sh --alsa: vivid + snd-aloop):
# slomo vs the ffmpeg CLI, same VM run. A click every 0.5 s is played into the loopback at known
# CLOCK_MONOTONIC times (Tests/vivid/clicks.c); each tool records webcam 320x180@60 + the loopback
# for 6 s; every click found in the recording is placed on CLOCK_MONOTONIC and compared with when
# it was played (Tests/vivid/av-offsets.py). ffmpeg gets its best chance: both inputs stamped on
# CLOCK_REALTIME (v4l2 `-ts mono2abs`, ALSA's wall-clock stamps) and kept (`-copyts`), NUT output.
#   bench/capture/vivid-audio.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench   # the peers and tools benchmarks need (only those missing)
# SLOMO_BIN=path: run that build instead (a before/after comparison on one boot)
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; fi
Tests/vm/run.sh --alsa --timeout 900 --vivid "n_devs=1 node_types=0x1 num_inputs=1 input_types=0x0" -- \
  env SLOMO_BIN="${SLOMO_BIN:-$PWD/.build/release/slomo}" bash bench/capture/vivid-audio-guest.sh
