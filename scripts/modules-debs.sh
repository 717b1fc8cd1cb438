#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make modules-debs: iterkit's module built, stripped and signed for each
# kernel of packaging/prebuilt/kernels, as Debian packages for hosts with no
# compiler, headers or dkms:
#   iterkit-modules-<release>  the module in /lib/modules/<release>/updates/iterkit/
#                              (Debian 13, merged /usr: /usr/lib/modules/...);
#                              depends on exactly linux-image-<release>
#   iterkit-modules-<flavour>  depends on the newest iterkit-modules-<release>
#                              of that flavour in its suite, and on Debian's
#                              linux-image-<flavour>: a kernel upgrade brings
#                              the matching module
#   iterkit-mok                the signing certificate, to enrol with mokutil
#                              (not in a -backports suite: its release's has it)
#
#   scripts/modules-debs.sh [KERNEL-RELEASE...]   (default: the whole list)
#
# One of iterkit-modules-<release> and iterkit-dkms provides the module for a
# kernel: dkms.conf skips a kernel whose /lib/modules/<release>/updates/iterkit/
# iterkit.ko exists, the package's postinst removes a DKMS build for its
# kernel, and its postrm has DKMS build one again when iterkit-dkms is there.
#
# MODULE_SIGNING_KEY and MODULE_SIGNING_CERT (PEM) sign the modules. Without
# them a throw-away pair is made in build/modules-debs/key/ and said so: its
# modules load under Secure Boot only where that certificate is enrolled.
# Output: build/modules-debs/<suite>/*.deb (SOURCE_DATE_EPOCH: the commit's
# time, as make release).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. scripts/kernel-prep.sh
. scripts/prebuilt.sh
prebuilt_name=modules-debs

out=$top/build/modules-debs
work=$out/work
ver=$(cat VERSION)
log() { prebuilt_log "$@"; }
die() { prebuilt_die "$@"; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

# The kernels asked for, with their suites ("KVER SUITE" lines).
kernels=$(prebuilt_kernels "$@")
suite_kernels() { awk -v s="$1" '$2 == s { print $1 }' <<<"$kernels"; }
# 6.12.95+deb12-cloud-amd64 -> cloud-amd64 (and -amd64 -> amd64: a
# flavour is matched whole, never as the end of another).
flavour_of() { echo "${1#*+deb[0-9][0-9]-}"; }
suite_flavour_kernels() { suite_kernels "$1" | while read -r k; do [ "$(flavour_of "$k")" != "$2" ] || echo "$k"; done; }

signing_pair "$out/key"
rm -rf "$out"/bookworm* "$out"/trixie* "$work"
mkdir -p "$work"

# -- build, strip and sign each module --
# The roots are prepared one at a time (apt), then the kernels built two at
# a time: a module's build is one make, mostly serial, and the machine has
# two cores.
while read -r k suite; do
	prebuilt_prepare "$k" "$(suite_root "$suite")" "$work"
done <<<"$kernels"
while read -r k suite; do
	while [ "$(jobs -rp | wc -l)" -ge "${ITERKIT_BUILD_JOBS:-2}" ]; do wait -n; done
	{ (prebuilt_build "$k" "$(suite_root "$suite")" "$work" "$work/stage/$k/iterkit.ko"); echo $? > "$work/rc-$k"; } &
done <<<"$kernels"
wait
while read -r k suite; do
	[ "$(cat "$work/rc-$k" 2> /dev/null)" = 0 ] || die "$k: its module did not build (the lines above say why)"
done <<<"$kernels"
openssl x509 -in "$cert" -outform DER -out "$work/stage/iterkit-signing.der"

# -- one source package per suite, built for each architecture --
# gen_source SUITE: debian/ for the suite's kernels.
gen_source() {
	local suite=$1 tag kup d k arch flavour p newest moddir
	tag=$(suite_tag "$suite")
	moddir=$(suite_moddir "$suite")
	kup=$(suite_kernels "$suite" | sed 's/+.*//' | sort -u)
	[ "$(wc -l <<<"$kup")" = 1 ] || die "$suite: its kernels have more than one upstream version: $(echo $kup)"
	d=$work/$suite/iterkit-modules-$ver
	mkdir -p "$d/debian/source"
	echo '3.0 (native)' > "$d/debian/source/format"
	cp debian/copyright "$d/debian/copyright"
	# The metapackages' version orders by iterkit's version, then by the
	# kernels' (the source's, so the changelog's); the other packages have
	# iterkit's and the Debian release's, as iterkit-dkms.
	pkgver=$ver+$tag+k$kup
	modver=$ver+$tag
	cat > "$d/debian/changelog" <<-EOF
	iterkit-modules ($pkgver) $(suite_release "$suite"); urgency=medium

	  * iterkit $ver prebuilt for the $suite kernels $kup:
	$(suite_kernels "$suite" | sed 's/^/    /')

	 -- iterkit developers <iterkit@users.noreply.github.com>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
	EOF
	cat > "$d/debian/control" <<-EOF
	Source: iterkit-modules
	Section: kernel
	Priority: optional
	Maintainer: iterkit developers <iterkit@users.noreply.github.com>
	Build-Depends: debhelper-compat (= 13)
	Standards-Version: 4.6.2
	Rules-Requires-Root: no
	EOF
	# The certificate once per Debian release: a backports suite is used
	# with its release's, which has it.
	case $suite in *-backports) ;; *) cat >> "$d/debian/control" <<-EOF

	Package: iterkit-mok
	Architecture: all
	Depends: \${misc:Depends}
	Suggests: mokutil
	Description: open-coded BPF iterators from a kernel module (signing certificate)
	 iterkit is an out-of-tree kernel module that gives BPF programs open-coded
	 iterators (kit_num, testmod_seq, kit_task, kit_cgroup), used with
	 bpf_for_each() on stock kernels 6.4 and newer.
	 .
	 This package has the certificate iterkit's prebuilt modules are signed
	 with, /usr/share/iterkit/mok/iterkit-signing.der. Under Secure Boot a
	 kernel loads them only once it is enrolled:
	   mokutil --import /usr/share/iterkit/mok/iterkit-signing.der
	 then a reboot, where MokManager asks for the password given to mokutil.
	EOF
		mkdir -p "$d/mok"
		cp "$work/stage/iterkit-signing.der" "$d/mok/"
		echo "mok/iterkit-signing.der usr/share/iterkit/mok" > "$d/debian/iterkit-mok.install"
		;;
	esac
	# (printf: a heredoc here would lose the recipes' tabs)
	metas=$(suite_kernels "$suite" | while read -r k; do echo "iterkit-modules-$(flavour_of "$k")"; done | sort -u)
	printf '%s\n' '#!/usr/bin/make -f' '%:' '	dh $@' '' \
		'# The modules are signed: stripping them again would drop the signature.' \
		'override_dh_strip override_dh_dwz:' '' \
		'override_dh_gencontrol:' \
		"	dh_gencontrol $(printf -- '-N%s ' $metas)-- -v$modver" \
		"	dh_gencontrol --remaining-packages" > "$d/debian/rules"
	chmod +x "$d/debian/rules"
	for k in $(suite_kernels "$suite"); do
		arch=$(karch "$k")
		p=iterkit-modules-$k
		mkdir -p "$d/modules/$k"
		cp "$work/stage/$k/iterkit.ko" "$d/modules/$k/"
		echo "modules/$k/iterkit.ko $moddir/$k/updates/iterkit" > "$d/debian/$p.install"
		cat >> "$d/debian/control" <<-EOF

		Package: $p
		Architecture: $arch
		Depends: \${misc:Depends}, linux-image-$k
		Recommends: iterkit, iterkit-mok
		Provides: iterkit-module
		Description: open-coded BPF iterators: the module prebuilt for $k
		 iterkit is an out-of-tree kernel module that gives BPF programs open-coded
		 iterators (kit_num, testmod_seq, kit_task, kit_cgroup), used with
		 bpf_for_each() on stock kernels 6.4 and newer.
		 .
		 This package has the module built for Linux $k
		 and signed with iterkit's key (its certificate is in iterkit-mok), for
		 hosts without a compiler or kernel headers. For this kernel it takes
		 the place of a DKMS build by iterkit-dkms.
		EOF
		sed "s/#KVER#/$k/g" packaging/prebuilt/postinst > "$d/debian/$p.postinst"
		sed "s/#KVER#/$k/g" packaging/prebuilt/postrm > "$d/debian/$p.postrm"
	done
	# The metapackages: per flavour, the newest kernel of the suite.
	for flavour in $(suite_kernels "$suite" | while read -r k; do flavour_of "$k"; done | sort -u); do
		newest=$(suite_flavour_kernels "$suite" "$flavour" | sort -V | tail -n 1)
		arch=$(karch "$newest")
		cat >> "$d/debian/control" <<-EOF

		Package: iterkit-modules-$flavour
		Architecture: $arch
		Depends: \${misc:Depends}, iterkit-modules-$newest (= $modver), linux-image-$flavour
		Description: open-coded BPF iterators from a kernel module (prebuilt, $flavour)
		 iterkit is an out-of-tree kernel module that gives BPF programs open-coded
		 iterators (kit_num, testmod_seq, kit_task, kit_cgroup), used with
		 bpf_for_each() on stock kernels 6.4 and newer.
		 .
		 This metapackage depends on iterkit's prebuilt module for the kernel
		 that Debian's linux-image-$flavour installs, so that a kernel upgrade
		 brings the matching module.
		EOF
	done
}

for suite in $(awk '{ print $2 }' <<<"$kernels" | sort -u); do
	gen_source "$suite"
	d=$work/$suite/iterkit-modules-$ver
	mkdir -p "$out/$suite"
	first=1
	for arch in $(suite_kernels "$suite" | sed 's/.*-//' | sort -u); do
		# The first architecture's build has the Architecture: all package too.
		log "$suite $arch: dpkg-buildpackage"
		(cd "$d" && dpkg-buildpackage -us -uc -a "$arch" -d $([ -n "$first" ] && echo -b || echo -B)) \
			> "$work/$suite-$arch.log" 2>&1 ||
			die "$suite $arch: dpkg-buildpackage failed (log: $work/$suite-$arch.log: $(tail -n 1 "$work/$suite-$arch.log"))"
		first=
	done
	mv "$work/$suite"/*.deb "$work/$suite"/*.changes "$work/$suite"/*.buildinfo "$out/$suite/"
	ls "$out/$suite"/*.deb
done
