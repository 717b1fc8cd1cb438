#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make modules-debs over every kernel of packaging/prebuilt/kernels (amd64
# and arm64; bookworm built on this host, trixie and trixie-backports in the
# trixie build root): lintian clean with each suite's own lintian, and for
# each kernel a package whose module has that kernel's vermagic and
# architecture, its BTF, and iterkit's signature, where that release keeps
# modules; each flavour's metapackage follows the suite's kernel.
# (make check-pkg installs the bookworm ones; this checks what is built.)
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
. tests/pkg/lib.sh
. scripts/kernel-prep.sh
. scripts/prebuilt.sh
out=build/modules-debs
cert=${MODULE_SIGNING_CERT:-$out/key/signing_key.x509.pem}
work=$(mktemp -d "${TMPDIR:-/tmp}/iterkit-mdebs.XXXXXX")
trap 'rm -rf "$work"' EXIT

log=$(make modules-debs 2>&1)
tap_eq "make modules-debs exits 0" "$?" 0 || { tap_diag "$(tail -n 10 <<<"$log")"; tap_done; exit; }
kernels=$(prebuilt_kernels)

for suite in $(awk '{ print $2 }' <<<"$kernels" | sort -u); do
	root=$(suite_root "$suite")
	l=$(inroot "$root" lintian --fail-on error,warning "$PWD/$out/$suite/"*.changes 2>&1)
	rc=$?
	l=$(grep -v 'running with root privileges' <<<"$l")
	tap_eq "$suite: lintian ($(inroot "$root" lintian --version)) is clean" "$rc:$l" "0:" || tap_diag "$l"
done

while read -r k suite; do
	arch=$(karch "$k")
	moddir=$(case $suite in bookworm*) echo lib/modules ;; *) echo usr/lib/modules ;; esac)
	deb=$(ls "$out/$suite/iterkit-modules-${k}_"*"_$arch.deb" 2> /dev/null)
	[ -f "$deb" ] || { tap_fail "$k: iterkit-modules-$k in $out/$suite"; continue; }
	tap_ok "$k: iterkit-modules-$k in $out/$suite"
	tap_contains "$k: ... depends on exactly linux-image-$k" "$(dpkg-deb -f "$deb" Depends)" "linux-image-$k"
	x=$work/$k
	dpkg-deb -x "$deb" "$x"
	ko=$x/$moddir/$k/updates/iterkit/iterkit.ko
	[ -f "$ko" ] || { tap_fail "$k: ... the module at /$moddir/$k/updates/iterkit/iterkit.ko"; continue; }
	tap_ok "$k: ... the module at /$moddir/$k/updates/iterkit/iterkit.ko"
	tap_eq "$k: ... its vermagic is the kernel's" "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" "$k"
	machine=$(readelf -h "$ko" | sed -n 's/^ *Machine: *//p')
	tap_eq "$k: ... built for $arch" "$machine" "$([ "$arch" = arm64 ] && echo AArch64 || echo 'Advanced Micro Devices X86-64')"
	tap_check "$k: ... its BTF kept after stripping" sh -c "readelf -S '$ko' | grep -q '[[:space:]]\.BTF[[:space:]]'"
	v=$(ko_sig_verify "$ko" "$cert")
	tap_eq "$k: ... its signature verifies against iterkit-mok's certificate" "$?" 0 || tap_diag "$v"
done <<<"$kernels"

for suite in $(awk '{ print $2 }' <<<"$kernels" | sort -u); do
	# A kernel's flavour is what follows "+debNN-", matched whole:
	# 6.12.95+deb12-cloud-amd64 is of cloud-amd64, not of amd64.
	for flavour in $(awk -v s="$suite" '$2 == s { sub(/^[^+]*\+deb[0-9]+-/, "", $1); print $1 }' <<<"$kernels" | sort -u); do
		newest=$(awk -v s="$suite" -v f="$flavour" '$2 == s { k = $1; sub(/^[^+]*\+deb[0-9]+-/, "", k); if (k == f) print $1 }' <<<"$kernels" | sort -V | tail -n 1)
		meta=$(ls "$out/$suite/iterkit-modules-${flavour}_"*.deb 2> /dev/null)
		[ -f "$meta" ] || { tap_fail "$suite: the metapackage iterkit-modules-$flavour"; continue; }
		tap_contains "$suite: iterkit-modules-$flavour depends on iterkit-modules-$newest and linux-image-$flavour" \
			"$(dpkg-deb -f "$meta" Depends)" "iterkit-modules-$newest (= "
		tap_contains "$suite: ... its version names the kernel" "$(dpkg-deb -f "$meta" Version)" "+k${newest%%+*}"
	done
done
tap_done
