#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The build: the module carries BTF, and headers older than 6.4 stop the
# build with one message naming the minimum version (simulated by
# overriding the kernel version the build tree reports).
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
kdir=/lib/modules/$(scripts/kver.sh)/build

tap_check "module/iterkit.ko built" test -f module/iterkit.ko
tap_check "module/iterkit.ko has a .BTF section" sh -c 'readelf -S module/iterkit.ko | grep -q "\.BTF "'
tap_check "module/iterkit.ko has .BTF_ids (kfunc set resolved)" sh -c 'readelf -S module/iterkit.ko | grep -q "\.BTF_ids"'
tap_contains "module license is GPL" "$(modinfo -F license module/iterkit.ko 2>/dev/null || strings module/iterkit.ko | grep '^license=')" "GPL"

for old in "6 3" "6 1" "5 15"; do
	set -- $old
	d=$(mktemp -d)
	cp -r Kbuild module "$d/"
	rm -f "$d"/module/*.o "$d"/module/*.ko
	out=$(make -C "$kdir" M="$d" VERSION=$1 PATCHLEVEL=$2 2>&1)
	rc=$?
	msgs=$(grep -c 'iterkit needs Linux 6.4 or newer' <<<"$out")
	if [ $rc -ne 0 ] && [ "$msgs" = 1 ] && [ ! -e "$d/module/iterkit.ko" ]; then
		tap_ok "Linux $1.$2 headers: build stops with the minimum-version message"
	else
		tap_fail "Linux $1.$2 headers: build stops with the minimum-version message"
		tap_diag "exit $rc, message lines $msgs"
		tap_diag "$out"
	fi
	rm -rf "$d"
done

# 6.4 - 6.6: the build goes ahead without the walkers (they need 6.7).
d=$(mktemp -d)
cp -r Kbuild module "$d/"
rm -f "$d"/module/*.o "$d"/module/*.ko "$d"/module/.*.cmd
make -C "$kdir" M="$d" VERSION=6 PATCHLEVEL=6 >/dev/null 2>&1
tap_check "Linux 6.6 headers: kit_task/kit_cgroup left out of the build" \
	sh -c "[ -e '$d/module/iterkit_main.o' ] && [ ! -e '$d/module/kit_task.o' ] && [ ! -e '$d/module/kit_cgroup.o' ]"
rm -rf "$d"
# Headers without vmlinux: kbuild would skip BTF; iterkit stops instead.
d=$(mktemp -d)
cp -a "$(readlink -f "$kdir")" "$d/headers"
rm -f "$d/headers/vmlinux"
cp -r Kbuild module "$d/"
rm -f "$d"/module/*.o "$d"/module/*.ko
out=$(make -C "$d/headers" M="$d" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "iterkit needs module BTF, but .*vmlinux is missing; install kernel headers that ship vmlinux" <<<"$out" &&
	[ ! -e "$d/module/iterkit.ko" ]; then
	tap_ok "headers without vmlinux: build stops with the message, no module"
else
	tap_fail "headers without vmlinux: build stops with the message, no module"
	tap_diag "exit $rc"
	tap_diag "$out"
fi
rm -rf "$d"

# The post-build check that dkms.conf and `make` run refuses a BTF-less module.
d=$(mktemp -d)
objcopy --remove-section=.BTF module/iterkit.ko "$d/iterkit.ko"
out=$(sh scripts/check-btf.sh "$d/iterkit.ko" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ ! -e "$d/iterkit.ko" ] && grep -q "built without BTF" <<<"$out"; then
	tap_ok "check-btf.sh refuses and removes a module without .BTF"
else
	tap_fail "check-btf.sh refuses and removes a module without .BTF"
	tap_diag "exit $rc: $out"
fi
cp module/iterkit.ko "$d/iterkit.ko"
tap_check "check-btf.sh accepts module/iterkit.ko" sh scripts/check-btf.sh "$d/iterkit.ko"
rm -rf "$d"
tap_done
