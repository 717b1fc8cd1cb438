# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by scripts/modules-debs.sh and scripts/kmod-image.sh (after
# scripts/kernel-prep.sh): iterkit's module built ahead of time for one
# Debian kernel, the way the fleet packages and the KMM image ship it.
#   prebuilt_kernels [KVER...]   "KVER SUITE" lines of packaging/prebuilt/kernels
#                                (those asked for, or all); fails on one not listed
#   suite_release SUITE          its Debian release: trixie-backports -> trixie
#   suite_tag SUITE              its version tag: deb12, deb13
#   suite_root SUITE             the root that builds for it: host or trixie
#   suite_moddir SUITE           where its release's packages put modules
#   signing_pair DIR             sets $key and $cert: MODULE_SIGNING_KEY and
#                                MODULE_SIGNING_CERT, or a throw-away pair in DIR
#   prebuilt_prepare KVER ROOT WORK
#                                KVER's toolchain and headers in ROOT (apt runs:
#                                one at a time)
#   prebuilt_build KVER ROOT WORK KO [LOADER]
#                                the module for a prepared KVER, stripped and
#                                signed with $key/$cert, at KO; with LOADER the
#                                iterkit loader for that kernel's release and
#                                architecture there too (builds of different
#                                kernels may run side by side)
#   prebuilt_module KVER ROOT WORK KO [LOADER]
#                                both
PREBUILT_LIST=packaging/prebuilt/kernels

prebuilt_log() { echo "${prebuilt_name:-prebuilt}: $*" >&2; }
prebuilt_die() { prebuilt_log "$*"; exit 1; }

prebuilt_kernels() {
	local all k line sel=
	all=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PREBUILT_LIST" | awk '{ print $1, $2 }')
	[ $# -gt 0 ] || { echo "$all"; return; }
	for k in "$@"; do
		line=$(awk -v k="$k" '$1 == k' <<<"$all")
		[ -n "$line" ] || prebuilt_die "$k is not in $PREBUILT_LIST"
		sel+=$line$'\n'
	done
	echo "${sel%$'\n'}"
}

suite_release() { echo "${1%-backports}"; }
suite_tag() {
	case $(suite_release "$1") in bookworm) echo deb12 ;; trixie) echo deb13 ;; *) prebuilt_die "unknown suite $1" ;; esac
}
# This machine is Debian 12: bookworm builds on it, others in their root.
suite_root() { [ "$(suite_release "$1")" = bookworm ] && echo host || suite_release "$1"; }
# Debian 13's /lib is a link to /usr/lib; its packages use the latter.
suite_moddir() { [ "$(suite_tag "$1")" = deb12 ] && echo lib/modules || echo usr/lib/modules; }
triplet_of() { case $1 in arm64) echo aarch64-linux-gnu ;; *) echo x86_64-linux-gnu ;; esac; }

signing_pair() {
	local dir=$1
	key=${MODULE_SIGNING_KEY:-}
	cert=${MODULE_SIGNING_CERT:-}
	if [ -z "$key" ] || [ -z "$cert" ]; then
		key=$dir/signing_key.pem cert=$dir/signing_key.x509.pem
		if [ ! -f "$key" ] || [ ! -f "$cert" ]; then
			mkdir -p "$dir"
			openssl req -new -x509 -newkey rsa:3072 -nodes -utf8 -sha256 -days 3650 -batch \
				-subj "/CN=iterkit module signing key (throw-away)/" \
				-addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=digitalSignature" \
				-addext "extendedKeyUsage=codeSigning" \
				-keyout "$key" -out "$cert" 2> "$dir/openssl.log" ||
				prebuilt_die "openssl could not make a signing key: $(tail -n 1 "$dir/openssl.log")"
		fi
		prebuilt_log "no MODULE_SIGNING_KEY/MODULE_SIGNING_CERT: signing with the throw-away key in $dir"
	fi
	[ -r "$key" ] || prebuilt_die "MODULE_SIGNING_KEY $key cannot be read"
	openssl x509 -in "$cert" -noout 2> /dev/null || prebuilt_die "MODULE_SIGNING_CERT $cert is not a PEM certificate"
}

prebuilt_prepare() {
	local k=$1 root=$2 work=$3 why
	mkdir -p "$work"
	prebuilt_log "$k: preparing its toolchain and headers in the $root root"
	why=$(prepare "$k" "$root" 2> "$work/prepare-$k.log") || prebuilt_die "$k: $why (log: $work/prepare-$k.log)"
}

prebuilt_build() {
	local k=$1 root=$2 work=$3 ko=$4 loader=${5:-} src hash sign_file args targets=module
	# sign-file from any kbuild on this host: its format is the same for every kernel.
	sign_file=$(ls /usr/lib/linux-kbuild-*/scripts/sign-file 2> /dev/null | sort -V | tail -n 1)
	[ -x "$sign_file" ] || prebuilt_die "no sign-file: install a linux-headers package (scripts/install-deps.sh build)"
	src=$work/src-$k
	rm -rf "$src"
	mkdir -p "$src"
	# The tree's files (from a release's tarball: all but build/).
	if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
		git ls-files -co --exclude-standard -z | cpio -0 -pdmu --quiet "$src"
	else
		tar -cf - --exclude=./build . | tar -xf - -C "$src"
	fi
	# The build's path out of the debug info, so that the build ID (kept
	# when that is stripped) is the same wherever the module is built.
	args=(KVER="$k" KCFLAGS="-ffile-prefix-map=$src=.")
	if [ "$(karch "$k")" != amd64 ]; then
		args+=(KDIR="$(kdir_of "$k" "$root")")
		[ -z "$loader" ] || args+=(SYSROOT="$(scripts/sysroot.sh path "$(sysroot_of "$k" "$root")")")
	fi
	[ -z "$loader" ] || targets="module loader"
	prebuilt_log "$k: make $targets"
	# shellcheck disable=SC2086
	inroot "$root" make -C "$src" "${args[@]}" $targets > "$work/build-$k.log" 2>&1 ||
		prebuilt_die "$k: make $targets failed (log: $work/build-$k.log: $(tail -n 1 "$work/build-$k.log"))"
	mkdir -p "$(dirname "$ko")"
	# What DKMS does too: debug info goes (the BTF stays), then the signature.
	inroot "$root" "$(triplet_of "$(karch "$k")")-objcopy" --strip-debug "$src/module/iterkit.ko" "$ko"
	readelf -S "$ko" | grep -q '[[:space:]]\.BTF[[:space:]]' || prebuilt_die "$k: the stripped module lost its BTF"
	hash=$(inroot "$root" sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' "$(kdir_of "$k" "$root")/.config")
	"$sign_file" "${hash:-sha256}" "$key" "$cert" "$ko" || prebuilt_die "$k: sign-file failed"
	if [ -n "$loader" ]; then
		mkdir -p "$(dirname "$loader")"
		cp "$src/iterkit" "$loader"
	fi
	rm -rf "$src"
}

prebuilt_module() {
	prebuilt_prepare "$1" "$2" "$3"
	prebuilt_build "$@"
}
