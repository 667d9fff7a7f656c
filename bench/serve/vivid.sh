#!/usr/bin/env bash
# slomo serve under load on the real vivid driver (the test machine, Tests/vm/run.sh): the capture's
# frames with no viewer and with four viewers plus a stalled one, in one VM run (bench/serve/load.py).
#   bench/serve/vivid.sh [--seconds N]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps test
SECONDS_ARG=${2:-10}
[ "${1:-}" = "--seconds" ] || SECONDS_ARG=10
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; fi
Tests/vm/run.sh --timeout 900 --vivid "n_devs=1 node_types=0x1 num_inputs=2 input_types=0xc" -- \
  env SLOMO_BIN="${SLOMO_BIN:-$PWD/.build/release/slomo}" bash -c "
    v4l2-ctl -d /dev/video0 -i 1 >/dev/null      # the HDMI input: 640x480 at up to 100 fps here
    python3 bench/serve/load.py --camera '/dev/video0 --format YUYV --size 640x480' --seconds $SECONDS_ARG"
