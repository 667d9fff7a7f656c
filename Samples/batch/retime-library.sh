#!/usr/bin/env bash
# Re-time a folder of clips to half speed at 30 fps, then list what failed and the slowest jobs.
# Uses only slomo's JSON output (jq), never its human-readable text.
#   Samples/batch/retime-library.sh CLIPS_DIR OUT_DIR [slomo]
set -euo pipefail
clips=${1:?clips directory}; out=${2:?output directory}; slomo=${3:-slomo}
mkdir -p "$out"
report=$(mktemp)
trap 'rm -f "$report"' EXIT
status=0
"$slomo" batch "$clips/*.mp4" --out-dir "$out" --rate 1/2 --pitch spectral --fps 30 --progress none > "$report" || status=$?
jq -r 'select(.status == "failed") | "FAILED \(.input): \(.error)"' "$report"
jq -r 'select(.status == "ok") | "\(.durationSeconds)\t\(.input)"' "$report" | sort -rn | head -3 | sed 's/^/slowest: /'
jq -r 'select(.summary) | .summary | "done: \(.ok) ok, \(.skipped) skipped, \(.failed) failed in \(.elapsedSeconds) s"' "$report"
# outputs that are complete by slomo's own reading
for f in "$out"/*.mp4; do
  [ -e "$f" ] || continue
  "$slomo" probe "$f" --json | jq -e '.damage == [] and (.streams[0].measuredFrameRate == {"numerator": 30, "denominator": 1})' >/dev/null \
    || echo "CHECK $f: not a clean 30 fps file"
done
exit "$status"
