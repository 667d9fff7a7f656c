#!/usr/bin/env bash
# Tests/vm/run.sh: slomo's real-driver test machine. Boots Debian's own kernel in QEMU with the
# kernel's test drivers (vivid cameras, the ALSA loopback card, any module asked for), runs ONE
# command in it on the host's own file system and powers off. Documentation: Tests/vm/README.md.
#
#   Tests/vm/run.sh [options] -- COMMAND [ARG...]
#
# Exit status: COMMAND's; 124 when the machine ran past --timeout; 125 when the machine itself
# failed (a line saying why, then the tail of the guest's console).
set -euo pipefail

me=slomo-vm
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
fail() { echo "$me: $*" >&2; exit 125; }
usage() {
    cat <<'EOF'
usage: Tests/vm/run.sh [options] -- COMMAND [ARG...]

  --vivid OPTS     vivid's module parameters (default "n_devs=1 node_types=0x1")
  --no-vivid       no camera
  --alsa           the ALSA loopback card too (hw:Loopback,0,N plays into hw:Loopback,1,N)
  --alsa-opts OPTS its module parameters
  --modules LIST   more of the kernel's modules to load (space-separated)
  --gpio-sim       the kernel's simulated GPIO chip (gpio-sim, built for the guest's kernel once by
                   Tests/vm/gpio-sim.sh), configfs mounted at /sys/kernel/config
  --rw DIR         share DIR writable at its own path, beside the current directory (repeatable)
  --fresh-tmp      an empty /tmp (default: the host's, with writes kept in the guest's RAM)
  --timeout SECS   power off after SECS (default 900)
  --mem SIZE       guest memory (default 2G)
  --cpus N         guest processors (default: the host's, at most 4)
  --console        print the guest's kernel log afterwards
  -v               say what it does and how long it took
EOF
}

vivid=1 vivid_opts="n_devs=1 node_types=0x1" alsa="" alsa_opts="" modules="" fresh_tmp=0 gpio_sim=""
timeout_s=900 mem=2G cpus="" console=0 verbose=0 rw=()
while [ $# -gt 0 ]; do
    case $1 in
        --vivid) vivid=1; vivid_opts=${2?--vivid needs its options}; shift 2 ;;
        --no-vivid) vivid=""; shift ;;
        --alsa) alsa=1; shift ;;
        --alsa-opts) alsa=1; alsa_opts=${2?--alsa-opts needs its options}; shift 2 ;;
        --modules) modules=${2?--modules needs a list}; shift 2 ;;
        --gpio-sim) gpio_sim=1; shift ;;
        --rw) rw+=("${2?--rw needs a directory}"); shift 2 ;;
        --fresh-tmp) fresh_tmp=1; shift ;;
        --timeout) timeout_s=${2?}; shift 2 ;;
        --mem) mem=${2?}; shift 2 ;;
        --cpus) cpus=${2?}; shift 2 ;;
        --console) console=1; shift ;;
        -v) verbose=1; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; break ;;
        *) usage >&2; fail "unknown option $1" ;;
    esac
done
[ $# -gt 0 ] || { usage >&2; fail "no command given"; }
[ "$(uname -m)" = x86_64 ] || fail "runs on x86_64 hosts only"
say() { if [ $verbose = 1 ]; then echo "$me: $*" >&2; fi; }
[ -n "$cpus" ] || cpus=$(( $(nproc) > 4 ? 4 : $(nproc) ))
export PATH=$PATH:/usr/sbin:/sbin
for tool in qemu-system-x86_64 depmod modprobe apt-get dpkg-deb; do
    command -v $tool >/dev/null || fail "$tool is missing: scripts/dev.sh deps installs what the machine needs"
done

# --- the guest's kernel and initramfs, made once and kept in the cache -------------------------
cache=${SLOMO_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slomo-vm}
mkdir -p "$cache/debs"
exec 8> "$cache/lock"
flock 8
fetch() {   # fetch PACKAGE: its .deb in the cache (downloaded, never installed)
    local deb
    deb=$(ls "$cache/debs/$1"_*.deb 2>/dev/null | head -1 || true)
    if [ -z "$deb" ]; then
        say "downloading $1"
        (cd "$cache/debs" && apt-get download -qq "$1" >/dev/null 2>&1) \
            || { apt-get update -qq >/dev/null 2>&1 || true; (cd "$cache/debs" && apt-get download -qq "$1" >/dev/null 2>&1); } \
            || fail "apt-get download $1 failed"
        deb=$(ls "$cache/debs/$1"_*.deb | head -1)
    fi
    echo "$deb"
}
# Debian's generic kernel (its -cloud flavour has neither vivid nor 9p), the version first chosen
# by the metapackage and kept from then on (SLOMO_VM_KERNEL names another)
kpkg=${SLOMO_VM_KERNEL:-$(cat "$cache/kernel" 2>/dev/null || true)}
if [ -z "$kpkg" ]; then
    which_kernel() { apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1; }
    kpkg=$(which_kernel)
    if [ -z "$kpkg" ]; then apt-get update -qq >/dev/null 2>&1 || true; kpkg=$(which_kernel); fi
    [ -n "$kpkg" ] || fail "cannot tell which kernel linux-image-amd64 is (apt-get update failed?)"
    echo "$kpkg" > "$cache/kernel"
fi
kver=${kpkg#linux-image-}
boot_modules="virtio_pci 9pnet_virtio 9p overlay"
driver_modules="vivid snd-aloop snd-dummy configfs ${SLOMO_VM_MODULES:-}"
key=$( { echo "$kver $boot_modules $driver_modules"; cat "$here/init"; } | sha256sum | cut -c1-16)
kdir=$cache/$kver
initrd=$kdir/initrd-$key.cpio.gz
if [ ! -s "$initrd" ] || [ ! -s "$kdir/vmlinuz" ]; then
    say "making the guest: $kpkg"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    dpkg-deb -x "$(fetch "$kpkg")" "$work/kernel"
    dpkg-deb -x "$(fetch busybox-static)" "$work/busybox"
    mkdir -p "$kdir"
    cp "$work/kernel/boot/vmlinuz-$kver" "$kdir/vmlinuz"
    depmod -b "$work/kernel" "$kver"
    img=$work/initramfs
    mkdir -p "$img/bin" "$img/dev" "$img/proc" "$img/sys" "$img/lib/modules/$kver"
    cp "$work/busybox/bin/busybox" "$img/bin/busybox"
    cp "$here/init" "$img/init"
    chmod 755 "$img/init"
    # each module asked for with everything it needs, unpacked where the kernel ships it packed
    for m in $boot_modules $driver_modules; do
        modprobe -d "$work/kernel" -S "$kver" --show-depends "$m" || fail "$kpkg has no module $m"
    done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
        rel=${ko#"$work/kernel/lib/modules/$kver/"}
        mkdir -p "$img/lib/modules/$kver/$(dirname "$rel")"
        case $rel in
            *.xz) xz -dc "$ko" > "$img/lib/modules/$kver/${rel%.xz}" ;;
            *.zst) zstd -dcq "$ko" > "$img/lib/modules/$kver/${rel%.zst}" ;;
            *) cp "$ko" "$img/lib/modules/$kver/$rel" ;;
        esac
    done
    cp "$work/kernel/lib/modules/$kver"/modules.{builtin,builtin.modinfo,order} "$img/lib/modules/$kver/" 2>/dev/null || true
    depmod -b "$img" "$kver"
    (cd "$img" && find . | LC_ALL=C sort | "$work/busybox/bin/busybox" cpio -o -H newc 2>/dev/null) | gzip -1 > "$initrd.new"
    mv "$initrd.new" "$initrd"
    find "$kdir" -name 'initrd-*.cpio.gz' ! -name "${initrd##*/}" -delete
    rm -rf "$work"; trap - EXIT
fi
if [ -n "$gpio_sim" ]; then
    gpio_sim=$("$here/gpio-sim.sh" "$kver" "$cache") || fail "gpio-sim could not be built for $kver"
fi
flock -u 8

# --- the job: configuration, the command, the output files ------------------------------------
job=$(mktemp -d "${TMPDIR:-/tmp}/slomo-vm.XXXXXX")
qemu_pid="" tails=()
cleanup() {
    [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true
    for p in "${tails[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$job"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# writable: the current directory and each --rw directory, parents before children
shares=()
[ "$(pwd -P)" = / ] || shares+=("$(pwd -P)")
for d in "${rw[@]}"; do
    [ -d "$d" ] || fail "--rw $d: not a directory"
    shares+=("$(cd "$d" && pwd -P)")
done
mapfile -t shares < <(printf '%s\n' "${shares[@]}" | awk 'NF && !seen[$0]++ { print length($0) "\t" $0 }' | sort -n | cut -f2-)
{
    printf 'VIVID=%q VIVID_OPTS=%q ALSA=%q ALSA_OPTS=%q MODULES=%q FRESH_TMP=%q SHARES=%q GPIO_SIM=%q\n' \
        "$vivid" "$vivid_opts" "$alsa" "$alsa_opts" "$modules" "$fresh_tmp" "${#shares[@]}" "$gpio_sim"
    for i in "${!shares[@]}"; do printf 'SHARE_%d=%q\n' "$i" "${shares[$i]}"; done
} > "$job/config"
# the command, in the current directory, with the few variables it may need (and every SLOMO_*)
{
    echo '#!/bin/bash'
    for v in PATH HOME LANG LC_ALL TZ TMPDIR $(compgen -e | grep '^SLOMO_' || true); do
        [ -z "${!v+x}" ] || printf 'export %s=%q\n' "$v" "${!v}"
    done
    # the system's own programs first: a version manager's shim (pyenv's python3 is a shell script
    # that runs a dozen programs) costs 5 s a call over 9p, and the checks call python3 often
    printf 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:"$PATH"\n'
    printf 'cd %q || exit 125\n' "$(pwd -P)"
    printf 'exec'; printf ' %q' "$@"; echo
} > "$job/command"
: > "$job/stdout"; : > "$job/stderr"

# --- the machine ---------------------------------------------------------------------------------
# KVM only where the processor shows hardware virtualisation: a /dev/kvm without it (a software
# nested hypervisor) boots a stock kernel far slower than emulation does
accel=tcg
if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo && [ "${SLOMO_VM_ACCEL:-auto}" != tcg ]; then accel=kvm; fi
boot() {   # boot ACCEL: one run of the machine; the command's output is relayed as it comes
    local cpu=(-accel "tcg,thread=multi" -cpu max)
    [ "$1" = kvm ] && cpu=(-accel kvm -cpu host)
    local shares_9p=() i
    for i in "${!shares[@]}"; do
        shares_9p+=(-virtfs "local,path=${shares[$i]},mount_tag=share$i,security_model=none,multidevs=remap")
    done
    say "booting ($1, $cpus processors, $mem)"
    timeout -k 5 "$timeout_s" qemu-system-x86_64 -machine pc "${cpu[@]}" -smp "$cpus" -m "$mem" \
        -nodefaults -no-user-config -display none -no-reboot -monitor none \
        -serial "file:$job/console" -kernel "$kdir/vmlinuz" -initrd "$initrd" \
        -append "console=ttyS0 quiet panic=-1 mitigations=off tsc=reliable ${SLOMO_VM_KERNEL_ARGS:-}" \
        -virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$job,mount_tag=job,security_model=none" \
        "${shares_9p[@]}" > "$job/qemu.log" 2>&1 < /dev/null &
    qemu_pid=$!
    tail -c +1 -s 0.2 -f --pid=$qemu_pid "$job/stdout" & tails=($!)
    tail -c +1 -s 0.2 -f --pid=$qemu_pid "$job/stderr" >&2 & tails+=($!)
    set +e; wait $qemu_pid; qemu_rc=$?; set -e
    qemu_pid=""
    wait "${tails[@]}" 2>/dev/null || true
    tails=()
}
start=$SECONDS
boot $accel
if [ ! -s "$job/rc" ] && [ $accel = kvm ] && ! grep -qs '^mounted' "$job/timings"; then
    echo "$me: the machine did not boot with KVM (qemu: $qemu_rc); again with emulation" >&2
    : > "$job/stdout"; : > "$job/stderr"
    boot tcg
fi
say "done in $((SECONDS - start)) s; guest uptime at each step: $(cat "$job/timings" 2>/dev/null | tr '\n' ' ')"
[ $console = 0 ] || { echo "--- guest console ---" >&2; cat "$job/console" >&2; }
[ -s "$job/rc" ] && exit "$(cat "$job/rc")"
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
    echo "$me: the machine ran past --timeout $timeout_s s and was stopped" >&2; status=124
else
    echo "$me: the machine ended without the command's status (qemu: $qemu_rc)" >&2; status=125
fi
sed 's/^/  qemu: /' "$job/qemu.log" | tail -5 >&2
tail -20 "$job/console" 2>/dev/null | sed 's/^/  console: /' >&2
exit $status
