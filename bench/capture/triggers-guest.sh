#!/usr/bin/env bash
# Runs inside the VM (see triggers.sh).
set -u
S=${SLOMO_BIN:?}
N=${EVENTS:?}
H=Tests/vivid
T=${T:?}
CC=$(command -v cc || command -v clang || echo /opt/swift/usr/bin/clang)
$CC -O2 -o $T/clicks $H/clicks.c -lasound
v4l2-ctl -d /dev/video0 -i 0 >/dev/null
c=/sys/kernel/config/gpio-sim/bench
mkdir -p $c/bank0/line0 && echo 2 > $c/bank0/num_lines && echo 1 > $c/live
chip=$(cat $c/bank0/chip_name); pull=/sys/devices/platform/$(cat $c/dev_name)/$chip/sim_gpio0/pull
wait_armed() { for i in $(seq 300); do grep -q '^slomo: armed' "$1" 2>/dev/null && return; sleep 0.1; done; }
# N rising edges about 0.6 s apart (a random part of a frame more or less, so they fall all through
# the frame period), each bracketed by CLOCK_MONOTONIC read just before and after its write
edges() {
  python3 - "$pull" "$N" <<'PY'
import random, sys, time
path, n = sys.argv[1], int(sys.argv[2])
random.seed(7)
time.sleep(0.5)
for i in range(n):
    with open(path, "w") as f:
        t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC); f.write("pull-up"); f.flush(); t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    print("E", t0, t1, flush=True)
    time.sleep(0.3)
    with open(path, "w") as f: f.write("pull-down")
    time.sleep(0.3 + random.uniform(0, 1 / 60))
PY
}
# run in the background (its PID is slomo's: exec) or in ( ) in the foreground
capture() { exec $S capture /dev/video0 --shots $N --duration $((N + 10)) --pre-trigger 0.1 --post-trigger 0.1 --codec ffv1 -o "$T/$1-%d.mkv" --overwrite --json ${EXTRA:-} "${@:2}"; }
# one row per way, each idle and loaded
row() {
  local name=$1 load=$2 hogs=""
  if [ "$load" = loaded ]; then sha256sum /dev/zero & hogs="$!"; sha256sum /dev/zero & hogs="$hogs $!"; fi
  case $name in
  gpio)
    capture $name-$load --trigger gpio:$chip:0 --trigger-holdoff 0.1 > $T/$name-$load.json 2> $T/$name-$load.err & pid=$!
    wait_armed $T/$name-$load.err; edges > $T/$name-$load.ref; wait $pid ;;
  gpiomon-signal)
    capture $name-$load --trigger signal > $T/$name-$load.json 2> $T/$name-$load.err & pid=$!
    wait_armed $T/$name-$load.err
    gpiomon -b -r -n $N $chip 0 | while read -r _; do kill -USR1 $pid; done & mon=$!
    sleep 0.5; edges > $T/$name-$load.ref; wait $pid; kill $mon 2>/dev/null ;;
  gpiomon-stdin)
    # the pipe in the machine's own /tmp (the shared folder takes no fifo)
    fifo=/tmp/trigbench-fifo-$load; rm -f $fifo; mkfifo $fifo
    capture $name-$load --trigger stdin < $fifo > $T/$name-$load.json 2> $T/$name-$load.err & pid=$!
    gpiomon -b -r -n $N $chip 0 | sed -u 's/.*/trigger/' > $fifo & mon=$!
    wait_armed $T/$name-$load.err; sleep 0.5; edges > $T/$name-$load.ref; wait $pid; kill $mon 2>/dev/null ;;
  sound)
    $T/clicks hw:Loopback,0,0 600 617 > $T/$name-$load.ref & play=$!
    ( capture $name-$load --audio hw:Loopback,1,0 --trigger sound > $T/$name-$load.json 2> $T/$name-$load.err )
    kill -TERM $play; wait $play ;;
  arecord-signal)
    capture $name-$load --trigger signal > $T/$name-$load.json 2> $T/$name-$load.err & pid=$!
    wait_armed $T/$name-$load.err
    arecord -q -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 2 -t raw --buffer-time=20000 --period-time=5000 \
      | python3 bench/capture/onset-signal.py $pid & rec=$!
    sleep 0.3
    $T/clicks hw:Loopback,0,0 600 617 > $T/$name-$load.ref & play=$!
    wait $pid; kill -TERM $play; wait $play; pkill arecord; wait $rec 2>/dev/null ;;
  esac
  [ -n "$hogs" ] && kill $hogs
  echo "$name $load" >> $T/rows
}
# the rows are scored on the host afterwards (triggers.sh): ffprobe in the emulated machine is slow
: > $T/rows
for way in ${WAYS:-gpio gpiomon-signal gpiomon-stdin sound arecord-signal}; do
  for load in ${LOADS:-idle loaded}; do row $way $load; done
done
echo 0 > $c/live
