#!/usr/bin/env bash
# Long runs (Docs/Reliability.md): memory stays flat however long the input or the capture.
#   [CONTAINER=mp4|mkv] scripts/long-run.sh [MINUTES] [CAPTURE_SECONDS]
# 1. A calibration clip of MINUTES (default 60) at 640x360, 30 fps, with its click track, and one of
#    1 minute; each exported (30 fps, varispeed) and retimed at 1/2. For every run: peak RSS and RSS
#    at 10/50/90 % of the run (sampled from /proc five times a second), exact packet counts
#    (ffprobe) and sample counts (decoded by the ffmpeg CLI), and the A/V offset of the last click:
#    where the click's energy centre is in
#    the output audio against where the map puts that source instant (2 × its source time), which
#    is where the video shows it.
# 2. A capture of CAPTURE_SECONDS (default 600) from the synthetic 240 fps camera (MJPEG, 320x180,
#    stored as it arrives): RSS over the run and the frames dropped.
# CONTAINER (default mp4) is the input's and outputs' container: MP4 keeps an index entry per sample
# in memory (FFmpeg's demuxer for the input, its muxer for the output, until the moov is written),
# Matroska only its cues, so mkv shows slomo's own memory (the sound then FLAC, kept FLAC).
# Needs a release build (swift build -c release --product slomo) or SLOMO=path; writes in OUT_DIR
# (default .build-long). Prints one `long:` line per run and exits 1 when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
capture_seconds=${2:-600}
slomo=${SLOMO:-.build/release/slomo}
out=${OUT_DIR:-.build-long}
mkdir -p "$out"
failed=0
ext=${CONTAINER:-mp4}

# rss_run NAME CMD...: runs CMD, samples VmRSS every 0.2 s into $out/NAME.rss (seconds kB), prints
# "peak p10 p50 p90" in MiB.
rss_run() {
  local name=$1; shift
  "$@" >"$out/$name.stdout" 2>"$out/$name.stderr" &
  local pid=$! t=0
  : >"$out/$name.rss"
  while kill -0 "$pid" 2>/dev/null; do      # five samples a second (a 1-minute retime takes one)
    awk -v t="$t" '/^VmRSS:/ { printf "%.1f %s\n", t / 5, $2 }' "/proc/$pid/status" >>"$out/$name.rss" 2>/dev/null || true
    sleep 0.2; t=$((t + 1))
  done
  wait "$pid" || { echo "long: $name FAILED (exit $?): $(tail -1 "$out/$name.stderr")"; return 1; }
  awk '{ r[NR] = $2; if ($2 > p) p = $2 }
       END { n = NR; if (n == 0) { print "0 0 0 0"; exit }
             printf "%.1f %.1f %.1f %.1f\n", p/1024, r[int(n*0.1)+1]/1024, r[int(n*0.5)+1]/1024, r[int(n*0.9)+1]/1024 }' "$out/$name.rss"
}

# last_click_offset FILE SOURCE_SECONDS: the last click at or before SOURCE_SECONDS - 0.5 (clicks every
# 1/4 s; a Hann burst whose energy centre is 1 ms after its onset), expected at 2 × (t + 0.001) s in
# the output; prints the offset in ms (audio − expected).
last_click_offset() {
  local file=$1 seconds=$2
  python3 - "$file" "$seconds" <<'EOF'
import subprocess, struct, sys
path, seconds = sys.argv[1], float(sys.argv[2])
k = int((seconds - 0.5) * 4)                    # the last whole click well inside the source
expected = 2 * (k / 4 + 0.001)
start = expected - 0.05
raw = subprocess.run(["ffmpeg", "-v", "error", "-ss", f"{start:.6f}", "-i", path, "-t", "0.1", "-map", "0:a:0",
                      "-ac", "1", "-f", "f32le", "-"], check=True, stdout=subprocess.PIPE).stdout
x = struct.unpack(f"<{len(raw)//4}f", raw)
sr = 48000
# -ss on audio is sample exact after decoding; the squared second difference passes the click and
# stops the 1 kHz tone (as Tests/SlomoKitTests/AVSyncTests.swift measures it)
s = w = 0.0
for i in range(1, len(x) - 1):
    d = x[i + 1] - 2 * x[i] + x[i - 1]
    s += d * d; w += d * d * i
centre = start + (w / s) / sr
print(f"{(centre - expected) * 1000:.3f} {k / 4:.2f}")
EOF
}

count() {   # count FILE STREAM ENTRY: ffprobe's exact count (packets or samples)
  ffprobe -v error -select_streams "$2" -count_packets -show_entries "stream=$3" -of csv=p=0 "$1" | head -1
}

check() {   # check NAME CONDITION-DESCRIPTION ACTUAL EXPECTED
  if [ "$3" != "$4" ]; then echo "long: $1: $2 is $3, expected $4"; failed=1; fi
}

for m in 1 "$minutes"; do
  clip="$out/cal-${m}min.$ext"
  secs=$((m * 60))
  if [ ! -s "$clip" ]; then
    if [ "$ext" != mp4 ] && [ -s "$out/cal-${m}min.mp4" ]; then
      # the same clip, remuxed, its sound as FLAC: Matroska cannot say how many samples AAC's
      # encoder delay adds (MP4's edit list does), so AAC in MKV plays 21 ms late in any reader
      ffmpeg -v error -y -i "$out/cal-${m}min.mp4" -c:v copy -c:a flac "$clip"
    else
      "$slomo" generate --fps 30 --duration "$secs" --size 640x360 --preset ultrafast -o "$clip" --overwrite >/dev/null
    fi
  fi
  for cmd in export retime; do
    o="$out/${cmd}-${m}min.$ext"
    if [ "$cmd" = export ]; then
      args=(export "$clip" -o "$o" --rate 1/2 --fps 30 --pitch varispeed --preset ultrafast --overwrite --json)
    else
      args=(retime "$clip" -o "$o" --rate 1/2 --pitch varispeed --overwrite --json)
    fi
    start=$(date +%s)
    read -r peak p10 p50 p90 < <(rss_run "${cmd}-${m}min-$ext" "$slomo" "${args[@]}") || { failed=1; continue; }
    took=$(( $(date +%s) - start ))
    frames=$(count "$o" v:0 nb_read_packets)
    want_frames=$([ "$cmd" = export ] && echo $((secs * 2 * 30)) || echo $((secs * 30)))
    # audio samples: decoded and counted (Matroska's packet times are milliseconds)
    samples=$(( $(ffmpeg -v error -i "$o" -map 0:a:0 -ac 1 -f s16le - | wc -c) / 2 ))
    read -r offset click < <(last_click_offset "$o" "$secs")
    echo "long: $cmd ${m} min $ext at 1/2: ${took} s, peak RSS ${peak} MiB (10/50/90 %: ${p10}/${p50}/${p90}), video ${frames} packets (expected ${want_frames}), audio ${samples} samples (expected $((secs * 2 * 48000))), last click (source ${click} s) at ${offset} ms"
    check "$cmd ${m} min" "video packet count" "$frames" "$want_frames"
    check "$cmd ${m} min" "audio sample count" "$samples" $((secs * 2 * 48000))
    awk -v o="$offset" 'BEGIN { exit !(o < 1 && o > -1) }' || { echo "long: $cmd ${m} min: last click ${offset} ms off"; failed=1; }
    eval "peak_${cmd}_${m}=$peak"
  done
done
for cmd in export retime; do
  short=$(eval echo "\$peak_${cmd}_1"); long=$(eval echo "\$peak_${cmd}_${minutes}")
  awk -v s="$short" -v l="$long" -v c="$cmd" -v m="$minutes" -v e="$ext" 'BEGIN { r = l / s; printf "long: %s %s peak RSS %s min / 1 min = %.3f\n", c, e, m, r; exit !(r <= 1.10) }' \
    || { echo "long: $cmd $ext: peak RSS grew more than 10 % with the input's length"; failed=1; }
done

if [ "$capture_seconds" -gt 0 ]; then
  cap="$out/capture-${capture_seconds}s.mp4"
  read -r peak p10 p50 p90 < <(rss_run capture "$slomo" capture --source "synthetic:fps=240,size=320x180,format=mjpeg,preload=240" \
    --duration "$capture_seconds" -o "$cap" --overwrite --json) || failed=1
  dropped=$(jq -r '.droppedByDriver + .droppedBySlomo' "$out/capture.stdout" 2>/dev/null | head -1)
  written=$(jq -r '.framesWritten' "$out/capture.stdout" 2>/dev/null | head -1)
  stored=$(count "$cap" v:0 nb_read_packets)
  echo "long: capture ${capture_seconds} s at 240 fps: ${written} frames written (${stored} in the file), ${dropped} dropped, peak RSS ${peak} MiB (10/50/90 %: ${p10}/${p50}/${p90})"
  check capture "frames written" "$written" $((capture_seconds * 240))
  check capture "frames in the file" "$stored" $((capture_seconds * 240))
  check capture "frames dropped" "$dropped" 0
  awk -v a="$p10" -v b="$p90" 'BEGIN { exit !(b <= a * 1.10) }' || { echo "long: capture: RSS grew from ${p10} to ${p90} MiB"; failed=1; }
fi
exit $failed
