#!/usr/bin/env bash
# Validates Kubernetes manifests against the Kubernetes API's JSON schema with kubernetes-validate
# (PyPI; it ships the schemas, so validation needs no cluster and no network once installed).
#
#   scripts/k8s-validate.sh                  Samples/batch/k8s-indexed-job.yaml, plus a check that a
#                                            deliberately broken copy of it is rejected
#   scripts/k8s-validate.sh FILE...          just these files
#
# Each file is checked in strict mode (unknown fields rejected) against the oldest and the newest
# Kubernetes version the installed release knows (K8S_VERSIONS="1.29.0 1.37.0" to choose). The
# validator goes into a virtual environment in ${K8S_VENV:-~/.cache/slomo/k8s-validate}, installed
# once (python3-venv comes with scripts/dev.sh deps). Exit 0 when every file is valid, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${K8S_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/slomo/k8s-validate}
validator_version=1.37.0

if ! "$venv/bin/kubernetes-validate" --version 2>/dev/null | grep -qF "$validator_version"; then
  echo "k8s-validate: installing kubernetes-validate $validator_version into $venv" >&2
  python3 -m venv "$venv" 2>/dev/null || {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
    python3 -m venv "$venv"
  }
  "$venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$validator_version"
fi
validate() { "$venv/bin/kubernetes-validate" --strict --quiet "$@"; }

# The versions with bundled schemas: kubernetes_validate/kubernetes-json-schema/v1.NN.0-local-strict
schemas=$("$venv/bin/python" -c 'import kubernetes_validate, os
print(os.path.join(os.path.dirname(kubernetes_validate.__file__), "kubernetes-json-schema"))')
read -r -a versions <<<"${K8S_VERSIONS:-$(ls "$schemas" | sed -n 's/^v\(.*\)-local-strict$/\1/p' |
  sort -V | sed -n '1p;$p' | xargs)}"

failed=0
check() { # file: valid against every chosen version?
  local v ok=0
  for v in "${versions[@]}"; do validate -k "$v" "$1" || ok=1; done
  [ "$ok" = 0 ] && echo "k8s-validate: $1 valid for Kubernetes ${versions[*]}"
  return "$ok"
}

if [ $# -gt 0 ]; then
  for f in "$@"; do check "$f" || failed=1; done
  exit "$failed"
fi

sample=Samples/batch/k8s-indexed-job.yaml
check "$sample" || failed=1

# The validator must catch mistakes: a misspelt field, a string count, a missing container list.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^  parallelism: 8/  parallelizm: 8/' "$sample" >"$tmp/field.yaml"
sed 's/^  completions: 8 /  completions: "8"/' "$sample" >"$tmp/type.yaml"
sed 's/^      containers:/      container:/' "$sample" >"$tmp/required.yaml"
for broken in "$tmp"/field.yaml "$tmp"/type.yaml "$tmp"/required.yaml; do
  if cmp -s "$sample" "$broken"; then
    echo "k8s-validate: could not break $(basename "$broken") (the sample changed?)" >&2; failed=1
  elif validate "$broken" >/dev/null 2>&1; then
    echo "k8s-validate: broken copy $(basename "$broken") passed: the validator checks nothing" >&2; failed=1
  else
    echo "k8s-validate: broken copy $(basename "$broken") rejected: $(validate "$broken" 2>&1 | sed 's/.*against version [0-9.]*: //' | head -1)"
  fi
done
exit "$failed"
