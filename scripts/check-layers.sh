#!/usr/bin/env bash
# The layering rule SwiftPM cannot enforce (Docs/Architecture.md, "Layers"), checked on imports:
#   CLI (Sources/slomo) → [SlomoServe (the HTTP server) →] SlomoKit → wrappers (SlomoFFmpeg, SlomoV4L2, SlomoALSA, SlomoAudio, SlomoFlow, SlomoAravis, SlomoTIFF, SlomoHDF5) → SlomoCore
#   SlomoSystem (POSIX calls and signals) beside the wrappers, usable from every layer above SlomoCore
# - the CLI, SlomoServe and SlomoKit never import a C module; the CLI and SlomoServe never import a wrapper;
# - nothing below SlomoServe imports it (the server is a front end, like the CLI);
# - a wrapper never imports SlomoKit; SlomoCore imports nothing but the standard library;
# - tests of a layer never import a layer above it (core tests: SlomoCore only; wrapper tests and
#   their shared fixtures in Tests/TestSupport: no SlomoKit).
# Usage: scripts/check-layers.sh [ROOT]   (exit 1 and one line per rule broken)
set -uo pipefail
root=${1:-.}
cd "$root" || exit 2
bad=0
IMPORT='^\s*(@_exported |@_implementationOnly |@preconcurrency |@testable |public |internal |package |private |fileprivate )*import'

# forbid DIRS REGEX WHY: no file under DIRS imports a module matching REGEX
forbid() {
  local dirs=() d
  for d in $1; do [ -d "$d" ] && dirs+=("$d"); done
  [ ${#dirs[@]} = 0 ] && return 0
  local hits
  hits=$(grep -rnE --include='*.swift' "$IMPORT +($2)\b" "${dirs[@]}")
  if [ -n "$hits" ]; then
    echo "$hits" >&2
    echo "layer check: $3 (see Docs/Architecture.md, \"Layers\")" >&2
    bad=1
  fi
}

WRAPPERS='SlomoFFmpeg|SlomoV4L2|SlomoALSA|SlomoAudio|SlomoFlow|SlomoAravis|SlomoTIFF|SlomoHDF5'
forbid "Sources/slomo Sources/SlomoServe Sources/SlomoKit" 'C[A-Z][A-Za-z0-9]*' "a C module imported above the wrapper layer"
forbid "Sources/slomo" "$WRAPPERS" "the CLI imports a wrapper (it goes through SlomoKit)"
forbid "Sources/SlomoServe" "$WRAPPERS" "the server imports a wrapper (it goes through SlomoKit)"
forbid "Sources/SlomoKit Sources/SlomoCore Sources/SlomoSystem Sources/SlomoFFmpeg Sources/SlomoV4L2 Sources/SlomoALSA Sources/SlomoAudio Sources/SlomoFlow Sources/SlomoAravis Sources/SlomoTIFF Sources/SlomoHDF5" \
  'SlomoServe' "a layer below the server imports it"
forbid "Sources/SlomoFFmpeg Sources/SlomoV4L2 Sources/SlomoALSA Sources/SlomoAudio Sources/SlomoFlow Sources/SlomoAravis Sources/SlomoTIFF Sources/SlomoHDF5" 'SlomoKit|slomo' \
  "a wrapper imports the use-case layer"
forbid "Sources/SlomoCore" '[A-Za-z_][A-Za-z0-9_.]*' "SlomoCore imports something (stdlib only)"
forbid "Sources/SlomoSystem Tests/SlomoSystemTests" 'Slomo(Core|Kit|FFmpeg|V4L2|ALSA|Audio|TestSupport)|slomo' \
  "SlomoSystem (the door to the kernel) depends on a slomo layer"
forbid "Tests/SlomoCoreTests" "SlomoKit|$WRAPPERS|SlomoTestSupport|C[A-Z][A-Za-z0-9]*" \
  "core tests depend on a layer above SlomoCore"
forbid "Tests/SlomoFFmpegTests Tests/SlomoAudioTests Tests/SlomoV4L2Tests Tests/SlomoALSATests Tests/SlomoAravisTests Tests/TestSupport" \
  'SlomoKit' "wrapper tests depend on SlomoKit"

[ $bad = 0 ] && echo "layer check: ok"
exit $bad
