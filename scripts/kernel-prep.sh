# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/matrix/run, scripts/modules-debs.sh, scripts/kmod-image.sh
# and tests/fleet/: what building iterkit for one Debian kernel of another
# release or architecture takes.
#   prepare KVER ROOT     the root, toolchain, headers and image of KVER
#                         (prints a reason and fails when it cannot)
#   inroot ROOT CMD...    CMD on the host (ROOT "host") or in the build root
#   karch KVER            amd64 or arm64
#   kdir_of KVER ROOT     the kernel's header tree
#   sysroot_of KVER ROOT  a foreign kernel's sysroot (scripts/sysroot.sh)
# ROOT is "host" (this Debian 12 machine) or a root of scripts/buildroot.sh.
br=scripts/buildroot.sh
# The mirror the build roots and sysroots are made from, named in reasons.
mirror=${ITERKIT_MIRROR:-http://deb.debian.org/debian}

# What every build root needs to build and to boot the VM. bpftool comes
# from trixie-backports on trixie: its vmlinux.h is the one users get there.
ROOT_PKGS="make gcc libc6-dev clang llvm libbpf-dev libelf-dev zlib1g-dev libzstd-dev
	pkg-config xz-utils zstd pahole kmod binutils busybox-static cpio qemu-system-x86 bpftool"
# And for the arm64 kernels: the cross binutils and gcc the loader and tests
# are built with, and the VM (the kernel's own cross gcc is prepared per kernel).
CROSS_PKGS="gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-system-arm"

# inroot ROOT CMD...: runs CMD on the host or inside the build root.
inroot() {
	local root=$1
	shift
	if [ "$root" = host ]; then "$@"; else "$br" run "$root" -- "$@"; fi
}

# The architecture of a kernel in the list, and for a foreign one the
# sysroot of its root's release (bookworm for the host).
karch() { case $1 in *-arm64) echo arm64 ;; *) echo amd64 ;; esac; }
sysroot_of() { echo "$([ "$2" = host ] && echo bookworm || echo "$2")-$(karch "$1")"; }
kdir_of() {	# kdir_of KVER ROOT: the kernel's header tree
	if [ "$(karch "$1")" = amd64 ]; then echo "/lib/modules/$1/build"; else scripts/sysroot.sh kdir "$(sysroot_of "$1" "$2")" "$1"; fi
}

# prepare_cross KVER ROOT: an arm64 kernel's sysroot, headers and image,
# and in its root the cross gcc, kbuild and common headers it needs.
prepare_cross() {
	local k=$1 root=$2 sr deps
	sr=$(sysroot_of "$k" "$root")
	scripts/sysroot.sh list | grep -qw "$sr" || { echo "no sysroot for $(karch "$k") in the $root root"; return 1; }
	scripts/sysroot.sh kernel "$sr" "$k" >&2 || { echo "linux-headers-$k or its image cannot be fetched for $sr"; return 1; }
	# The examples' test runs the target's bpftool in the VM (the release's
	# newest, as the root's).
	scripts/sysroot.sh add "$sr" "bpftool/${sr%-*}-backports" >&2 || { echo "no bpftool for $sr"; return 1; }
	deps=$(scripts/sysroot.sh build-deps "$sr" "$k") || { echo "cannot tell what builds modules for $k"; return 1; }
	if [ "$root" = host ]; then
		KVER=$k scripts/install-deps.sh build test arm64 >&2 || { echo "host dependencies failed to install"; return 1; }
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
			$deps >&2 || { echo "$deps not available on the host"; return 1; }
		return 0
	fi
	"$br" create "$root" >&2 || { echo "could not create the $root build root from $mirror"; return 1; }
	# shellcheck disable=SC2086
	"$br" install "$root" $ROOT_PKGS $CROSS_PKGS $deps >&2 || { echo "toolchain packages missing in $root"; return 1; }
	if [ "$root" = trixie ]; then
		"$br" install "$root" -t trixie-backports "bpftool>=7.8" >&2 || { echo "bpftool 7.8 missing in trixie-backports"; return 1; }
	fi
}

prepare() {	# prepare KVER ROOT: prints a reason and fails if it cannot
	local k=$1 root=$2
	if [ "$(karch "$k")" != amd64 ]; then prepare_cross "$k" "$root"; return; fi
	if [ "$root" = host ]; then
		KVER=$k scripts/install-deps.sh build vm test >&2 || { echo "host dependencies failed to install"; return 1; }
		[ -d "/lib/modules/$k/build" ] || {
			apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "linux-headers-$k" >&2 ||
				{ echo "linux-headers-$k not available on the host"; return 1; }
		}
		KVER=$k scripts/fetch-kernel.sh "$k" >&2 || { echo "no image package for $k"; return 1; }
		return 0
	fi
	"$br" create "$root" >&2 || { echo "could not create the $root build root from $mirror"; return 1; }
	# shellcheck disable=SC2086
	"$br" install "$root" $ROOT_PKGS >&2 || { echo "toolchain packages missing in $root"; return 1; }
	if [ "$root" = trixie ]; then
		"$br" install "$root" -t trixie-backports "bpftool>=7.8" >&2 || { echo "bpftool 7.8 missing in trixie-backports"; return 1; }
	fi
	"$br" install "$root" "linux-headers-$k" >&2 ||
		{ echo "linux-headers-$k cannot be fetched from the $root sources"; return 1; }
	inroot "$root" scripts/fetch-kernel.sh "$k" >&2 ||
		{ echo "no linux-binary-$k or linux-image-$k in the $root sources"; return 1; }
}

