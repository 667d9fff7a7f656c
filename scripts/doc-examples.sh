#!/usr/bin/env bash
# Runs the documentation's command examples as written (#18: "the documentation's examples run as
# written"), so that a renamed flag or a changed default breaks a test, not a user:
#   - every ```sh block of README.md and Docs/*.md, file by file, in order, with bash -e, in a fresh
#     copy of the fixture directory that README's ```sh fixtures block makes (Samples/ linked in);
#   - every example line of `slomo <command> --help` ("Examples:" then indented `slomo …` lines),
#     one by one, in a fresh copy of the same directory.
# KIND local (default): blocks tagged ```sh and help examples that need no camera.
# KIND camera: blocks tagged ```sh camera and help examples on /dev/video0 (run in the vivid VM).
# Help examples that need more than one vivid camera (a sound card, a second camera, a network
# peer) are listed as SKIPPED with the reason. `mpv -` and `ffplay -` stand for a player: ffmpeg
# decodes the whole stream from stdin, which must hold video and audio.
# Usage: SLOMO=path/to/slomo scripts/doc-examples.sh [local|camera]   Exit 1 if any example fails.
set -uo pipefail
kind=${1:-local}
repo=$(cd "$(dirname "$0")/.." && pwd)
slomo=$(readlink -f "${SLOMO:-$repo/.build/debug/slomo}")
work=$(mktemp -d /tmp/slomo-doc-examples.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
ln -s "$slomo" "$work/bin/slomo"
export PATH="$work/bin:$PATH"
failed=0 ran=0 skipped=0

# The ```INFO blocks of a Markdown file, each as one script, separated by NUL.
blocks() {
  awk -v want="$2" '
    /^```/ { if (inb) { inb = 0; printf "%c", 0; next } info = substr($0, 4); sub(/[ \t]+$/, "", info); if (info == want) { inb = 1; next } }
    inb { print }
  ' "$1"
}

prelude='player() { ffmpeg -v error -nostdin -i - -map 0:v:0 -map 0:a:0 -f null -; }; mpv() { player; }; ffplay() { player; }; export -f player mpv ffplay; export XDG_CONFIG_HOME=$PWD/.config'

# The fixture directory, made by README's own fixtures block.
mkdir -p "$work/fixtures"
ln -s "$repo/Samples" "$work/fixtures/Samples"
# (the camera examples need none of them: under the VM's emulated CPU, making them would be slow)
blocks "$repo/README.md" "sh fixtures" | tr -d '\0' >"$work/fixtures.sh"
[ "$kind" = camera ] && : >"$work/fixtures.sh"
if ! (cd "$work/fixtures" && bash -e "$work/fixtures.sh" >"$work/fixtures.log" 2>&1 </dev/null); then
  echo "doc-examples: README.md's fixtures block failed:" >&2; tail -5 "$work/fixtures.log" >&2; exit 1
fi

# fresh NAME: a new copy of the fixtures; prints its path
fresh() { rm -rf "$work/$1"; cp -a "$work/fixtures" "$work/$1"; echo "$work/$1"; }

want="sh"; [ "$kind" = camera ] && want="sh camera"
for doc in "$repo/README.md" "$repo"/Docs/*.md; do
  name=${doc#"$repo/"}
  dir=$(fresh run)
  n=0
  while IFS= read -r -d '' block; do
    n=$((n + 1))
    printf '%s\n%s\n' "$prelude" "$block" >"$work/block.sh"
    if (cd "$dir" && timeout 300 bash -e "$work/block.sh" >"$work/block.log" 2>&1 </dev/null); then
      ran=$((ran + 1))
    else
      failed=$((failed + 1))
      echo "FAILED $name block $n:"; sed 's/^/    /' <<<"$block"; echo "  output:"; tail -8 "$work/block.log" | sed 's/^/    /'
    fi
  done < <(blocks "$doc" "$want")
  [ $n -gt 0 ] && echo "ran $name: $n block(s)"
done

# --help examples: the lines after "Examples:" in each command's discussion (from the parser's
# own dump, not the terminal-wrapped help)
helpExamples() {
  "$slomo" --experimental-dump-help | python3 -c '
import json, sys
for c in json.load(sys.stdin)["command"].get("subcommands", []):
    on = False
    command = ""
    for line in c.get("discussion", "").split("\n"):
        if line.strip().startswith("Example"): on = True; continue
        if on and command:                      # a continuation line (the one before ended with \\)
            command += " " + line.strip()
        elif on and line.strip().startswith("slomo "): command = line.strip()
        elif on: on = False; continue
        if command.endswith("\\"): command = command[:-1].rstrip(); continue
        if command: print(c["commandName"] + "\t" + command); command = ""'
}
while IFS=$'\t' read -r cmd line; do
  reason=""
  case "$line" in
    *hw:*) reason="needs a sound card" ;;
    */dev/video2*) reason="needs a second camera" ;;
    *udp://*) reason="needs a network peer" ;;
    *gpio:*) reason="needs a GPIO chip (Tests/vivid/gpio-checks.sh runs these on gpio-sim)" ;;
    *"slomo serve /dev/video"*) reason="serves until stopped (Tests/vivid/checks.sh runs slomo serve on vivid)" ;;
    *genicam:*) reason="needs a GenICam camera on the network (GenICamCLITests runs the same commands on Aravis's fake GigE Vision camera in a network namespace)" ;;
  esac
  case "$line" in */dev/video*) is_camera=1 ;; *) is_camera=0 ;; esac
  if [ "$kind" = camera ] && [ $is_camera = 0 ]; then continue; fi
  if [ "$kind" = local ] && [ $is_camera = 1 ]; then continue; fi
  if [ -n "$reason" ]; then skipped=$((skipped + 1)); echo "SKIPPED slomo $cmd --help: $line ($reason)"; continue; fi
  dir=$(fresh help)
  printf '%s\n%s\n' "$prelude" "$line" >"$work/help.sh"
  # a capture waiting for a trigger runs until the user stops it: Ctrl-C (SIGINT) after 10 s
  limit=300; case "$line" in *--trigger*|*"slomo serve"*) limit=10 ;; esac
  status=0
  # a stdin trigger gets its line, as an operator would type it once the capture is armed
  feed="true"; case "$line" in *"--trigger stdin"*) feed="sleep 4; echo trigger; sleep 6" ;; esac
  (cd "$dir" && bash -c "$feed" | timeout -s INT $limit bash -e "$work/help.sh" >"$work/help.log" 2>&1) || status=$?
  case "$line" in *--trigger*|*"slomo serve"*) [ $status = 130 ] || [ $status = 124 ] && status=0 ;; esac
  if [ $status = 0 ]; then
    ran=$((ran + 1))
  else
    failed=$((failed + 1)); echo "FAILED slomo $cmd --help example (exit $status): $line"; tail -5 "$work/help.log" | sed 's/^/    /'
  fi
done < <(helpExamples)
echo "ran --help examples"

echo "doc-examples ($kind): $ran ran, $failed failed, $skipped skipped"
[ $failed = 0 ]
