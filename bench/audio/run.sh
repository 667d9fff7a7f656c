#!/bin/sh
# Time-pitch benchmark: builds slomo (release, its own scratch path), prints the table of all
# algorithms and peers (run.py), then the CPU head-to-head against rubberband -3 and soundstretch
# with repeated alternating runs (headtohead.py).
#   bench/audio/run.sh [--quick]
set -e
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench   # the peers and tools benchmarks need (only those missing)
swift build -c release --scratch-path .build-audio --product slomo >&2
python3 bench/audio/run.py --slomo .build-audio/release/slomo "$@"
echo
if [ "$1" = "--quick" ]; then
    exec python3 bench/audio/headtohead.py --slomo .build-audio/release/slomo --quick --runs 3
fi
exec python3 bench/audio/headtohead.py --slomo .build-audio/release/slomo
