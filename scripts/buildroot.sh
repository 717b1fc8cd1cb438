#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian build roots that iterkit creates and caches for itself, so that newer
# toolchains and kernels (trixie, trixie-backports, sid, experimental) never
# enter the host's apt sources: that would move the host's libc and libelf.
#
#   scripts/buildroot.sh create  ROOT          create it unless cached (mmdebstrap)
#   scripts/buildroot.sh update  ROOT          apt-get update + upgrade inside
#   scripts/buildroot.sh install ROOT [-t REL] PKG...   install what is missing
#   scripts/buildroot.sh run     ROOT [--no-sys] [--overlay DIR] -- CMD...
#   scripts/buildroot.sh path    ROOT          print where it lives
#   scripts/buildroot.sh list                  the roots this script knows
#
# ROOT is one of the names below; trixie-arm64 is an arm64 Debian 13 whose
# programs run under QEMU's user-mode emulator (registered with binfmt_misc
# here; slow, so only for what must run there: dkms and dpkg). `run` enters it in a private mount
# namespace (nothing stays mounted afterwards) with /proc, /dev, /sys (unless
# --no-sys), the project tree and iterkit's cache at the same paths as on the
# host; the current directory is kept when it is inside them. --overlay DIR
# runs in a throw-away copy: writes go to DIR, the cached root stays as it
# was (package tests install and purge there).
# Roots live in $ITERKIT_CACHE/roots (default /var/cache/iterkit/roots).
set -euo pipefail

CACHE=${ITERKIT_CACHE:-/var/cache/iterkit}
ROOTS=$CACHE/roots
top=$(cd "$(dirname "$0")/.." && pwd)
MIRROR=${ITERKIT_MIRROR:-http://deb.debian.org/debian}
SECURITY=${ITERKIT_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

die() { echo "buildroot: $*" >&2; exit 1; }
log() { echo "buildroot: $*" >&2; }

# The apt sources of each root. sid's and experimental's Release files carry
# a Valid-Until that a frozen mirror outlives, so expiry is not checked.
sources() {
	case $1 in
	trixie | trixie-arm64)
		echo "deb $MIRROR trixie main"
		echo "deb $MIRROR trixie-updates main"
		echo "deb $SECURITY trixie-security main"
		echo "deb $MIRROR trixie-backports main"
		;;
	sid)
		echo "deb $MIRROR sid main"
		echo "deb $MIRROR experimental main"
		;;
	*) die "unknown root '$1' (known: $(known))" ;;
	esac
}

known() { echo trixie sid trixie-arm64; }

suite() {
	case $1 in
	trixie | trixie-arm64) echo trixie ;;
	sid) echo sid ;;
	esac
}

# The root's architecture: the build machine's unless its name ends in one.
root_arch() {
	case $1 in
	*-arm64) echo arm64 ;;
	*) dpkg --print-architecture ;;
	esac
}

# Foreign roots run through qemu-user: the emulator is registered with
# binfmt_misc with the F flag (opened now, so it works inside the chroot
# without a copy there). Registrations do not survive a reboot.
binfmt() {
	local arch=$1 name conf
	[ "$arch" = "$(dpkg --print-architecture)" ] && return 0
	case $arch in
	arm64) name=qemu-aarch64 ;;
	*) die "no emulator known for $arch" ;;
	esac
	[ -f "/proc/sys/fs/binfmt_misc/$name" ] && return 0
	conf=/usr/lib/binfmt.d/$name.conf
	"$top/scripts/install-deps.sh" qemu-user >&2
	[ -f "$conf" ] || die "$conf is missing (qemu-user-binfmt)"
	mountpoint -q /proc/sys/fs/binfmt_misc ||
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
		die "cannot mount binfmt_misc: $arch programs cannot run here"
	[ -f "/proc/sys/fs/binfmt_misc/$name" ] || grep -v '^#' "$conf" > /proc/sys/fs/binfmt_misc/register ||
		die "cannot register $name with binfmt_misc"
	log "$name registered with binfmt_misc"
}

path() { echo "$ROOTS/$1"; }

apt_opts=(-o Acquire::Check-Valid-Until=false -o DPkg::Lock::Timeout=600 -o APT::Keep-Downloaded-Packages=true)

# Runs a command inside ROOT. Mounts are made in a new mount namespace and
# vanish with it.
enter() {
	local name=$1 sys=1 overlay=
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--no-sys) sys=; shift ;;
		--overlay) overlay=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || die "run: no command"
	local dir
	dir=$(path "$name")
	[ -f "$dir/.iterkit-root" ] || die "root '$name' does not exist: scripts/buildroot.sh create $name"
	binfmt "$(root_arch "$name")"
	mkdir -p "$CACHE"
	ITERKIT_BR_DIR=$dir ITERKIT_BR_SYS=$sys ITERKIT_BR_OVERLAY=$overlay \
	ITERKIT_BR_TOP=$top ITERKIT_BR_CACHE=$CACHE ITERKIT_BR_PWD=$PWD \
		unshare --mount --propagation private -- bash -c '
		set -e
		dir=$ITERKIT_BR_DIR
		if [ -n "$ITERKIT_BR_OVERLAY" ]; then
			mkdir -p "$ITERKIT_BR_OVERLAY"/{upper,work,merged}
			mount -t overlay overlay -o "lowerdir=$dir,upperdir=$ITERKIT_BR_OVERLAY/upper,workdir=$ITERKIT_BR_OVERLAY/work" \
				"$ITERKIT_BR_OVERLAY/merged"
			dir=$ITERKIT_BR_OVERLAY/merged
		fi
		mount -t proc proc "$dir/proc"
		mount --rbind /dev "$dir/dev"
		if [ -n "$ITERKIT_BR_SYS" ]; then mount --rbind /sys "$dir/sys"; fi
		mount -t tmpfs tmpfs "$dir/tmp"
		for d in "$ITERKIT_BR_TOP" "$ITERKIT_BR_CACHE"; do
			mkdir -p "$dir$d"
			mount --bind "$d" "$dir$d"
		done
		cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
		exec chroot "$dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" ITERKIT_CACHE="$ITERKIT_BR_CACHE" \
			ITERKIT_ROOT="$(basename "$ITERKIT_BR_DIR")" \
			/bin/sh -c '"'"'cd "$0" 2>/dev/null || cd /; exec "$@"'"'"' "$ITERKIT_BR_PWD" "$@"
	' buildroot "$@"
}

create() {
	local name=$1 dir
	dir=$(path "$name")
	sources "$name" > /dev/null
	[ -f "$dir/.iterkit-root" ] && return 0
	command -v mmdebstrap > /dev/null || {
		log "installing mmdebstrap on the host (bookworm)"
		DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends mmdebstrap > /dev/null
	}
	mkdir -p "$ROOTS"
	# One creator at a time (two legs may race); the winner's root is kept.
	exec 8> "$ROOTS/.$name.lock"
	flock 8
	[ -f "$dir/.iterkit-root" ] && { exec 8>&-; return 0; }
	rm -rf "$dir" "$dir.new"
	log "creating the $name root in $dir"
	local srcs=()
	mapfile -t srcs < <(sources "$name")
	if [ "$(root_arch "$name")" != "$(dpkg --print-architecture)" ]; then
		"$top/scripts/install-deps.sh" qemu-user >&2
		binfmt "$(root_arch "$name")"
	fi
	mmdebstrap --quiet --variant=apt --include=ca-certificates --arch="$(root_arch "$name")" \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--aptopt='APT::Install-Recommends "false"' \
		--aptopt='APT::Keep-Downloaded-Packages "true"' \
		--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--essential-hook='echo "Binary::apt::APT::Keep-Downloaded-Packages \"true\";" > "$1/etc/apt/apt.conf.d/01keep"' \
		"$(suite "$name")" "$dir.new" "${srcs[@]}"
	echo "$name" > "$dir.new/.iterkit-root"
	mv "$dir.new" "$dir"
	exec 8>&-
}

updated_marker() { echo "$(path "$1")/var/lib/apt/.iterkit-updated"; }

# A cached root keeps the sources it was created with: when the mirror asked
# for now (ITERKIT_MIRROR, ITERKIT_SECURITY_MIRROR) differs, the root's
# sources become the current ones and its package lists are fetched from
# there (fetch-kernel.sh in the root downloads with them too).
sync_sources() {
	local name=$1 list want
	list=$(path "$name")/etc/apt/sources.list
	[ -f "$list" ] || return 0
	want=$(sources "$name")
	[ "$(cat "$list")" = "$want" ] && return 0
	log "$name: sources now from $MIRROR"
	printf '%s\n' "$want" > "$list.new"
	mv "$list.new" "$list"
	rm -f "$(updated_marker "$name")"
	enter "$name" -- apt-get "${apt_opts[@]}" update -qq
	touch "$(updated_marker "$name")"
}

update() {
	local name=$1
	create "$name"
	sync_sources "$name"
	enter "$name" -- apt-get "${apt_opts[@]}" update -qq
	enter "$name" -- env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" -y -qq upgrade > /dev/null
	touch "$(updated_marker "$name")"
}

# Packages (NAME or NAME>=VERSION) not yet installed in the root.
missing() {
	local name=$1
	shift
	enter "$name" -- bash -c '
		for p in "$@"; do
			n=${p%%>=*}; min=${p#"$n"}; min=${min#>=}
			v=$(dpkg-query -W -f="\${Status} \${Version}\n" "$n" 2>/dev/null | sed -n "s/^install ok installed //p")
			if [ -z "$v" ] || { [ -n "$min" ] && dpkg --compare-versions "$v" lt "$min"; }; then echo "$n"; fi
		done' _ "$@"
}

install() {
	local name=$1 rel=()
	shift
	if [ "${1:-}" = -t ]; then rel=(-t "$2"); shift 2; fi
	create "$name"
	local need
	sync_sources "$name"
	need=$(missing "$name" "$@")
	[ -z "$need" ] && return 0
	# The package lists are refreshed at most once a day.
	local m
	m=$(updated_marker "$name")
	if [ ! -f "$m" ] || [ -n "$(find "$m" -mmin +1440)" ]; then
		enter "$name" -- apt-get "${apt_opts[@]}" update -qq
		touch "$m"
	fi
	log "$name: installing" $need
	# shellcheck disable=SC2086
	enter "$name" -- env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq \
		--no-install-recommends "${rel[@]}" $need > /dev/null
}

cmd=${1:-}
[ -n "$cmd" ] || { sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
shift
[ "$(id -u)" = 0 ] || die "must run as root (chroot, mounts)"
case $cmd in
create) create "${1:?root}" ;;
update) update "${1:?root}" ;;
install) install "$@" ;;
run) name=${1:?root}; shift; enter "$name" "$@" ;;
path) path "${1:?root}" ;;
list) known ;;
*) die "unknown command '$cmd'" ;;
esac
