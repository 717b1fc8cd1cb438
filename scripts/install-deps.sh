#!/bin/bash
# Installs what iterkit needs on Debian 12 (bookworm), from bookworm and
# bookworm-backports only. Idempotent: installs only what is missing. In a
# newer Debian (the project's trixie/sid build roots, a Debian 13 machine)
# the same packages come from that release's own sources.
#   scripts/install-deps.sh [build] [vm] [test] [pkg] [bench] [debug] [system] [release] [arm64] [qemu-user] [fleet]
#   (default: build vm test pkg; bench, debug and system only when asked, by
#   make bench, make check-debug and make system-test; arm64 by the matrix's
#   arm64 kernels, and qemu-user by the arm64 build root, scripts/buildroot.sh)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")

CACHE=${ITERKIT_CACHE:-/var/cache/iterkit}
BPO_FILE=/etc/apt/sources.list.d/iterkit-bookworm-backports.list
want=${*:-build vm test pkg}

log() { echo "install-deps: $*" >&2; }

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

have_backports() {
	grep -rqsE '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ ||
		grep -rqsE '^Suites:.*bookworm-backports' /etc/apt/sources.list.d/
}

updated=
apt_update() {
	[ -n "$updated" ] && return
	as_root apt-get update -qq
	updated=1
}

if [ "$codename" = bookworm ] && ! have_backports; then
	log "adding bookworm-backports to apt sources ($BPO_FILE)"
	echo "deb http://deb.debian.org/debian bookworm-backports main" | as_root tee "$BPO_FILE" >/dev/null
	apt_update
fi

# Prints the packages not installed, or installed older than NAME>=VERSION asks.
missing() {
	local p name min ver
	for p in "$@"; do
		name=${p%%>=*}
		min=${p#"$name"}
		min=${min#>=}
		ver=$(dpkg-query -W -f='${Status} ${Version}\n' "$name" 2>/dev/null |
			sed -n 's/^install ok installed //p' | head -n 1)
		if [ -z "$ver" ] || { [ -n "$min" ] && dpkg --compare-versions "$ver" lt "$min"; }; then
			echo "$name"
		fi
	done
}

install() {	# install [-t release] pkgs...
	local rel=()
	if [ "$1" = -t ]; then
		# Only bookworm needs its backports; newer releases have these.
		[ "$codename" = bookworm ] && rel=(-t "$2")
		shift 2
	fi
	local need
	need=$(missing "$@")
	[ -z "$need" ] && return 0
	apt_update
	log "installing:" $need
	# shellcheck disable=SC2086
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
		"${rel[@]}" $need >/dev/null
}

# Newer libbpf (bpf_for_each, 1.4) and bpftool (7.5) than bookworm's, and the
# 6.12 cloud kernel headers with a BTF vmlinux and resolve_btfids.
if [[ " $want " == *" build "* ]]; then
	install make gcc clang llvm pahole libelf-dev zlib1g-dev libzstd-dev pkg-config xz-utils
	install -t bookworm-backports "libbpf-dev>=1:1.4" "bpftool>=7.5" linux-headers-cloud-amd64
fi

kver() { "$(dirname "$0")/kver.sh"; }

# The VM boots the stock kernel whose headers we build against.
if [[ " $want " == *" vm "* ]]; then
	install busybox-static cpio
	# bookworm's QEMU 7.2 crashes or hangs about one boot in three under TCG
	# with two vCPUs (SLUB cmpxchg16b); the backported 10.0 boots reliably.
	install -t bookworm-backports "qemu-system-x86>=1:10"
	k=$(KVER=${KVER:-} kver)
	if [ ! -f "$CACHE/vmlinuz-$k" ]; then
		log "fetching linux-image-$k for the VM"
		tmp=$(mktemp -d)
		(cd "$tmp" && apt_update && apt-get download -qq "linux-image-$k" 2>/dev/null ||
			apt-get download -qq "linux-image-$k-unsigned")
		dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/x"
		as_root mkdir -p "$CACHE"
		as_root cp "$tmp/x/boot/vmlinuz-$k" "$CACHE/vmlinuz-$k"
		rm -rf "$tmp"
	fi
fi

# kselftest_harness.h and checkpatch.pl come from Debian's kernel source
# package, extracted at build time (never copied into the repository).
if [[ " $want " == *" test "* ]]; then
	install perl python3
	install -t bookworm-backports linux-source-6.12
	src=$CACHE/linux-src
	if [ ! -f "$src/.done" ]; then
		tarball=$(ls /usr/src/linux-source-6.12.tar.xz)
		log "extracting kselftest harness and checkpatch from $tarball"
		as_root mkdir -p "$src"
		as_root tar -xJf "$tarball" -C "$src" --strip-components=1 --wildcards \
			'*/tools/testing/selftests/kselftest.h' \
			'*/tools/testing/selftests/kselftest_harness.h' \
			'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch'
		as_root touch "$src/.done"
	fi
fi

# The debug kernel of `make check-debug` (scripts/debug-kernel.sh) is built
# from linux-source-6.12 with bookworm's gcc and pahole.
if [[ " $want " == *" debug "* ]]; then
	install -t bookworm-backports linux-source-6.12
	install bc bison flex libssl-dev libelf-dev pahole cpio
fi

# arm64 kernels from this amd64 machine: the cross gcc and binutils for the
# loader and tests (the kernel's own cross gcc comes with it, see
# scripts/sysroot.sh build-deps), mmdebstrap for the arm64 sysroots, and
# QEMU's arm64 system emulator for the VM (10.0, like the x86 one).
if [[ " $want " == *" arm64 "* ]]; then
	install gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu mmdebstrap
	install -t bookworm-backports "qemu-system-arm>=1:10"
fi

# Running arm64 programs in a build root (dkms, dpkg, apt in an arm64
# Debian): QEMU's user-mode emulator, registered with binfmt_misc by
# scripts/buildroot.sh, and arch-test, which mmdebstrap uses to check it.
if [[ " $want " == *" qemu-user "* ]]; then
	install arch-test
	install -t bookworm-backports "qemu-user-static>=1:10"
fi

# make kmod-image and make check-fleet: the OCI image built from unpacked
# Debian packages (mmdebstrap, umoci), a registry on 127.0.0.1
# (docker-registry) and a client that pushes and pulls by digest (skopeo),
# and the KMM Module checked against KMM's CRD schema (python3-jsonschema).
if [[ " $want " == *" fleet "* ]]; then
	install mmdebstrap umoci skopeo docker-registry python3-jsonschema python3-yaml kmod
fi

# make bench: its report (python3), plots (gnuplot) and procps ps to compare with.
if [[ " $want " == *" bench "* ]]; then
	install python3 gnuplot-nox procps
fi

# make system-test: disk images built without loop devices (mmdebstrap,
# mkfs.ext4 -d, mkfs.vfat + mtools, sfdisk), qcow2 overlays, UEFI firmware
# with Secure Boot (ovmf), and virt-fw-vars to enrol a MOK offline.
if [[ " $want " == *" system "* ]]; then
	install mmdebstrap e2fsprogs dosfstools mtools fdisk ovmf qemu-utils openssl
	install -t bookworm-backports python3-virt-firmware "qemu-system-x86>=1:10"
fi

# make release: the apt repository (aptly: bookworm's reprepro keeps one
# version of a package per suite), the dnf one (createrepo_c), OpenPGP
# signatures (gnupg), and what shows why two builds differ.
if [[ " $want " == *" release "* ]]; then
	install aptly createrepo-c gnupg xz-utils git diffoscope-minimal
fi

# Packages: the tools, then whatever debian/control's Build-Depends lists
# that dpkg-checkbuilddeps still finds missing.
if [[ " $want " == *" pkg "* ]]; then
	install build-essential dkms dh-dkms debhelper dpkg-dev lintian rpm rpmlint fakeroot
	need=$(cd "$top" && dpkg-checkbuilddeps 2>&1 | sed -n 's/.*[Uu]nmet build dependencies: //p' |
		sed -E 's/\([^)]*\)//g; s/\|[^ ]*//g; s/:(native|any)//g' || true)
	# shellcheck disable=SC2086
	[ -z "$need" ] || install -t bookworm-backports $need
fi

# make deb DEB_ARCH=<arch>: the cross gcc (crossbuild-essential) and the
# package's build dependencies for that architecture (multiarch: dpkg learns
# the architecture).
for w in $want; do
	case $w in cross-*) ;; *) continue ;; esac
	arch=${w#cross-}
	install dpkg-dev
	if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		log "adding $arch to dpkg's architectures (for the cross build)"
		as_root dpkg --add-architecture "$arch"
		updated=
	fi
	need=$(cd "$top" && dpkg-checkbuilddeps -a "$arch" 2>&1 | sed -n 's/.*[Uu]nmet build dependencies: //p' |
		sed -E 's/\([^)]*\)//g; s/\|[^ ]*//g; s/:any//g' || true)
	# Build dependencies with :native are this machine's packages; the
	# others are the target's.
	need=$(for p in $need; do case $p in *:native) echo "${p%:native}" ;; *) echo "$p:$arch" ;; esac; done)
	# shellcheck disable=SC2086
	install -t bookworm-backports "crossbuild-essential-$arch" $need
done
