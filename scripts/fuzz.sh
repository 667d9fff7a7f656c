#!/usr/bin/env bash
# Fuzzes slomo's parsers of untrusted input with libFuzzer under AddressSanitizer (leaks included):
# batch manifests (JSON, YAML, CSV), v4l2-ctl listings (formats and controls), the command line's
# value parsers (rationals, times, segments and ramps, shards, sizes, camera controls), WAV
# headers, the lab headers slomo reads itself (a Phantom Cine's blocks, a Photron .cihx), a network
# trigger's datagram and the request bodies `slomo serve` decodes. Targets: Tests/Fuzz/Sources; seed
# corpora: Tests/Fuzz/Corpus (copied, never written); dictionaries: Tests/Fuzz/Dictionaries (optional).
#
#   scripts/fuzz.sh [SECONDS]     each target for SECONDS (default 20); FUZZ_TARGETS="a b" picks some;
#                                 FUZZ_RUNS=1000000 runs each that many inputs instead (no time limit)
#
# Last line: `fuzz: T targets, E execs, C crashes`; exit 1 on any crash, leak or timeout (the input
# is kept in .build-fuzz/findings/ to become a regression test).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
seconds=${1:-20}
targets=(${FUZZ_TARGETS:-fuzz-body fuzz-lab fuzz-listing fuzz-manifest fuzz-trigger fuzz-values fuzz-wav})
build=.build-fuzz
mkdir -p "$build"
swift build --package-path Tests/Fuzz --build-path "$build" -c debug \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >"$build/build.log" 2>&1 || { tail -30 "$build/build.log" >&2; exit 2; }
bin=$(swift build --package-path Tests/Fuzz --build-path "$build" -c debug --show-bin-path)
mkdir -p "$build/findings"
total=0 crashes=0
for t in "${targets[@]}"; do
  corpus=$(mktemp -d); trap 'rm -rf "$corpus"' EXIT
  cp Tests/Fuzz/Corpus/"${t#fuzz-}"/* "$corpus"/
  log="$build/$t.log"
  status=0
  limit=(-max_total_time="$seconds")
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
  dict=Tests/Fuzz/Dictionaries/$t.dict
  [ -f "$dict" ] && limit+=(-dict="$dict")
  "$bin/$t" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/findings/$t-" "$corpus" >"$log" 2>&1 || status=$?
  execs=$(awk '/stat::number_of_executed_units/ {print $NF}' "$log" | tail -1)
  execs=${execs:-0}
  total=$((total + execs))
  if [ "$status" != 0 ]; then
    crashes=$((crashes + 1))
    echo "fuzz: $t: FOUND (exit $status): $(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Fatal error|SUMMARY' "$log" || tail -1 "$log")" >&2
    ls "$build"/findings/"$t"-* 2>/dev/null | sed 's/^/  input: /' >&2
  else
    echo "fuzz: $t: $execs execs in $(awk '/^Done/ {print $5}' "$log" | tail -1) s, corpus $(ls "$corpus" | wc -l) inputs, peak RSS $(awk '/peak_rss_mb/ {print $NF}' "$log" | tail -1) MB, 0 crashes"
  fi
  rm -rf "$corpus"
done
echo "fuzz: ${#targets[@]} targets, $total execs, $crashes crashes"
[ "$crashes" = 0 ]
