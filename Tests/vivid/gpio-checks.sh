#!/usr/bin/env bash
# Runs INSIDE the vivid VM with --gpio-sim (the kernel's simulated GPIO chip, Tests/vm/gpio-sim.sh):
# the GPIO trigger against edges driven through gpio-sim's `pull` attribute at known CLOCK_MONOTONIC
# times. Prints "CHECK name value" lines that Tests/SlomoV4L2Tests/VividGPIOTests.swift parses.
. "$(dirname "$0")/common.sh"
v4l2-ctl -d $D -i 0 >/dev/null

# a chip of 4 lines, line 0 named trigger-in
c=/sys/kernel/config/gpio-sim/slomo
mkdir -p $c/bank0/line0 && echo 4 > $c/bank0/num_lines && echo trigger-in > $c/bank0/line0/name && echo 1 > $c/live
dev=$(cat $c/dev_name); chip=$(cat $c/bank0/chip_name)
say chip "$dev $chip $(ls /dev/gpiochip* | tr '\n' ' ')"
pull=/sys/devices/platform/$dev/$chip/sim_gpio0/pull

# --- three rising edges, each bracketed by CLOCK_MONOTONIC read just before and after the write; each
# shot raises line 2 for 50 ms (--trigger-out), read back from the simulated line's value by a poller
$S capture $D --trigger gpio:$chip:0 --trigger-out gpio:$chip:2,pulse=50 --shots 3 --pre-trigger 0.3 --post-trigger 0.2 \
  --codec ffv1 -o "$OUT/g%d.mkv" --overwrite --json > $OUT/g.json 2> $OUT/g.err & pid=$!
wait_armed $OUT/g.err 300
# the output line's changes: "V value from-ns to-ns": the change came after the start of the
# last read of the old value (a read took its value somewhere between its start and its end: the
# busy emulated VM once held a read 10 ms, so its end was no bound) and by the end of the first read
# of the new one
python3 - /sys/devices/platform/$dev/$chip/sim_gpio2/value > $OUT/out-line.txt <<'PY' & poller=$!
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
now = lambda: time.clock_gettime_ns(time.CLOCK_MONOTONIC)
started = now()
last, end = os.pread(fd, 8, 0).strip(), now() + 12 * 10**9
while now() < end:
    s = now(); v = os.pread(fd, 8, 0).strip(); t = now()
    if v != last: print("V", v.decode(), started, t, flush=True); last = v
    started = s
    time.sleep(0.0002)
PY
python3 - "$pull" > $OUT/edges.txt <<'PY'
import sys, time
path = sys.argv[1]
time.sleep(0.5)
for i in range(3):
    with open(path, "w") as f:
        t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC); f.write("pull-up"); f.flush(); t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    print("E", t0, t1, flush=True)
    time.sleep(1.0)
    with open(path, "w") as f: f.write("pull-down")
    time.sleep(0.3)
PY
wait $pid; say gpio_rc $?
kill $poller 2>/dev/null; wait $poller 2>/dev/null
# rises falls raised-inside-its-read-window width-ms(min max) after-event-ms(max)
PYTHONPATH=$HERE python3 - $OUT/out-line.txt $OUT/g.json <<'PY'
import json, sys
from fractions import Fraction
ch = [l.split() for l in open(sys.argv[1]) if l.startswith("V")]
rises = [(int(a), int(b)) for _, v, a, b in ch if v == "1"]
falls = [(int(a), int(b)) for _, v, a, b in ch if v == "0"]
outs = [s.get("triggerOut") for s in json.load(open(sys.argv[2])).get("shots") or []]
inside, after = 0, []
for (a, b), o in zip(rises, outs):
    if not o: continue
    t = Fraction(o["raisedTime"]["numerator"], o["raisedTime"]["denominator"])
    # the value changed between the reads a and b; the stamp is taken just after the change (within
    # 10 ms: the emulated VM, busy, once preempted slomo between the write and its stamp for over 2 ms)
    if Fraction(a, 10**9) <= t <= Fraction(b, 10**9) + Fraction(10, 1000): inside += 1
    after.append(o["afterEventMs"])
# the pulse as the reads bound it: the rise came in (a, b], the fall in (c, d], so it lasted at least
# c − b and at most d − a (a busy machine widens the windows: their middles once said 44.9 ms)
shortest = [(d - a) / 1e6 for (a, b), (c, d) in zip(rises, falls)]     # the longest each can have been
longest = [(c - b) / 1e6 for (a, b), (c, d) in zip(rises, falls)]      # the shortest each can have been
# rises falls inside (the least any pulse can have lasted: its longest bound) (the most: its shortest bound) max-after-event-ms
print("CHECK gpio_out", len(rises), len(falls), inside, "%.1f %.1f" % (min(shortest or [0]), max(longest or [0])), "%.3f" % max(after or [0]))
PY
PYTHONPATH=$HERE python3 - $OUT/edges.txt $OUT/g.json <<'PY'
import json, sys
from fractions import Fraction
from recording import is_frame_of
edges = [(int(l.split()[1]), int(l.split()[2])) for l in open(sys.argv[1]) if l.startswith("E")]
shots = json.load(open(sys.argv[2])).get("shots") or []
inside, exact, lat = 0, 0, []
for (t0, t1), s in zip(edges, shots):
    e = Fraction(s["triggerTime"]["numerator"], s["triggerTime"]["denominator"])
    # the event to the microsecond (frames are stamped so): inside [t0, t1] within that rounding
    if Fraction(t0, 10**9) - Fraction(1, 10**6) <= e <= Fraction(t1, 10**9): inside += 1
    lat.append(s["latencyMs"])
    if is_frame_of(s, e): exact += 1
print("CHECK gpio_edges", len(edges), len(shots), inside, exact, "%.3f" % max((t1 - t0) / 1e6 for t0, t1 in edges))
PY

# --- the line by its name and the chip by its label; the falling edge
label=$(python3 -c 'import fcntl,struct,sys; fd=open("/dev/'$chip'","rb"); b=bytearray(68); fcntl.ioctl(fd, 0x8044b401, b); print(b[32:64].split(b"\0")[0].decode())')
echo pull-up > $pull
$S capture $D --trigger "gpio:$label:trigger-in:falling" --pre-trigger 0.2 --post-trigger 0.1 --codec ffv1 -o $OUT/fall.mkv \
  --overwrite --json > $OUT/fall.json 2> $OUT/fall.err & pid=$!
wait_armed $OUT/fall.err 300
sleep 0.3; echo pull-down > $pull
wait $pid; say gpio_named "$? $label $(python3 -c 'import json; s=json.load(open("'$OUT'/fall.json"))["shots"][0]; print(s["trigger"], s["complete"])')"

# --- slomo serve with the GPIO line beside its API (line 3), driven through it on the guest's loopback
ip link set lo up
python3 $HERE/serve-gpio-checks.py $D $OUT $chip 3 /sys/devices/platform/$dev/$chip/sim_gpio3/pull 2>$OUT/serve-gpio.err

# --- bad input: no such chip, no such line, a line another program holds; nothing written
$S capture $D --trigger gpio:nochip:0 -o $OUT/bad1.mkv 2>$OUT/bad1.err; say gpio_nochip "$? $(cat $OUT/bad1.err | tail -1) $(ls $OUT/bad1.mkv 2>&1 | grep -c 'No such')"
$S capture $D --trigger gpio:$chip:9 -o $OUT/bad2.mkv 2>$OUT/bad2.err; say gpio_noline "$? $(cat $OUT/bad2.err | tail -1) $(ls $OUT/bad2.mkv 2>&1 | grep -c 'No such')"
# the holder runs until it is interrupted (a 6 s duration once ran out in a slow emulated VM before the
# second capture asked for the line, which then got it and waited for an edge); the second is bounded
$S capture --source synthetic:fps=30,size=160x96 --trigger gpio:$chip:1 --duration 120 --pre-trigger 0.1 --post-trigger 0.1 -o $OUT/hold.mkv --overwrite 2>$OUT/hold.err & pid=$!
wait_armed $OUT/hold.err 300
$S capture $D --trigger gpio:$chip:1 --duration 5 -o $OUT/bad3.mkv 2>$OUT/bad3.err; say gpio_busy "$? $(cat $OUT/bad3.err | tail -1) $(ls $OUT/bad3.mkv 2>&1 | grep -c 'No such')"
kill -INT $pid; wait $pid
echo 0 > $c/live
say done 1
