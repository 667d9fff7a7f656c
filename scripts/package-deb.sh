#!/usr/bin/env bash
# slomo's Debian package: the release binary with Swift's runtime linked in statically, beside it
# libslomo-flow.so (the optical flow of --frame-blend flow, which slomo loads from its own folder:
# both in /usr/lib/slomo, /usr/bin/slomo a link), the man page, bash, zsh and fish completions, the
# systemd unit with its configuration (/etc/slomo/rig.yaml, a conffile: the synthetic camera until the
# operator names theirs). Depends: what dpkg-shlibdeps finds the two files link, and
# the libraries slomo loads at run time (FFmpeg 5.1's six, dlopened by CFFmpegLoader; the font
# --burn-in draws with). Checked with lintian: any error fails.
#
#   scripts/dev.sh package [--check-install]     → out/slomo_VERSION-1_amd64.deb
#
# --check-install: a fresh Debian 12 (debootstrap's minbase into .build-package/root, no Swift) gets
# the package with `apt install ./slomo_….deb`, then runs `slomo --version`, `man slomo`, a short
# export, and `systemd-analyze verify` on the installed unit. Needs root and Debian's mirror.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null 2>&1 || export PATH="$PATH:/opt/swift/usr/bin"
build=${PACKAGE_BUILD:-.build-package}
swift build -c release --static-swift-stdlib --product slomo --build-path "$build" 2>&1 | grep -vE '^\[' || true
bin=$(swift build -c release --build-path "$build" --show-bin-path)
version=$("$bin/slomo" --version)
arch=$(dpkg --print-architecture)
name=slomo_${version}-1_${arch}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/$name
doc=$root/usr/share/doc/slomo

install -D -m 755 "$bin/slomo" "$root/usr/lib/slomo/slomo"
# libslomo-flow.so compiled here, as SwiftPM's product would be but without the Swift image
# registration SwiftPM links into every library (it made the library need libswiftCore.so)
install -d "$root/usr/lib/slomo"
clang++ -std=c++17 -O2 -fPIC -shared -Wl,--as-needed -I/usr/include/opencv4 Sources/SlomoFlowCV/flow.cpp \
  -lopencv_video -lopencv_imgproc -lopencv_core -o "$root/usr/lib/slomo/libslomo-flow.so"
chmod 644 "$root/usr/lib/slomo/libslomo-flow.so"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/lib/slomo/slomo" "$root/usr/lib/slomo/libslomo-flow.so"
# SwiftPM gives the binary a RUNPATH ($ORIGIN); the installed files load only Debian's libraries,
# from the system's paths
patchelf --remove-rpath "$root/usr/lib/slomo/slomo"
mkdir -p "$root/usr/bin"
ln -s ../lib/slomo/slomo "$root/usr/bin/slomo"
install -d "$root/usr/share/man/man1"
gzip -9n <Docs/man/slomo.1 >"$root/usr/share/man/man1/slomo.1.gz"
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"
"$bin/slomo" --generate-completion-script bash | sed '1{/^#!/d}' >"$root/usr/share/bash-completion/completions/slomo"
"$bin/slomo" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_slomo"
"$bin/slomo" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/slomo.fish"
chmod 644 "$root"/usr/share/*/*/slomo* "$root"/usr/share/zsh/vendor-completions/_slomo "$root"/usr/share/bash-completion/completions/slomo
install -D -m 644 Samples/systemd/slomo-serve.service "$root/lib/systemd/system/slomo-serve.service"
install -D -m 644 Samples/config/rig.yaml "$doc/examples/rig.yaml"
install -D -m 644 Samples/config/rig.yaml "$root/etc/slomo/rig.yaml"   # the unit's configuration, the operator's to edit
# Yams (the YAML reader of --config and manifests) compiles its own copy of libyaml into slomo, as
# every Swift package is linked in; Debian's libyaml cannot take its place without changing Yams
install -D -m 644 /dev/stdin "$root/usr/share/lintian/overrides/slomo" <<EOF
slomo: embedded-library libyaml [usr/lib/slomo/slomo]
EOF
cat >"$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: slomo

Files: *
Copyright: 2026 the slomo developers
License: GPL-2+

License: GPL-2+
 This program is free software; you can redistribute it and/or modify it under
 the terms of the GNU General Public License as published by the Free Software
 Foundation; either version 2 of the License, or (at your option) any later
 version.
 .
 On Debian systems, the complete text of the GNU General Public License version
 2 can be found in /usr/share/common-licenses/GPL-2.
EOF
chmod 644 "$doc/copyright"
printf 'slomo (%s-1) unstable; urgency=medium\n\n  * Built from the repository by scripts/package-deb.sh.\n\n -- slomo developers <slomo@example.org>  %s\n' \
  "$version" "$(date -R)" | gzip -9n >"$doc/changelog.Debian.gz"
chmod 644 "$doc/changelog.Debian.gz"

# Depends: the linked libraries (dpkg-shlibdeps reads a debian/control), then what slomo dlopens
mkdir -p "$work/src/debian"
printf 'Source: slomo\n\nPackage: slomo\nArchitecture: any\n' >"$work/src/debian/control"
linked=$(cd "$work/src" && dpkg-shlibdeps -O "$root/usr/lib/slomo/slomo" "$root/usr/lib/slomo/libslomo-flow.so" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
loaded="libavcodec59, libavfilter8, libavformat59, libavutil57, libswresample4, libswscale6, fonts-dejavu-core"
install -d "$root/DEBIAN"
echo /etc/slomo/rig.yaml >"$root/DEBIAN/conffiles"
cat >"$root/DEBIAN/control" <<EOF
Package: slomo
Version: $version-1
Architecture: $arch
Maintainer: slomo developers <slomo@example.org>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $linked, $loaded
Section: video
Priority: optional
Description: high-frame-rate capture and slow motion from the command line
 slomo records fast cameras (V4L2, GenICam over GigE Vision and USB3 Vision)
 into a RAM ring without dropping frames, keeps shots around a trigger (sound,
 GPIO, network, image), retimes and exports slow motion with time-pitch audio,
 writes the formats labs read (Phantom Cine, Photron MRAW, HDF5, TIFF, DNG)
 and runs a rig from a browser (slomo serve, with a systemd unit).
EOF
mkdir -p out
dpkg-deb --root-owner-group -Zxz --build "$root" "out/$name.deb" >/dev/null
echo "package: out/$name.deb ($(du -h "out/$name.deb" | cut -f1)); Depends: $linked, $loaded"
lint=$(lintian --tag-display-limit 0 "out/$name.deb" 2>&1 | grep -v "^running with root privileges" || true)
[ -n "$lint" ] && echo "$lint"
errors=$(grep -c '^E: ' <<<"$lint" || true)
echo "lintian: $errors errors, $(grep -c '^W: ' <<<"$lint" || true) warnings"
[ "$errors" = 0 ] || exit 1

if [ "${1:-}" = --check-install ]; then
  [ "$(id -u)" = 0 ] || { echo "package: --check-install needs root (debootstrap, chroot)" >&2; exit 77; }
  # debootstrap's system is kept as it came (made once), each check works on a copy of it
  base=$build/debian12 chroot=$build/check
  [ -x "$base/usr/bin/apt-get" ] || debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian >"$build/debootstrap.log"
  rm -rf "$chroot" && cp -a "$base" "$chroot"
  cp "out/$name.deb" "$chroot/tmp/"
  mount -t proc proc "$chroot/proc"
  trap 'umount "$chroot/proc" 2>/dev/null; rm -rf "$work" "$chroot"' EXIT
  chroot "$chroot" bash -euc "
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends man-db systemd ./tmp/$name.deb >/tmp/apt.log || { tail -20 /tmp/apt.log; exit 1; }
    if command -v swift; then echo 'package: Swift is in the fresh system' >&2; exit 1; fi
    echo \"installed: \$(dpkg-query -W -f='\${Package} \${Version}' slomo)\"
    echo \"slomo --version: \$(slomo --version)\"
    echo \"man slomo: \$(MANPAGER=cat man slomo 2>/dev/null | head -4 | tail -1 | sed 's/^ *//')\"
    slomo generate --fps 120 --duration 1 --size 320x180 -o /tmp/in.mp4 >/dev/null
    slomo export /tmp/in.mp4 --rate 1/4 -o /tmp/out.mp4 >/dev/null && echo \"export: \$(slomo probe /tmp/out.mp4 | head -1)\"
    slomo export /tmp/in.mp4 --rate 1/4 --frame-blend flow -o /tmp/flow.mp4 >/dev/null && echo 'export --frame-blend flow: libslomo-flow.so loaded'
    systemd-analyze verify /lib/systemd/system/slomo-serve.service && echo 'systemd-analyze verify: clean'
    slomo serve --config /etc/slomo/rig.yaml --print-config >/tmp/config.txt && echo \"the unit's configuration: \$(grep -c 'rig.yaml' /tmp/config.txt) settings from /etc/slomo/rig.yaml\"
  "
fi
