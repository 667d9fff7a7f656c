#!/usr/bin/env bash
# Builds gpio-sim for the test machine's kernel and prints the module's path.
#   Tests/vm/gpio-sim.sh KVER CACHE_DIR
# Debian's kernels ship neither gpio-sim nor gpio-mockup, so the kernel's own simulated GPIO chip
# is built out of tree: drivers/gpio/gpio-sim.c (with the gpiolib.h it includes) and
# kernel/irq/irq_sim.c from Debian's linux-source package of the same kernel line, against
# linux-headers-KVER. irq_sim.c goes into the same module (Debian's kernel does not export
# irq_domain_create_sim), with its one call of irq_to_desc (not exported in 6.1) replaced by the
# exported generic_handle_irq_safe. Made once and kept in CACHE_DIR/KVER/.
set -euo pipefail
kver=${1:?KVER} cache=${2:?CACHE_DIR}
out=$cache/$kver/gpio-sim
[ -s "$out/gpio_sim_slomo.ko" ] && { echo "$out/gpio_sim_slomo.ko"; exit 0; }
say() { echo "gpio-sim: $*" >&2; }
fail() { echo "gpio-sim: $*" >&2; exit 69; }
headers=/usr/src/linux-headers-$kver
if [ ! -d "$headers" ]; then
    say "installing linux-headers-$kver"
    { apt-get install -y -qq "linux-headers-$kver" >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1; apt-get install -y -qq "linux-headers-$kver" >/dev/null 2>&1; }; } \
      || fail "apt-get install linux-headers-$kver failed"
fi
line=$(echo "$kver" | cut -d. -f1,2)                     # 6.1
mkdir -p "$cache/debs"
deb=$(ls "$cache/debs/linux-source-${line}_"*.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
    say "downloading linux-source-$line"
    (cd "$cache/debs" && apt-get download -qq "linux-source-$line" >/dev/null 2>&1) || fail "apt-get download linux-source-$line failed"
    deb=$(ls "$cache/debs/linux-source-${line}_"*.deb | head -1)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say "unpacking three files of $(basename "$deb")"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" "./usr/src/linux-source-$line.tar.xz"
tar -xJf "$work/usr/src/linux-source-$line.tar.xz" -C "$work" \
    "linux-source-$line/drivers/gpio/gpio-sim.c" "linux-source-$line/drivers/gpio/gpiolib.h" "linux-source-$line/kernel/irq/irq_sim.c"
src=$work/linux-source-$line
mkdir -p "$work/m"
cp "$src/drivers/gpio/gpio-sim.c" "$work/m/gpio-sim-main.c"
cp "$src/drivers/gpio/gpiolib.h" "$work/m/gpiolib.h"
cp "$src/kernel/irq/irq_sim.c" "$work/m/irq_sim.c"
sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq_safe(irqnum);/' "$work/m/irq_sim.c"
grep -q 'generic_handle_irq_safe(irqnum)' "$work/m/irq_sim.c" || fail "irq_sim.c of linux-source-$line is not the one this script knows (irq_to_desc call not found)"
cat > "$work/m/Kbuild" <<'KB'
obj-m := gpio_sim_slomo.o
gpio_sim_slomo-y := gpio-sim-main.o irq_sim.o
KB
say "building against linux-headers-$kver"
make -s -C "$headers" M="$work/m" modules >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; fail "the module did not build"; }
mkdir -p "$out"
cp "$work/m/gpio_sim_slomo.ko" "$out/gpio_sim_slomo.ko"
echo "$out/gpio_sim_slomo.ko"
