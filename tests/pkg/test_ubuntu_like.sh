#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Ubuntu-like: kernel headers without vmlinux (as Ubuntu up to 25.10 ships
# them), the kernel image in /boot. In an overlay of the trixie build root
# with 7.3.4's headers stripped of vmlinux and /boot/vmlinuz-7.3.4 present:
# `apt install` of the .debs makes DKMS build the module with BTF from the
# ELF inside vmlinuz, and the VM runs the demo with it. Then without the
# image either, the build is refused with what was tried, nothing is
# installed, and dkms's kernel hook still succeeds.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
. tests/pkg/lib.sh
root=trixie
k=7.3.4+deb13-cloud-amd64
cache=${ITERKIT_CACHE:-/var/cache/iterkit}

pkg_test_begin ubuntu-like $root $k

ov=$(overlay_new ubuntu-like)
only_headers $root "$ov" $k
in_root $root "$ov" sh -c "rm -f /usr/src/linux-headers-$k/vmlinux /boot/vmlinuz-$k
	cp $cache/vmlinuz-$k /boot/vmlinuz-$k"
tap_check "7.3.4's headers have no vmlinux" in_root $root "$ov" test ! -e "/lib/modules/$k/build/vmlinux"
tap_check "/boot/vmlinuz-$k is there" in_root $root "$ov" test -f "/boot/vmlinuz-$k"

in_root $root "$ov" touch /var/tmp/iterkit-before-install
in_root $root "$ov" apt-get -o DPkg::Lock::Timeout=600 -y -q install \
	"$pkg/deb/iterkit-dkms_${ver}_all.deb" "$pkg/deb/iterkit_${ver}_amd64.deb" > "$src/install.log" 2>&1
tap_eq "apt install of both .debs" "$?" 0 || tap_diag "$(tail -n 30 "$src/install.log")"
tap_contains "DKMS built and installed it for $k" "$(in_root $root "$ov" dkms status iterkit)" \
	"iterkit/$ver, $k, x86_64: installed"
log=$(in_root $root "$ov" sh -c "cat /var/lib/dkms/iterkit/$ver/$k/x86_64/log/make.log")
tap_contains "its BTF base was the ELF inside /boot/vmlinuz" "$log" "BTF base: /boot/vmlinuz-$k (vmlinuz)"
tap_contains "its BTF uses the kernel's task_struct and cgroup" "$log" "has BTF that uses the kernel's task_struct and cgroup"
tap_eq "the build wrote nothing into the headers or /boot" \
	"$(in_root $root "$ov" find /usr/src/linux-headers-$k /usr/src/linux-headers-${k%-cloud-amd64}-common /boot -newer /var/tmp/iterkit-before-install)" ""

ko=$(dkms_ko_in $root "$ov" $k)
tap_check "module installed ($ko)" test -n "$ko"
out=$(vm_demo $root "$ov" "$src" $k "$ko" 2>&1)
tap_eq "demo with the module built from vmlinuz exits 0" "$?" 0 || tap_diag "$out"
tap_contains "kit_cgroup passes" "$out" "PASS kit_cgroup"
tap_contains "the VM ran the DKMS-built module" "$out" "$(ko_md5_in $root "$ov" "$ko")  iterkit.ko"

# -- neither vmlinux nor vmlinuz: refused, nothing installed, hook fine --
in_root $root "$ov" sh -c "dkms remove iterkit/$ver -k $k > /dev/null 2>&1; dkms add iterkit/$ver > /dev/null 2>&1; rm -f /boot/vmlinuz-$k"
out=$(in_root $root "$ov" dkms build -m iterkit -v "$ver" -k $k 2>&1)
tap_eq "without vmlinux or vmlinuz, dkms build is refused (exit 77)" "$?" 77 || tap_diag "$out"
tap_contains "the refusal names what was tried" "$out" "no BTF base for Linux $k: tried"
tap_contains "... and the package that would provide one" "$out" "linux-image-$k"
tap_eq "no module installed for $k" "$(in_root $root "$ov" sh -c "find /lib/modules/$k -name 'iterkit.ko*'")" ""
in_root $root "$ov" dkms autoinstall -k $k > "$src/hook.log" 2>&1
tap_eq "dkms autoinstall (the kernel hook) for it exits 0" "$?" 0 || tap_diag "$(cat "$src/hook.log")"

in_root $root "$ov" apt-get -o DPkg::Lock::Timeout=600 -y -q purge iterkit iterkit-dkms > /dev/null 2>&1
tap_eq "apt purge leaves dkms status empty" "$(in_root $root "$ov" dkms status iterkit)" ""
rm -rf "$ov"
tap_done
