#!/usr/bin/env bash
# slomo serve under load on the real vivid driver (the test machine, Tests/vm/run.sh): the capture's
# frames with no viewer and with four viewers plus a stalled one, in one VM run (bench/serve/load.py).
#   bench/serve/vivid.sh [--seconds N] [--webcam]    (--webcam: vivid's webcam input, 320x180 at 60 fps;
#                                                      default its HDMI input, 640x480)
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench   # ustreamer: the peer
SECONDS_ARG=10; INPUT=1; MODE="--format YUYV --size 640x480"
while [ $# -gt 0 ]; do case $1 in --seconds) SECONDS_ARG=$2; shift ;; --webcam) INPUT=0; MODE="--format YUYV --size 320x180" ;;
  *) echo "usage: $0 [--seconds N] [--webcam]" >&2; exit 64 ;; esac; shift; done
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; fi
Tests/vm/run.sh --timeout 900 --vivid "n_devs=1 node_types=0x1 num_inputs=2 input_types=0xc" -- \
  env SLOMO_BIN="${SLOMO_BIN:-$PWD/.build/release/slomo}" bash -c "
    ip link set lo up                            # the guest's loopback: the server and its clients
    v4l2-ctl -d /dev/video0 -i $INPUT >/dev/null
    python3 bench/serve/load.py --camera '/dev/video0 $MODE' --seconds $SECONDS_ARG --peer"
