#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kmod-image KVER=<release>: the OCI image the Kernel Module Management
# operator (KMM) loads iterkit from, for one kernel of
# packaging/prebuilt/kernels, built only from Debian packages (no registry
# to pull a base from):
#   /opt/lib/modules/<release>/iterkit.ko   stripped and signed, as the
#                                           prebuilt packages have it
#   /opt/lib/modules/<release>/modules.*    depmod -b /opt
#   /usr/sbin/iterkit                       the loader (for a DaemonSet
#                                           that runs iterkit's programs)
#   kmod, dash, coreutils and the loader's libraries, unpacked from the
#   kernel's Debian release (mmdebstrap --variant=extract)
#
#   scripts/kmod-image.sh KVER
#
# Output: build/kmod-image/<tag>/oci, an OCI image layout whose image is
# tagged <tag>: the release with "+" as "_", since an image tag cannot hold
# a "+" (6.12.95+deb12-cloud-amd64 -> 6.12.95_deb12-cloud-amd64), and
# build/kmod-image/<tag>/layout.txt, the image's files under /opt and the
# loader. Signed with MODULE_SIGNING_KEY/MODULE_SIGNING_CERT, else with
# the throw-away pair of make modules-debs (build/modules-debs/key).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. scripts/kernel-prep.sh
. scripts/prebuilt.sh
prebuilt_name=kmod-image

[ $# -eq 1 ] || prebuilt_die "usage: scripts/kmod-image.sh KVER (a kernel of $PREBUILT_LIST)"
read -r k suite <<<"$(prebuilt_kernels "$1")"
root=$(suite_root "$suite")
release=$(suite_release "$suite")
arch=$(karch "$k")
tag=${k//+/_}
out=$top/build/kmod-image/$tag
work=$out/work
cache=${ITERKIT_CACHE:-/var/cache/iterkit}/kmod-base
ver=$(cat VERSION)
for t in umoci mmdebstrap depmod; do
	command -v "$t" > /dev/null || prebuilt_die "no $t: run scripts/install-deps.sh fleet"
done

signing_pair "$top/build/modules-debs/key"
rm -rf "$out"
mkdir -p "$work"
prebuilt_module "$k" "$root" "$work" "$work/iterkit.ko" "$work/iterkit"

# The base: the worker's tools and the loader's shared libraries, unpacked
# (nothing runs, so no emulation for arm64), cached per release and
# architecture.
base_pkgs=kmod,dash,coreutils,libc6,libelf1,zlib1g,libzstd1
base=$cache/$release-$arch-$(echo "$base_pkgs" | md5sum | cut -c1-8).tar
if [ ! -f "$base" ]; then
	prebuilt_log "unpacking the $release $arch base ($base_pkgs)"
	mkdir -p "$cache"
	mmdebstrap --quiet --variant=extract --format=tar --arch="$arch" --include="$base_pkgs" \
		"$release" "$base.new" "${ITERKIT_MIRROR:-http://deb.debian.org/debian}" > "$work/mmdebstrap.log" 2>&1 ||
		prebuilt_die "mmdebstrap failed (log: $work/mmdebstrap.log: $(tail -n 1 "$work/mmdebstrap.log"))"
	mv "$base.new" "$base"
fi
rootfs=$work/rootfs
mkdir -p "$rootfs"
tar -xf "$base" -C "$rootfs"
# Debian 13's packages install into /usr alone and rely on the /bin, /sbin
# and /lib links a merged /usr has (the loaders' ELF interpreter is in
# /lib); an unpacked base lacks them, so they are made here.
for d in bin sbin lib lib64; do
	if [ -d "$rootfs/usr/$d" ] && [ ! -e "$rootfs/$d" ] && [ ! -L "$rootfs/$d" ]; then
		ln -s "usr/$d" "$rootfs/$d"
	fi
done
# Translations and manuals are of no use in an image; the licences stay.
rm -rf "$rootfs"/usr/share/{locale,man,info}
find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
mods=$rootfs/opt/lib/modules/$k
install -D -m 0644 "$work/iterkit.ko" "$mods/iterkit.ko"
# The tree has iterkit alone: none of the kernel's modules, none built in.
echo iterkit.ko > "$mods/modules.order"
: > "$mods/modules.builtin"
: > "$mods/modules.builtin.modinfo"
depmod -b "$rootfs/opt" "$k"
grep -q '^iterkit.ko:' "$mods/modules.dep" || prebuilt_die "depmod -b did not index iterkit.ko"
install -D -m 0755 "$work/iterkit" "$rootfs/usr/sbin/iterkit"
[ -e "$rootfs/sbin/modprobe" ] || [ -e "$rootfs/usr/sbin/modprobe" ] || prebuilt_die "the base has no modprobe"

prebuilt_log "$k: the OCI image, tagged $tag"
oci=$out/oci
umoci init --layout "$oci"
umoci new --image "$oci:$tag"
umoci insert --image "$oci:$tag" --history.comment "iterkit $ver for $k" "$rootfs" / > /dev/null
umoci config --image "$oci:$tag" --os linux --architecture "$arch" \
	--config.label "org.opencontainers.image.title=iterkit-kmod" \
	--config.label "org.opencontainers.image.version=$ver" \
	--config.label "org.opencontainers.image.description=iterkit $ver for Linux $k (KMM kmod image)" \
	--config.label "org.opencontainers.image.licenses=GPL-2.0-only" \
	--config.label "io.iterkit.kernel=$k" \
	--config.cmd /usr/sbin/iterkit --config.cmd status
umoci gc --layout "$oci"
(cd "$rootfs" && find opt usr/sbin/iterkit \( -type f -o -type l \) -printf '/%p %s\n' | sort) > "$out/layout.txt"
rm -rf "$work"
prebuilt_log "$k: $oci:$tag ($(du -sh "$oci" | cut -f1)); its files in /opt: $out/layout.txt"
