#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds module/iterkit.ko for one kernel, the one way `make`, DKMS and the
# packages all use:
#
#   scripts/build-module.sh probe KVER KDIR   can iterkit be built for it?
#                                             (silent and 0, or the reason and 1)
#   scripts/build-module.sh build KVER KDIR   build, then check the module's BTF
#
# What it decides from the kernel itself, not from its version number:
# - open-coded iterator support: KF_ITER_NEW in the headers' linux/btf.h and
#   bpf_iter_num_new in the kernel's BTF (distribution kernels backport it);
# - module BTF: CONFIG_DEBUG_INFO_BTF_MODULES, and a BTF base for kbuild.
#   kbuild makes module BTF only against <headers>/vmlinux; where the headers
#   have none (Ubuntu, Fedora, RHEL, openSUSE) a private copy of the header
#   tree made of symlinks gets a vmlinux from, in this order:
#   /sys/kernel/btf/vmlinux (only when KVER is the running kernel), the ELF
#   inside /boot/vmlinuz-KVER or /lib/modules/KVER/vmlinuz, and
#   /boot/vmlinux-KVER.xz or .gz.
# After the build the module's BTF must describe its kfuncs and use the
# kernel's own task_struct and cgroup (kit-btf check).
#
# The kernel's features are decided here and nowhere else: `build` writes
# them to build/kbuild/KVER/features, one ITERKIT_<FEATURE>=y line each
# (make and sh read it alike). module/Kbuild builds what they allow; the
# tests gate on the same file, copied next to them (Makefile, build/tests).
#   ITERKIT_WALKERS      KF_RCU_PROTECTED and __next_thread(): kit_task,
#                        kit_cgroup and kit_cgroup_at (mainline 6.7)
#   ITERKIT_ITER_ARGS    plain kfuncs take a live iterator ("__iter"
#                        arguments, btf_check_iter_arg(), 6.12): the
#                        _capped() getters and bpf_iter_testmod_seq_value()
#   ITERKIT_KERNEL_TASK_CSS  the kernel has bpf_iter_task and bpf_iter_css
#                        itself (the tests compare the walkers with them)
#
# Everything it writes goes under build/kbuild/KVER/ next to this tree.
# Tests only: ITERKIT_ROOTFS prefixes /boot, /lib/modules and /sys, and
# ITERKIT_UNAME_R stands for the running kernel's release; ITERKIT_REDUP=0
# leaves out the second dedup pass (to show what the check catches);
# ITERKIT_WITHOUT="FEATURE..." builds as if the kernel lacked those features
# (the module of a 6.4-6.6 kernel, without the walkers: ITERKIT_WITHOUT=WALKERS).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
fs=${ITERKIT_ROOTFS:-}
running=${ITERKIT_UNAME_R:-$(uname -r)}

die() { echo "iterkit: $*" >&2; exit 1; }

usage() { echo "usage: build-module.sh probe|build KVER KDIR" >&2; exit 2; }
[ $# -ge 3 ] || usage
cmd=$1 kver=$2 kdir=$3
out=$top/build/kbuild/$kver

# The kernel source tree of a build tree: Debian's headers include the
# common part's Makefile; Fedora's and a full tree are their own source.
srctree() {
	local inc
	inc=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$kdir/Makefile" 2>/dev/null | head -n 1)
	if [ -n "$inc" ] && [ -d "$inc/include" ]; then echo "$inc"; else echo "$kdir"; fi
}

has_define() { grep -qs "#define[[:space:]]\+$1\b" "$2"; }

# Where a BTF base for this kernel can come from: prints "KIND PATH", or
# fails after printing what it tried.
find_base() {
	local f tried=()
	if [ -f "$kdir/vmlinux" ]; then echo "headers $kdir/vmlinux"; return 0; fi
	tried+=("$kdir/vmlinux")
	if [ "$kver" = "$running" ] && [ -r "$fs/sys/kernel/btf/vmlinux" ]; then
		echo "sysfs $fs/sys/kernel/btf/vmlinux"; return 0
	fi
	tried+=("/sys/kernel/btf/vmlinux (only for the running kernel, $running)")
	for f in "$fs/boot/vmlinuz-$kver" "$fs/lib/modules/$kver/vmlinuz"; do
		if [ -f "$f" ]; then echo "vmlinuz $f"; return 0; fi
		tried+=("${f#"$fs"}")
	done
	for f in "$fs/boot/vmlinux-$kver.xz" "$fs/boot/vmlinux-$kver.gz"; do
		if [ -f "$f" ]; then echo "packed-vmlinux $f"; return 0; fi
		tried+=("${f#"$fs"}")
	done
	local IFS=,
	echo "no BTF base for Linux $kver: tried ${tried[*]}. Install the kernel image next to its headers (Debian/Ubuntu: linux-image-$kver, Fedora/RHEL: kernel-core-$kver, openSUSE: kernel-default), or headers that ship vmlinux (Debian 12: linux-headers from bookworm-backports, 6.12.16 or newer)"
	return 1
}

# Prints why iterkit cannot be built for this kernel, or nothing.
why_not() {
	local src
	if [ ! -d "$kdir" ]; then
		echo "no kernel build tree at $kdir; install the kernel's headers (Debian/Ubuntu: linux-headers-$kver, Fedora/RHEL: kernel-devel-$kver, openSUSE: kernel-default-devel)"
		return
	fi
	src=$(srctree)
	if ! has_define KF_ITER_NEW "$src/include/linux/btf.h"; then
		echo "Linux $kver has no open-coded BPF iterator support (KF_ITER_NEW is not in its linux/btf.h; mainline has it from 6.4); not building for it."
		return
	fi
	if ! grep -qs '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$kdir/.config"; then
		echo "Linux $kver is built without CONFIG_DEBUG_INFO_BTF_MODULES, so no module of it can carry BTF and register kfuncs; not building for it."
		return
	fi
	find_base > /dev/null || find_base
}

# A C compiler for kit-btf: kbuild's host compiler, or the kernel's own.
host_cc() {
	local c
	for c in ${HOSTCC:-} gcc cc \
		"$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$kdir/.config" 2>/dev/null)"; do
		[ -n "$c" ] && command -v "$c" > /dev/null && { echo "$c"; return 0; }
	done
	return 1
}

# Unpacks the vmlinux ELF from a bzImage: its payload is the whole kernel,
# .BTF included, compressed with one of these. Tries every place the
# compressor's magic appears until one decompresses to an ELF with BTF.
unpack_vmlinuz() {
	local img=$1 dst=$2 magic tool off
	for magic in '\x28\xb5\x2f\xfd:zstd -dcq' '\xfd\x37\x7a\x58\x5a\x00:xz -dcq' \
		'\x1f\x8b\x08:gzip -dcq' '\x02\x21\x4c\x18:lz4 -dcq' '\x5d\x00\x00:lzma -dcq' \
		'BZh:bzip2 -dcq'; do
		tool=${magic#*:}
		command -v "${tool%% *}" > /dev/null || continue
		for off in $(LC_ALL=C grep -obUaP "${magic%%:*}" "$img" 2>/dev/null | cut -d: -f1 | head -n 8); do
			tail -c "+$((off + 1))" "$img" | $tool > "$dst" 2> /dev/null
			if [ "$(head -c 4 "$dst" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] &&
				"$out/kit-btf" has "$dst" 2> /dev/null; then
				return 0
			fi
		done
	done
	rm -f "$dst"
	return 1
}

# Puts the BTF base in $out/vmlinux (unless the headers have it) and prints
# the build tree kbuild should run in.
prepare_tree() {
	local kind=$1 path=$2 base=$out/vmlinux e
	case $kind in
	headers) echo "$kdir"; return 0 ;;
	sysfs) cp "$path" "$base.new" ;;
	vmlinuz)
		unpack_vmlinuz "$path" "$base.new" ||
			die "found no vmlinux with BTF inside $path (needs zstd, xz, gzip, lz4, lzma or bzip2 for its compression)"
		;;
	packed-vmlinux)
		case $path in
		*.xz) xz -dc "$path" > "$base.new" ;;
		*.gz) gzip -dc "$path" > "$base.new" ;;
		esac || die "cannot decompress $path"
		;;
	esac
	mv "$base.new" "$base"
	rm -rf "$out/tree"
	mkdir -p "$out/tree"
	for e in "$kdir"/* "$kdir"/.[!.]*; do
		[ -e "$e" ] || continue
		case $(basename "$e") in vmlinux | Makefile) continue ;; esac
		ln -s "$(readlink -f "$e")" "$out/tree/$(basename "$e")"
	done
	ln -s "$base" "$out/tree/vmlinux"
	# The Makefile is a copy: Debian's 7.x headers name their own directory
	# as KBUILD_OUTPUT, and kbuild rewrites the output tree's Makefile.
	sed -e "s|$(readlink -f "$kdir")|$out/tree|g" -e "s|$kdir|$out/tree|g" \
		"$kdir/Makefile" > "$out/tree/Makefile"
	echo "$out/tree"
}

# Decides each feature of the list above and writes the features file;
# prints them in one line.
features() {
	local src base=$1 name f=() have=()
	src=$(srctree)
	has_define KF_RCU_PROTECTED "$src/include/linux/btf.h" &&
		grep -qs '__next_thread' "$src/include/linux/sched/signal.h" && have+=(WALKERS)
	grep -qs 'btf_check_iter_arg' "$src/include/linux/btf.h" && have+=(ITER_ARGS)
	"$out/kit-btf" has "$base" bpf_iter_task_new bpf_iter_css_new && have+=(KERNEL_TASK_CSS)
	{
		echo "# Linux $kver's features for iterkit, found in its headers and BTF by scripts/build-module.sh"
		for name in "${have[@]}"; do
			[[ " ${ITERKIT_WITHOUT:-} " == *" $name "* ]] || echo "ITERKIT_$name=y"
		done
	} > "$out/features"
	for name in WALKERS ITER_ARGS KERNEL_TASK_CSS; do
		grep -qx "ITERKIT_$name=y" "$out/features" && f+=("$name") || f+=("no $name")
	done
	local IFS=,
	echo "features: ${f[*]}" | sed 's/,/, /g'
}

reason=$(why_not)
case $cmd in
probe)
	[ -z "$reason" ] && exit 0
	echo "$reason"
	exit 1
	;;
build) ;;
*) usage ;;
esac
[ -z "$reason" ] || die "$reason"

mkdir -p "$out"
cc=$(host_cc) || die "no C compiler found for scripts/kit-btf.c (install gcc)"
if [ ! -x "$out/kit-btf" ] || [ "$top/scripts/kit-btf.c" -nt "$out/kit-btf" ]; then
	"$cc" -O2 -Wall -o "$out/kit-btf" "$top/scripts/kit-btf.c" -ldl ||
		die "cannot build scripts/kit-btf.c with $cc"
fi

read -r kind path < <(find_base)
tree=$(prepare_tree "$kind" "$path") || exit 1
base=$tree/vmlinux
"$out/kit-btf" has "$base" bpf_iter_num_new ||
	die "Linux $kver has no open-coded BPF iterator support: its BTF ($path) has no bpf_iter_num_new; not building for it."
echo "iterkit: Linux $kver, headers $kdir, BTF base: $path${kind:+ ($kind)}; $(features "$base")"

ITERKIT_PAHOLE=$(command -v "${PAHOLE:-pahole}") ||
	die "pahole is needed for module BTF (Debian/Ubuntu: pahole, Fedora/RHEL/openSUSE: dwarves)"
export ITERKIT_PAHOLE ITERKIT_KIT_BTF=$out/kit-btf
[ "${ITERKIT_REDUP:-1}" = 0 ] && ITERKIT_KIT_BTF=
rm -f "$top/module/iterkit.ko"
${MAKE:-make} -C "$tree" M="$top" PAHOLE="sh $top/scripts/pahole-redup.sh" \
	ITERKIT_FEATURES="$out/features" modules || exit 1

ko=$top/module/iterkit.ko
if ! grep -q '[[:space:]]\.BTF[[:space:]]' <<<"$(readelf -S "$ko" 2> /dev/null)"; then
	rm -f "$ko"
	die "module/iterkit.ko was built without BTF, so its kfuncs could not be registered"
fi
if ! "$out/kit-btf" check "$ko" "$base"; then
	rm -f "$ko"
	die "module/iterkit.ko has unusable BTF (above); removed it"
fi
echo "iterkit: module/iterkit.ko has BTF that uses the kernel's task_struct and cgroup"
