#!/usr/bin/env bash
# slomo's developer entry point: install what is missing, build, run the demo or the tests.
#   scripts/dev.sh deps [build|test|bench|package]  install the missing Debian packages of a set (default build)
#   scripts/dev.sh demo    deps + release build + the main job on its built-in default input
#   scripts/dev.sh test    deps + layer check + debug build + every test (vivid VM tests included),
#                          then the Slurm and Kubernetes checks of Samples/batch (below)
#   scripts/dev.sh slurm   Samples/batch/slurm-array.sbatch on a real one-node Slurm cluster (root)
#   scripts/dev.sh k8s     Samples/batch/k8s-indexed-job.yaml against the Kubernetes API schema
#   scripts/dev.sh fuzz [S] the parsers under libFuzzer + AddressSanitizer, S seconds each (Docs/Reliability.md)
#   scripts/dev.sh mutate [RUNS] [SEED]  damaged media through probe/export/retime/stretch/play, slomo
#                          built with AddressSanitizer (default 300 runs, seed 1: the CI pass)
#   scripts/dev.sh tsan    the threaded test suites under ThreadSanitizer (Docs/Reliability.md)
#   scripts/dev.sh package [--check-install]  the Debian package, lintian-clean (scripts/package-deb.sh)
#   scripts/dev.sh man     regenerate the man page Docs/man/slomo.1 from the commands' --help
#   scripts/dev.sh format  format the Swift files in place (the toolchain's swift-format, .swift-format)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"

# Debian 12 packages, in three sets; `deps` installs the missing ones of a set and the sets before it.
# build: what building and running slomo needs (FFmpeg 5.1 libraries, SoundTouch, Rubber Band, ALSA;
# OpenCV's video module for libslomo-flow.so, the optical flow of --frame-blend flow; Aravis for GenICam
# cameras, whose pkg-config file needs libusb-1.0-0-dev, a dependency Debian's package forgot; libtiff,
# libpng and the serial HDF5 C library for slomo convert's TIFF and PNG sequences and .h5 files; fonts-dejavu-core:
# the font export --burn-in draws with).
BUILD_PACKAGES=(
  pkg-config libsoundtouch-dev librubberband-dev libasound2-dev
  libavformat-dev libavcodec-dev libavfilter-dev libswresample-dev libswscale-dev libavutil-dev
  libopencv-video-dev libaravis-dev libusb-1.0-0-dev libtiff-dev libpng-dev libhdf5-dev fonts-dejavu-core
)
# test: ffmpeg/ffprobe, mkvinfo and mediainfo as independent readers, v4l2-ctl, qemu and kmod for the
# test machine (Tests/vm/run.sh: it downloads Debian's kernel and busybox-static on first use), alsa-utils for its sound card, GNU parallel and jq for the batch samples, python3-venv
# for the Kubernetes schema check, python3-fusepy and fuse for a file system that refuses fsync,
# zsh and fish for the completion scripts in their own shells, mandoc to read the man page; make,
# gcc and xz-utils to build the kernel's gpio-sim for the test machine (Tests/vm/gpio-sim.sh, which
# installs linux-headers for the test machine's kernel itself: its version is chosen on first use);
# aravis-tools (the GigE Vision fake camera, arv-camera-test) and aravis-tools-cli (arv-tool), run in a network namespace
# (unshare from util-linux, ip from iproute2); chromium and chromium-driver (the same version: Debian ties them) for
# the page of `slomo serve` in a real browser (scripts/serve-tests.sh); curl for Docs/Serve.md's example;
# readers slomo did not write for slomo convert's files (ConvertTests): libtiff's tiffinfo/tiffdump,
# HDF5's h5dump, and Debian's python3-tifffile, python3-h5py and python3-numpy (run as /usr/bin/python3);
# for DNG (ConvertDNGTests) exiftool, dcraw and LibRaw's tools; tesseract-ocr to read export's
# --burn-in labels back (BurnInTests).
TEST_PACKAGES=(
  ffmpeg v4l-utils qemu-system-x86 kmod alsa-utils parallel jq python3-venv
  mkvtoolnix mediainfo python3-fusepy fuse zsh fish mandoc make gcc xz-utils aravis-tools aravis-tools-cli iproute2 util-linux
  chromium chromium-driver curl libtiff-tools hdf5-tools python3-tifffile python3-h5py python3-numpy
  libimage-exiftool-perl dcraw libraw-bin tesseract-ocr systemd prometheus
)
# bench: the peers users would pick instead (rubberband, soundstretch), test signals (espeak-ng,
# sox), /usr/bin/time and bc; gpiomon (gpiod) for the trigger bench; gst-launch-1.0 (aravissrc) for the GenICam bench;
# ustreamer (µStreamer, the MJPEG streamer) for the serve bench.
BENCH_PACKAGES=(rubberband-cli soundstretch espeak-ng sox time bc gpiod gstreamer1.0-tools ustreamer)
# package: what `scripts/dev.sh package` (scripts/package-deb.sh) needs beside the build set:
# dpkg-shlibdeps (dpkg-dev), lintian, patchelf (the toolchain's RUNPATH removed), and debootstrap
# for --check-install's fresh Debian 12.
PACKAGE_PACKAGES=(dpkg-dev lintian debootstrap binutils patchelf)

# deps [build|test|bench|package]: install what is missing (default: build).
deps() {
  local wanted=("${BUILD_PACKAGES[@]}")
  case "${1:-build}" in
    build) ;;
    test) wanted+=("${TEST_PACKAGES[@]}") ;;
    bench) wanted+=("${TEST_PACKAGES[@]}" "${BENCH_PACKAGES[@]}") ;;
    package) wanted+=("${PACKAGE_PACKAGES[@]}") ;;
    *) echo "usage: scripts/dev.sh deps [build|test|bench|package]" >&2; exit 64 ;;
  esac
  local missing=() p
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The house rules SwiftPM does not check: the layers (imports), the size limits (350 lines a
# file, 60 a function), the formatter (.swift-format, the toolchain's swift-format) and no compiler
# warning in the project's own code (checked on the build's output: scripts/dev.sh test).
layers() {
  scripts/check-layers.sh .
  python3 scripts/check-size.py .
  # the formatter's own check: any line `scripts/dev.sh format` would change fails the test command
  swift format lint --strict -r Sources Tests Samples --configuration .swift-format \
    || { echo "format check: run scripts/dev.sh format (the toolchain's swift-format, .swift-format)" >&2; exit 1; }
  echo "format check: ok"
}

# Formats the project's Swift files in place (.swift-format: 4 spaces, 160 columns).
format() {
  swift format format -i -r Sources Tests Samples --configuration .swift-format
}

# Builds with `swift build ARGS`, failing on any warning in Sources/ or Tests/ (a fresh clone
# compiles every file, so CI sees them all; an incremental build shows those it recompiled).
build_without_warnings() {
  local log rc=0
  log=$(mktemp)
  swift build "$@" >"$log" 2>&1 || rc=$?
  grep -vE '^\[[0-9]+/[0-9]+\]' "$log" || true
  local warnings
  warnings=$(grep -E "^$(pwd)/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u || true)
  rm -f "$log"
  [ "$rc" = 0 ] || { echo "build failed (swift build $*)" >&2; exit "$rc"; }
  if [ -n "$warnings" ]; then
    echo "$warnings" >&2
    echo "build: $(echo "$warnings" | wc -l) compiler warnings in the project's own code (kept at zero)" >&2
    exit 1
  fi
}

demo() {
  deps
  swift build -c release --product slomo
  swift build -c release --product slomo-flow   # libslomo-flow.so beside it: --frame-blend flow
  local bin=.build/release/slomo
  mkdir -p out
  # the main job on the built-in default input: a 240 fps clip from the synthetic camera,
  # exported at half speed to 30 fps with spectral time-pitch audio
  "$bin" generate --fps 240 --duration 4 --size 1280x720 -o out/demo-240fps.mp4 --overwrite
  "$bin" export out/demo-240fps.mp4 -o out/demo-slomo-30fps.mp4 --rate 0.5 --pitch spectral --overwrite
  "$bin" probe out/demo-slomo-30fps.mp4
  echo "demo: result in $(pwd)/out/demo-slomo-30fps.mp4 (source: out/demo-240fps.mp4)"
}

test() {
  deps test
  layers
  build_without_warnings --build-tests
  swift build --product slomo-flow        # libslomo-flow.so, which --frame-blend flow loads
  swift build --product generate-manual   # ManualAndCompletionTests compares Docs/man/slomo.1 with what it writes
  # the real-driver suites on their own, after the rest: their emulated VMs are timed checks (a
  # capture's start, its drops, sound placed on the video clock) and must not share the two cores
  # with a few hundred CLI tests
  lab_readers                            # pims (PyPI), the Cine reader ConvertCineTests reads with
  swift test --skip-build --skip Vivid
  scripts/serve-tests.sh                 # slomo serve: the API, its refusals, the page in chromium
  swift test --skip-build --filter Vivid
  slurm
  k8s
  scripts/fuzz.sh 10
  mutate 300 1
}

# The man page, Docs/man/slomo.1, from every command's --help (swift-argument-parser's generate-manual;
# ManualAndCompletionTests fails when it is out of date).
man() {
  swift build --product slomo
  swift build --product generate-manual
  mkdir -p Docs/man
  .build/debug/generate-manual .build/debug/slomo --date "$(date +%Y-%m-%d)" --output-directory Docs/man
  python3 scripts/man-finish.py Docs/man/slomo.1 README.md   # literal examples, EXAMPLES, EXIT STATUS, no hyphenation
  echo "man: Docs/man/slomo.1 (read it with: man Docs/man/slomo.1)"
}

# lab-readers: the PyPI readers ConvertCineTests, ConvertMRAWTests and ConvertPNGTests use (pims' Cine reader, pyMRAW, Pillow), in a venv of their own
# (~/.cache/slomo/lab-readers), made by the test command; without it those checks print SKIPPED.
lab_readers() {
  local venv=${XDG_CACHE_HOME:-$HOME/.cache}/slomo/lab-readers
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check pims==0.7 pyMRAW==0.33.0 pillow==13.0.0
  echo "lab-readers: $venv"
}

# Mutated media (Docs/Reliability.md): slomo built with AddressSanitizer into .build-asan.
mutate() {
  swift build --sanitize=address --build-path .build-asan --product slomo 2>&1 | grep -vE 'ld.gold: warning|^\[' || true
  [ -x .build-asan/debug/slomo ] || { echo "mutate: the AddressSanitizer build failed" >&2; exit 1; }
  python3 scripts/mutate-media.py --bin .build-asan/debug/slomo --runs "${1:-300}" --seed "${2:-1}" --work .build-asan/mutate --quiet
}

# The suites whose code runs threads (capture's reader/writer and trigger threads, batch's child
# readers, play's command reader, the render-ahead audio worker), built with ThreadSanitizer into
# .build-tsan. Each report goes to .build-tsan/reports/tsan.PID (children included); any is a failure.
TSAN_SUITES="CaptureTests|CaptureCLITests|TriggerCaptureTests|MultiCaptureTests|LosslessLayoutTests|BatchTests|BatchJobTests|PlayTests|PlayControlTests|PlayAudioSwitchTests|AVSyncTests|ExportRetimeTests|StreamingFakeTests|FakeDriverTests"
# serve (its Swift suites, then the pytest suite against the ThreadSanitizer slomo), GenICam (the
# Aravis fake camera on loopback in a namespace), the triggers (network, GPIO, outputs) and
# optical flow (libslomo-flow's worker threads)
TSAN_SUITES+="|SlomoServeTests|AccessTests|RigMachineTests|RigReadoutTests|GenICamCLITests|GenICamModeTests|GenICamSetupPlanTests|SlomoAravisTests"
TSAN_SUITES+="|NetworkTriggerTests|TriggerOutputTests|TriggerFeedbackTests|GPIOTriggerSpecTests|FlowCLITests|FlowInterpolationTests"
tsan() {
  swift build --build-tests --sanitize=thread --build-path .build-tsan 2>&1 | grep -vE '^\[' || true
  swift build --sanitize=thread --build-path .build-tsan --product slomo-flow 2>&1 | grep -vE '^\[' || true
  rm -rf .build-tsan/reports && mkdir -p .build-tsan/reports
  local rc=0 serve=0 start=$SECONDS
  export TSAN_OPTIONS="log_path=$PWD/.build-tsan/reports/tsan"
  SLOMO_SKIP_VIVID=1 swift test --skip-build --sanitize=thread --build-path .build-tsan --filter "$TSAN_SUITES" || rc=$?
  SLOMO_BIN=$PWD/.build-tsan/debug/slomo scripts/serve-tests.sh || serve=$?
  unset TSAN_OPTIONS
  local reports; reports=$(cat .build-tsan/reports/tsan.* 2>/dev/null | grep -c '^SUMMARY: ThreadSanitizer' || true)
  echo "tsan: suites ${TSAN_SUITES//|/, } and Tests/serve; test exit $rc, serve exit $serve; $reports ThreadSanitizer reports; $((SECONDS - start)) s after the build"
  [ "$rc" = 0 ] && [ "$serve" = 0 ] && [ "$reports" = 0 ]
}

# Batch beyond one machine (Docs/Batch.md): the Slurm array sample on a real cluster started and
# stopped by the script (needs root for the daemons; elsewhere it says it is skipped), and the
# Kubernetes sample validated against the API schema.
slurm() {
  if [ "$(id -u)" != 0 ]; then echo "slurm: SKIPPED (the one-node cluster needs root)" >&2; return 0; fi
  [ -x .build/debug/slomo ] || swift build --product slomo
  SLOMO=.build/debug/slomo scripts/slurm-check.sh
}

k8s() {
  scripts/k8s-validate.sh
}

case "${1:-}" in
  deps) shift; deps "$@" ;;
  demo) demo ;;
  test) test ;;
  layers) layers ;;
  format) format ;;
  man) deps; man ;;
  lab-readers) lab_readers ;;
  slurm) deps test; slurm ;;
  k8s) deps test; k8s ;;
  fuzz) shift; scripts/fuzz.sh "$@" ;;
  mutate) shift; deps test; mutate "$@" ;;
  tsan) deps test; tsan ;;
  package) shift; deps package; scripts/package-deb.sh "$@" ;;
  *) echo "usage: scripts/dev.sh deps [build|test|bench|package]|demo|test|layers|slurm|k8s|fuzz [SECONDS]|mutate [RUNS] [SEED]|tsan|package [--check-install]|man|lab-readers|format" >&2; exit 64 ;;
esac
