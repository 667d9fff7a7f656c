#!/usr/bin/env bash
# Capture on the real vivid driver (the test machine, Tests/vm/run.sh): slomo vs the ffmpeg CLI, same VM run,
# same modes, same frame count, both writing x264 superfast into the guest's RAM (/tmp).
#   bench/capture/vivid.sh [--quick] [--runs N]
# Drops for both tools are read the same way, from the file's timestamps: an interval of k
# frame periods is k-1 lost frames. slomo's own report (driver sequence gaps) is printed beside.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench   # the peers and tools benchmarks need (only those missing)
RUNS=3; FRAMES=300
while [ $# -gt 0 ]; do case $1 in --quick) RUNS=1 ;; --runs) RUNS=$2; shift ;; *) echo "usage: $0 [--quick] [--runs N]" >&2; exit 64 ;; esac; shift; done
# SLOMO_BIN=path: run that build instead (a before/after comparison on one boot)
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; fi
Tests/vm/run.sh --timeout 900 --vivid "n_devs=1 node_types=0x1 num_inputs=2 input_types=0xc" -- \
  env SLOMO_BIN="${SLOMO_BIN:-$PWD/.build/release/slomo}" RUNS=$RUNS FRAMES=$FRAMES bash bench/capture/vivid-guest.sh
