# Sourced by every script that runs INSIDE the test machine (checks.sh, audio-checks.sh, gpio-checks.sh):
# the binary under test, the output directory, the camera, and the two helpers they share.
set -u
S=${SLOMO_BIN:?}
OUT=${OUT_DIR:?}
D=/dev/video0
HERE=$(dirname "${BASH_SOURCE[0]}")
# one "CHECK name value" line, which the Swift suites parse
say() { echo "CHECK $*"; }
# waits until slomo's stderr (FILE) says the capture is armed, TRIES tenths of a second at most
wait_armed() { for i in $(seq "$2"); do grep -q '^slomo: armed' "$1" 2>/dev/null && return; sleep 0.1; done; }
