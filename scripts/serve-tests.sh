#!/usr/bin/env bash
# The tests of `slomo serve` (Tests/serve, pytest): the API, the security refusals and the page in a
# real browser (Debian's chromium and chromium-driver, driven by Selenium with the system driver:
# SE_OFFLINE, nothing is downloaded), against the slomo built by `swift build`.
#
#   scripts/serve-tests.sh [PYTEST ARGS…]
#
# pytest and Selenium go into a virtual environment in ${SERVE_VENV:-~/.cache/slomo/serve-tests},
# installed once from PyPI at the versions below. SLOMO_BIN: the binary (default .build/debug/slomo).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${SERVE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/slomo/serve-tests}
want="selenium==4.51.0 pytest==9.2.0"
if ! "$venv/bin/python" -c 'import selenium, pytest, sys; sys.exit(0 if (selenium.__version__, pytest.__version__) == ("4.51.0", "9.2.0") else 1)' 2>/dev/null; then
  echo "serve-tests: installing $want into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check $want
fi
export SE_OFFLINE=true
export SLOMO_BIN=${SLOMO_BIN:-$(pwd)/.build/debug/slomo}
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider Tests/serve "$@"
