#!/bin/sh
# Time-pitch benchmark: builds slomo (release, its own scratch path) and prints one table.
#   bench/audio/run.sh [--quick]
set -e
cd "$(dirname "$0")/../.."
swift build -c release --scratch-path .build-audio --product slomo >&2
exec python3 bench/audio/run.py --slomo .build-audio/release/slomo "$@"
