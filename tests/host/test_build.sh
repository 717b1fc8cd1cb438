#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module build (scripts/build-module.sh, what `make`, DKMS and the
# packages run): the module carries BTF that uses vmlinux's types; the BTF
# base comes from the headers' vmlinux, /sys/kernel/btf/vmlinux (running
# kernel only), the ELF inside vmlinuz, or a packed vmlinux, in that order;
# kernels without open-coded iterators are refused by what their headers
# say, not by their version. Each case builds in a copy of the tree against
# a copy of the 6.12 header tree with one thing taken away.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
kver=$(scripts/kver.sh)
kdir=$(readlink -f "/lib/modules/$kver/build")
common=$(sed -n 's/^include \(.*\)\/Makefile$/\1/p' "$kdir/Makefile")
common=${common:-$kdir}
image=${ITERKIT_CACHE:-/var/cache/iterkit}/vmlinuz-$kver
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tap_check "module/iterkit.ko built" test -f module/iterkit.ko
tap_check "module/iterkit.ko has a .BTF section" sh -c 'readelf -S module/iterkit.ko | grep -q "\.BTF "'
tap_check "module/iterkit.ko has .BTF_ids (kfunc set resolved)" sh -c 'readelf -S module/iterkit.ko | grep -q "\.BTF_ids"'
tap_contains "module license is GPL" "$(modinfo -F license module/iterkit.ko 2>/dev/null)" "GPL"

# tree NAME: a copy of the module's sources and build scripts.
tree() {
	rm -rf "${work:?}/$1"
	mkdir -p "$work/$1"
	make -s install-dkms-src DKMS_SRC="$work/$1" > /dev/null
	echo "$work/$1"
}

# headers NAME [vmlinux]: the 6.12 header tree as symlinks, with vmlinux
# only when asked.
headers() {
	local d=$work/$1-headers e
	rm -rf "$d"
	mkdir -p "$d"
	for e in "$kdir"/* "$kdir"/.[!.]*; do
		[ -e "$e" ] || continue
		[ "$(basename "$e")" = vmlinux ] && [ "${2:-}" != vmlinux ] && continue
		ln -s "$(readlink -f "$e")" "$d/$(basename "$e")"
	done
	echo "$d"
}

# build NAME KDIR [env...]: runs the build in tree NAME; output in $work/NAME.log.
build() {
	local name=$1 k=$2
	shift 2
	env "$@" bash "$work/$name/scripts/build-module.sh" build "$kver" "$k" > "$work/$name.log" 2>&1
}

base_of() { sed -n 's/.*BTF base: \(.*\);.*/\1/p' "$work/$1.log"; }

# builds_ok NAME DESCRIPTION UNAME: tree NAME, built against headers without
# vmlinux while the running kernel is UNAME, must yield a module.
builds_ok() {
	local t
	t=$(tree "$1")
	if build "$1" "$(headers "$1")" ITERKIT_ROOTFS="$fs" ITERKIT_UNAME_R="$3" &&
		[ -f "$t/module/iterkit.ko" ]; then
		tap_ok "$2"
	else
		tap_fail "$2"
		tap_diag "$(tail -n 20 "$work/$1.log")"
	fi
}

# -- the BTF base, in order --
fs=$work/rootfs
mkdir -p "$fs/boot" "$fs/sys/kernel/btf" "$fs/lib/modules/$kver"
cp "$image" "$fs/boot/vmlinuz-$kver"
xz -T0 -1 -c "$kdir/vmlinux" > "$fs/boot/vmlinux-$kver.xz"
objcopy --dump-section .BTF="$fs/sys/kernel/btf/vmlinux" "$kdir/vmlinux" "$work/discard.o"

t=$(tree headers)
build headers "$(headers headers vmlinux)" ITERKIT_ROOTFS="$fs" ITERKIT_UNAME_R="$kver"
tap_contains "headers with vmlinux: used first, before sysfs and vmlinuz" "$(base_of headers)" "/vmlinux (headers)"

builds_ok sysfs "no vmlinux, running kernel: built against /sys/kernel/btf/vmlinux" "$kver"
tap_contains "sysfs base reported" "$(base_of sysfs)" "/sys/kernel/btf/vmlinux (sysfs)"

builds_ok vmlinuz "no vmlinux, another kernel: built against the ELF inside /boot/vmlinuz" another-kernel
tap_contains "vmlinuz base reported (sysfs skipped: not the running kernel)" "$(base_of vmlinuz)" "/boot/vmlinuz-$kver (vmlinuz)"
objcopy --dump-section .BTF="$work/headers.btf" "$kdir/vmlinux" "$work/discard.o"
objcopy --dump-section .BTF="$work/unpacked.btf" "$work/vmlinuz/build/kbuild/$kver/vmlinux" "$work/discard.o" 2>/dev/null
tap_check "the ELF unpacked from vmlinuz has the headers' .BTF, byte for byte" cmp -s "$work/headers.btf" "$work/unpacked.btf"
tap_contains "the module built from vmlinuz uses vmlinux's task_struct and cgroup" "$(cat "$work/vmlinuz.log")" \
	"module/iterkit.ko has BTF that uses the kernel's task_struct and cgroup"

rm "$fs/boot/vmlinuz-$kver"
builds_ok packed "no vmlinux, no vmlinuz: built against /boot/vmlinux-<kver>.xz (openSUSE)" another-kernel
tap_contains "packed vmlinux base reported" "$(base_of packed)" "/boot/vmlinux-$kver.xz (packed-vmlinux)"

rm "$fs/boot/vmlinux-$kver.xz"
t=$(tree none)
build none "$(headers none)" ITERKIT_ROOTFS="$fs" ITERKIT_UNAME_R=another-kernel
rc=$?
msg=$(cat "$work/none.log")
tap_check "no BTF base at all: the build fails, no module" sh -c "[ $rc -ne 0 ] && [ ! -e '$t/module/iterkit.ko' ]"
tap_contains "the refusal names what it tried" "$msg" "no BTF base for Linux $kver: tried"
tap_contains "... including vmlinuz" "$msg" "/boot/vmlinuz-$kver"
tap_contains "... and which package provides one" "$msg" "linux-image-$kver"
tap_eq "probe says the same, in one line" \
	"$(ITERKIT_ROOTFS=$fs ITERKIT_UNAME_R=another-kernel bash "$t/scripts/build-module.sh" probe "$kver" "$work/none-headers" 2>&1 | wc -l)" 1

# -- feature detection: a header tree whose linux/btf.h lacks a feature --
# (the common headers behind an overlay in a private mount namespace)
without() {	# without DEFINE NAME CMD...: runs CMD with DEFINE gone from btf.h
	local def=$1 name=$2 up=$work/$2-upper
	shift 2
	mkdir -p "$up/include/linux" "$work/$name-ovl"
	grep -v "define[[:space:]]*$def\b" "$common/include/linux/btf.h" > "$up/include/linux/btf.h"
	unshare --mount --propagation private -- sh -c '
		mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1" || exit 99
		shift 3
		exec "$@"' _ "$common" "$up" "$work/$name-ovl" "$@"
}

# -- plain kbuild: refused with the command to use --
t=$(tree plain)
out=$(make -C "$kdir" M="$t" 2>&1)
rc=$?
tap_check "plain kbuild (make -C ... M=) refuses to build" sh -c "[ $rc -ne 0 ] && [ ! -e '$t/module/iterkit.ko' ]"
tap_contains "... saying why and what to run instead" "$out" "build with \`make module KVER=$kver\`"

t=$(tree noiter)
out=$(without KF_ITER_NEW noiter bash "$t/scripts/build-module.sh" build "$kver" "$kdir" 2>&1)
rc=$?
tap_check "headers without KF_ITER_NEW: build refused, no module" sh -c "[ $rc -ne 0 ] && [ $rc -ne 99 ] && [ ! -e '$t/module/iterkit.ko' ]"
tap_contains "the refusal says the kernel has no open-coded iterator support" "$out" \
	"Linux $kver has no open-coded BPF iterator support"
t=$(tree norcu)
without KF_RCU_PROTECTED norcu bash "$t/scripts/build-module.sh" build "$kver" "$kdir" > "$work/norcu.log" 2>&1
syms=$(readelf -sW "$t/module/iterkit.ko" 2>/dev/null | awk '{ print $8 }')
tap_eq "headers without KF_RCU_PROTECTED: the walkers are left out of the build" \
	"$(grep -cx bpf_iter_kit_num_new <<<"$syms")/$(grep -cxE 'bpf_iter_kit_(task|cgroup|cgroup_at)_new' <<<"$syms")" "1/0"
tap_eq "... the features file says so, which is what the tests read" \
	"$(grep -c '^ITERKIT_' "$t/build/kbuild/$kver/features")/$(grep -c '^ITERKIT_WALKERS=y' "$t/build/kbuild/$kver/features")" "2/0"
tap_eq "the full headers: every feature in the tree's features file" \
	"$(grep '^ITERKIT_' "build/kbuild/$kver/features" | tr '\n' ' ')" \
	"ITERKIT_WALKERS=y ITERKIT_ITER_ARGS=y ITERKIT_KERNEL_TASK_CSS=y "

# -- build/vmlinux.h follows the kernel it is built for --
d=$work/vmlinuxh
mkdir -p "$d/other"
git ls-files -co --exclude-standard -z | cpio -0 -pdm --quiet "$d/src"
printf '/* another kernel */\nstruct kit_other_kernel { int x; };\n' > "$d/other/vmlinux.h"
make -s -C "$d/src" build/vmlinux.h KVER="$kver" > /dev/null 2>&1
first=$(grep -c 'struct task_struct {' "$d/src/build/vmlinux.h" 2>/dev/null)
make -s -C "$d/src" build/vmlinux.h KVER=other KDIR="$d/other" > /dev/null 2>&1
tap_check "vmlinux.h dumped from the target's headers, then replaced for another kernel's" \
	sh -c "[ '$first' = 1 ] && grep -q kit_other_kernel '$d/src/build/vmlinux.h'"
make -s -C "$d/src" build/vmlinux.h KVER="$kver" > /dev/null 2>&1
tap_check "... and back, when KVER is the first kernel again" grep -q 'struct task_struct {' "$d/src/build/vmlinux.h"
out=$(make -s -C "$d/src" build/vmlinux.h KVER=none KDIR="$d/nowhere" MULTIARCH=none 2>&1)
tap_contains "no source for vmlinux.h: an error naming them, never the running kernel's /sys" "$out" \
	"iterkit: no vmlinux.h source: none of $d/nowhere/vmlinux"

# -- kit-btf check: what the build refuses --
kb=build/kbuild/$kver/kit-btf
objcopy --remove-section=.BTF module/iterkit.ko "$work/nobtf.ko"
out=$("$kb" check "$work/nobtf.ko" "$kdir/vmlinux" 2>&1)
rc=$?
tap_check "kit-btf check refuses a module without .BTF" test "$rc" -ne 0
tap_contains "... saying so" "$out" "has no .BTF section"
# A module whose BTF was made against a base without task_struct defines
# its own copy, which the walkers' kfuncs could not share with vmlinux's.
printf 'int kit_small_base;\n' > "$work/small.c"
gcc -g -c "$work/small.c" -o "$work/small.o" && pahole -J "$work/small.o" 2>/dev/null
objcopy --remove-section=.BTF --remove-section=.BTF.base module/iterkit.ko "$work/own.ko"
pahole -J --btf_base "$work/small.o" "$work/own.ko" 2>/dev/null
out=$("$kb" check "$work/own.ko" "$work/small.o" 2>&1)
rc=$?
tap_check "kit-btf check refuses a module with its own task_struct and cgroup" test "$rc" -ne 0
tap_contains "... naming task_struct" "$out" "defines its own struct task_struct instead of referring to vmlinux's"
tap_contains "... and cgroup" "$out" "defines its own struct cgroup"
tap_check "kit-btf check accepts module/iterkit.ko" "$kb" check module/iterkit.ko "$kdir/vmlinux"
tap_done
