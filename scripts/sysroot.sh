#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Target sysroots for cross builds: Debian's own packages of another
# architecture, unpacked (never installed or run), so that the build
# machine's toolchain builds the loader and the tests for that architecture
# and the VM boots that architecture's kernels. Nothing runs under emulation.
#
#   scripts/sysroot.sh create NAME          unpack it unless cached
#   scripts/sysroot.sh kernel NAME KVER     that kernel's headers into the
#                                           sysroot, its image into the VM cache
#   scripts/sysroot.sh path   NAME          print where it lives
#   scripts/sysroot.sh kdir   NAME KVER     print the kernel's header tree
#   scripts/sysroot.sh build-deps NAME KVER the build machine's packages that
#                                           build modules for it (its kbuild,
#                                           the common headers, the cross gcc)
#   scripts/sysroot.sh add    NAME PKG...   unpack those packages (and what
#                                           they depend on) into it
#   scripts/sysroot.sh list                 the sysroots this script knows
#
# NAME is RELEASE-ARCH: bookworm-arm64 (bookworm + bookworm-backports) or
# trixie-arm64 (trixie + trixie-backports). A sysroot holds the C library,
# libbpf, libelf, zlib and zstd (static archives included), busybox-static
# for the guest, the headers of the kernels asked for, and what `add` put
# there (make bench: procps, for its ps and libraries). Each
# has a private apt state next to it, so the build machine's apt never
# learns the foreign architecture.
# Sysroots live in $ITERKIT_CACHE/sysroots (default /var/cache/iterkit/sysroots).
set -euo pipefail

CACHE=${ITERKIT_CACHE:-/var/cache/iterkit}
SYSROOTS=$CACHE/sysroots
MIRROR=${ITERKIT_MIRROR:-http://deb.debian.org/debian}
SECURITY=${ITERKIT_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

tmp=
trap 'rm -rf "${tmp:-}"' EXIT
die() { echo "sysroot: $*" >&2; exit 1; }
log() { echo "sysroot: $*" >&2; }

# release, architecture, apt sources and the packages of each sysroot
# (libbpf >= 1.4 for bpf_for_each: bookworm has it in backports only).
release() { echo "${1%-*}"; }
arch() { echo "${1##*-}"; }
sources() {
	case $(release "$1") in
	bookworm)
		echo "deb $MIRROR bookworm main"
		echo "deb $MIRROR bookworm-updates main"
		echo "deb $SECURITY bookworm-security main"
		echo "deb $MIRROR bookworm-backports main"
		;;
	trixie)
		echo "deb $MIRROR trixie main"
		echo "deb $MIRROR trixie-updates main"
		echo "deb $SECURITY trixie-security main"
		echo "deb $MIRROR trixie-backports main"
		;;
	esac
}
packages() {
	local libbpf=libbpf-dev
	[ "$(release "$1")" = bookworm ] && libbpf=libbpf-dev/bookworm-backports
	echo "libc6-dev,$libbpf,libelf-dev,zlib1g-dev,libzstd-dev,busybox-static"
}
known() {
	case $1 in
	bookworm-arm64 | trixie-arm64) ;;
	*) die "unknown sysroot '$1' (known: $(list))" ;;
	esac
}
list() { echo bookworm-arm64 trixie-arm64; }

path() { echo "$SYSROOTS/$1"; }

# One builder at a time per sysroot (CI may run two legs at once).
locked() {
	local name=$1
	shift
	mkdir -p "$SYSROOTS"
	exec 9> "$SYSROOTS/.$name.lock"
	flock 9
	"$@"
	exec 9>&-
}

create_unlocked() {
	local name=$1 dir srcs=()
	dir=$(path "$name")
	[ -f "$dir/.iterkit-sysroot" ] && return 0
	command -v mmdebstrap > /dev/null || {
		log "installing mmdebstrap on the host (bookworm)"
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
			--no-install-recommends mmdebstrap > /dev/null
	}
	rm -rf "$dir.new"
	mapfile -t srcs < <(sources "$name")
	log "unpacking the $name sysroot into $dir"
	# extract: the packages and their dependencies are unpacked, nothing
	# is configured, so no foreign binary ever runs.
	mmdebstrap --quiet --variant=extract --arch="$(arch "$name")" --include="$(packages "$name")" \
		--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		"$(release "$name")" "$dir.new" "${srcs[@]}"
	# Merged /usr as an installed system has it (trixie's packages ship
	# under /usr; its libc.so still names /lib/aarch64-linux-gnu/libc.so.6).
	for d in bin sbin lib; do
		[ -e "$dir.new/$d" ] || [ -L "$dir.new/$d" ] || ln -s "usr/$d" "$dir.new/$d"
	done
	printf '%s\n' "${srcs[@]}" > "$dir.new/.iterkit-sources"
	echo "$name" > "$dir.new/.iterkit-sysroot"
	rm -rf "$dir"
	mv "$dir.new" "$dir"
}
create() { known "$1"; locked "$1" create_unlocked "$1"; }

# apt NAME ARGS...: apt-get for the sysroot's architecture and release,
# with its own lists and archives (under NAME.apt), run in the current
# directory (downloads land there).
apt_for() {
	local name=$1 a
	shift
	a=$(path "$name").apt
	mkdir -p "$a/lists/partial" "$a/archives/partial" "$a/etc/preferences.d"
	touch "$a/status"
	# The mirror asked for now, not the one the sysroot was unpacked from.
	sources "$name" > "$a/sources.list"
	apt-get -q -o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts="$a/etc/preferences.d" \
		-o Dir::State::Lists="$a/lists" -o Dir::State::Status="$a/status" -o Dir::Cache="$a" \
		-o Dir::Cache::Archives="$a/archives" -o APT::Architecture="$(arch "$name")" \
		-o APT::Architectures::="$(arch "$name")" -o Acquire::Check-Valid-Until=false \
		-o APT::Sandbox::User=root "$@"
}

# The header tree of KVER in the sysroot.
kdir() { echo "$(path "$1")/usr/src/linux-headers-$2"; }

# Unpacks linux-headers-KVER into the sysroot and puts the kernel's image
# at $ITERKIT_CACHE/vmlinuz-KVER. The headers' scripts and tools are the
# build machine's linux-kbuild of the same version (Debian builds them for
# the build architecture; the root that builds must have it installed),
# reached through a link the sysroot keeps at /usr/lib/linux-kbuild-*.
kernel_unlocked() {
	local name=$1 k=$2 dir kd kbuild img=
	dir=$(path "$name")
	kd=$(kdir "$name" "$k")
	if [ -f "$kd/.iterkit-unpacked" ] && [ -f "$CACHE/vmlinuz-$k" ]; then return 0; fi
	tmp=$(mktemp -d)
	(
		cd "$tmp"
		apt_for "$name" update -qq > /dev/null
		apt_for "$name" download -qq "linux-headers-$k" > /dev/null ||
			die "linux-headers-$k is not in the $name sources"
		apt_for "$name" download -qq "linux-binary-$k" > /dev/null 2>&1 ||
			apt_for "$name" download -qq "linux-image-$k" > /dev/null 2>&1 ||
			apt_for "$name" download -qq "linux-image-$k-unsigned" > /dev/null 2>&1 ||
			die "no linux-binary-$k or linux-image-$k in the $name sources"
	)
	kbuild=$(dpkg-deb -f "$tmp"/linux-headers-"$k"_*.deb Depends | grep -o 'linux-kbuild-[^ ,]*' | head -n 1)
	[ -n "$kbuild" ] || die "linux-headers-$k names no linux-kbuild package"
	rm -rf "$kd"
	dpkg-deb -x "$tmp"/linux-headers-"$k"_*.deb "$dir"
	mkdir -p "$dir/usr/lib"
	ln -sfn "/usr/lib/$kbuild" "$dir/usr/lib/$kbuild"
	# The 7.x headers name their own place as kbuild's output directory.
	sed -i "s|^KBUILD_OUTPUT=/usr/src/linux-headers-$k\$|KBUILD_OUTPUT=$kd|" "$kd/Makefile"
	echo "$kbuild" > "$kd/.iterkit-kbuild"
	touch "$kd/.iterkit-unpacked"
	if [ ! -f "$CACHE/vmlinuz-$k" ]; then
		for p in "$tmp"/linux-binary-"$k"_*.deb "$tmp"/linux-image-"$k"_*.deb "$tmp"/linux-image-"$k"-unsigned_*.deb; do
			[ -f "$p" ] || continue
			dpkg-deb -x "$p" "$tmp/img"
			for f in "$tmp/img/boot/vmlinuz-$k" "$tmp/img/usr/lib/modules/$k/vmlinuz" "$tmp/img/lib/modules/$k/vmlinuz"; do
				[ -f "$f" ] && { img=$f; break; }
			done
			break
		done
		[ -n "$img" ] || die "the image package of $k has no vmlinuz"
		cp "$img" "$CACHE/vmlinuz-$k.tmp"
		mv "$CACHE/vmlinuz-$k.tmp" "$CACHE/vmlinuz-$k"
		log "$CACHE/vmlinuz-$k"
	fi
	rm -rf "$tmp"
}
kernel() { known "$1"; create "$1"; locked "$1" kernel_unlocked "$1" "${2:?KVER}"; }

# What the root that builds for KVER must have installed: the kernel's
# linux-kbuild (the headers' scripts), the common headers its Makefile
# includes, and the cross compiler the kernel was built with
# (CONFIG_CC_VERSION_TEXT "aarch64-linux-gnu-gcc-14 (Debian ...)" is
# gcc-14-aarch64-linux-gnu).
build_deps() {
	local kd kbuild cc
	kd=$(kdir "$1" "$2")
	[ -f "$kd/.iterkit-kbuild" ] || die "no headers of $2 in $1: scripts/sysroot.sh kernel $1 $2"
	kbuild=$(cat "$kd/.iterkit-kbuild")
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$kd/.config")
	case $cc in
	*-gcc-[0-9]*) cc="gcc-${cc##*-gcc-}-${cc%-gcc-*}" ;;
	*) die "$2 was built with '$cc', not a Debian cross gcc" ;;
	esac
	echo "$kbuild linux-headers-${kbuild#linux-kbuild-}-common $cc"
}

# Unpacks PKG... and their dependencies that are not unpacked yet. What
# was asked for is listed in .iterkit-added: asked again, it is there.
add_unlocked() {
	local name=$1 dir f p new=
	shift
	dir=$(path "$name")
	for p in "$@"; do
		grep -qxF -- "$p" "$dir/.iterkit-added" 2>/dev/null || new=1
	done
	[ -n "$new" ] || return 0
	tmp=$(mktemp -d)
	(
		cd "$tmp"
		apt_for "$name" update -qq > /dev/null
		# The sysroot's own dpkg status says what is there already.
		apt_for "$name" -o Dir::State::Status="$dir/var/lib/dpkg/status" \
			-o Dir::Cache::Archives="$tmp" install -qq -y --download-only "$@" > /dev/null
	) || die "cannot download $* for $name"
	for f in "$tmp"/*.deb; do
		[ -f "$f" ] || continue
		dpkg-deb -x "$f" "$dir"
		log "$name: unpacked $(basename "$f")"
	done
	printf '%s\n' "$@" >> "$dir/.iterkit-added"
	rm -rf "$tmp"
}
add() {
	local name=$1
	shift
	known "$name"
	create "$name"
	locked "$name" add_unlocked "$name" "$@"
}

cmd=${1:-}
[ -n "$cmd" ] || { sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
shift
case $cmd in
create) [ "$(id -u)" = 0 ] || die "must run as root"; create "${1:?sysroot}" ;;
kernel) [ "$(id -u)" = 0 ] || die "must run as root"; kernel "${1:?sysroot}" "${2:?KVER}" ;;
path) known "${1:?sysroot}"; path "$1" ;;
kdir) known "${1:?sysroot}"; kdir "$1" "${2:?KVER}" ;;
build-deps) known "${1:?sysroot}"; build_deps "$1" "${2:?KVER}" ;;
add) [ "$(id -u)" = 0 ] || die "must run as root"; add "${1:?sysroot}" "${@:2}" ;;
list) list ;;
*) die "unknown command '$cmd'" ;;
esac
