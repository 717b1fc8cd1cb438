#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Puts the bootable image of Debian kernel KVER at $ITERKIT_CACHE/vmlinuz-KVER
# for the test VM, from the kernel's own package: linux-image-KVER (6.12:
# boot/vmlinuz-KVER) or linux-binary-KVER (7.x: usr/lib/modules/KVER/vmlinuz).
# Uses the apt sources of wherever it runs (the host or a build root).
#   scripts/fetch-kernel.sh KVER
set -euo pipefail
k=${1:?usage: fetch-kernel.sh KVER}
cache=${ITERKIT_CACHE:-/var/cache/iterkit}
[ -f "$cache/vmlinuz-$k" ] && exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
got=
for p in "linux-binary-$k" "linux-image-$k" "linux-image-$k-unsigned"; do
	if apt-get download -qq -o Acquire::Check-Valid-Until=false "$p" 2>/dev/null; then got=$p; break; fi
done
[ -n "$got" ] || { echo "fetch-kernel: no linux-binary-$k or linux-image-$k in the apt sources" >&2; exit 1; }
dpkg-deb -x "$tmp"/"$got"_*.deb x
img=
for f in "x/boot/vmlinuz-$k" "x/usr/lib/modules/$k/vmlinuz" "x/lib/modules/$k/vmlinuz"; do
	[ -f "$f" ] && { img=$f; break; }
done
[ -n "$img" ] || { echo "fetch-kernel: $got has no vmlinuz" >&2; exit 1; }
mkdir -p "$cache"
cp "$img" "$cache/vmlinuz-$k.tmp"
mv "$cache/vmlinuz-$k.tmp" "$cache/vmlinuz-$k"
echo "fetch-kernel: $cache/vmlinuz-$k from $got" >&2
