#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fedora-like: in an overlay of the trixie build root made to look like
# Fedora to dkms (/etc/os-release ID=fedora, dkms 3.2), a kernel whose
# header tree has no vmlinux and whose image is /lib/modules/<kver>/vmlinuz
# (Fedora's place): `rpm -i` of the RPMs runs %post, which builds and
# installs the module through dkms with BTF from that vmlinuz; pkg-config
# finds iterkit-devel's headers through its iterkit.pc; the VM runs
# the demo with it; `rpm -e` runs %preun and leaves nothing behind.
# rpm's database here is empty, so --nodeps is needed: every requirement of
# the RPMs is listed below with the Debian package that provides it under
# another name, and the test fails if one is missing.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
. tests/pkg/lib.sh
root=trixie
k=7.3.4+deb13-cloud-amd64
cache=${ITERKIT_CACHE:-/var/cache/iterkit}

pkg_test_begin fedora-like $root $k
rpms=$(ls "$pkg"/rpm/RPMS/noarch/iterkit-dkms-"$ver"-*.rpm "$pkg"/rpm/RPMS/x86_64/iterkit-"$ver"-*.rpm \
	"$pkg"/rpm/RPMS/noarch/iterkit-devel-"$ver"-*.rpm | tr '\n' ' ')

ov=$(overlay_new fedora-like)
only_headers $root "$ov" $k
in_root $root "$ov" sh -c "rm -f /usr/src/linux-headers-$k/vmlinux /boot/vmlinuz-*
	cp $cache/vmlinuz-$k /lib/modules/$k/vmlinuz
	rpm --initdb"
fedora_like $root "$ov"
tap_check "the root says it is Fedora" in_root $root "$ov" grep -qx ID=fedora /etc/os-release
tap_check "headers without vmlinux, image at /lib/modules/$k/vmlinuz" in_root $root "$ov" \
	sh -c "[ ! -e /lib/modules/$k/build/vmlinux ] && [ -f /lib/modules/$k/vmlinuz ] && ! ls /boot/vmlinuz-* 2>/dev/null"

# What --nodeps stands in for: each requirement and what provides it here.
# (requirement|how this Debian root provides it)
provided() {
	case $1 in
	dkms) in_root $root "$ov" sh -c 'command -v dkms' ;;
	dwarves) in_root $root "$ov" sh -c 'command -v pahole' ;;
	zstd | xz) in_root $root "$ov" sh -c "command -v $1" ;;
	libbpf-devel) in_root $root "$ov" sh -c 'pkg-config --atleast-version=1.2 libbpf && echo "libbpf-dev $(pkg-config --modversion libbpf)"' ;;
	/bin/sh | /bin/bash | /usr/bin/pkg-config) in_root $root "$ov" test -x "$1" && echo "$1" ;;
	pkgconfig\(*\)) p=${1#pkgconfig(}; p=${p%)}; in_root $root "$ov" pkg-config --exists "$p" && echo "$p.pc" ;;
	rpmlib\(*) echo rpm ;;
	rtld\(GNU_HASH\)) echo libc6 ;;
	lib*.so.*) in_root $root "$ov" sh -c "ldconfig -p | grep -m1 '${1%%(*} ' | sed 's/.*=> //'" ;;
	esac
}
missing=
for r in $(rpm -qpR $rpms 2>/dev/null | sed 's/ .*//' | sort -u); do
	p=$(provided "$r")
	if [ -n "$p" ]; then tap_diag "--nodeps: $r provided by $p"; else missing="$missing $r"; fi
done
tap_eq "every requirement of the RPMs is provided by a Debian package here" "$missing" ""

in_root $root "$ov" rpm -i --nodeps $rpms > "$src/rpm-install.log" 2>&1
tap_eq "rpm -i of iterkit, iterkit-dkms and iterkit-devel" "$?" 0 || tap_diag "$(tail -n 30 "$src/rpm-install.log")"
pc_check "iterkit-devel installed" in_root $root "$ov"
tap_contains "%post: dkms built and installed it for $k" "$(in_root $root "$ov" dkms status iterkit)" \
	"iterkit/$ver, $k, x86_64: installed"
log=$(in_root $root "$ov" sh -c "cat /var/lib/dkms/iterkit/$ver/$k/x86_64/log/make.log")
tap_contains "its BTF base was the ELF inside /lib/modules/$k/vmlinuz" "$log" "BTF base: /lib/modules/$k/vmlinuz (vmlinuz)"
tap_contains "its BTF uses the kernel's task_struct and cgroup" "$log" "has BTF that uses the kernel's task_struct and cgroup"

ko=$(dkms_ko_in $root "$ov" $k)
tap_check "module installed ($ko)" test -n "$ko"
out=$(vm_demo $root "$ov" "$src" $k "$ko" 2>&1)
tap_eq "demo with the RPM-installed module and loader exits 0" "$?" 0 || tap_diag "$out"
tap_contains "kit_cgroup passes" "$out" "PASS kit_cgroup"
tap_contains "the VM ran the DKMS-built module" "$out" "$(ko_md5_in $root "$ov" "$ko")  iterkit.ko"

files=$(in_root $root "$ov" rpm -qla | grep -v '^(contains no files)' | sort -u)
in_root $root "$ov" rpm -e iterkit-dkms iterkit iterkit-devel > "$src/rpm-erase.log" 2>&1
tap_eq "rpm -e of all three" "$?" 0 || tap_diag "$(cat "$src/rpm-erase.log")"
tap_eq "%preun: dkms status empty" "$(in_root $root "$ov" dkms status iterkit)" ""
owned=$(for f in $files; do in_root $root "$ov" rpm -qf "$f" 2>/dev/null; done | grep -v 'not owned' || true)
tap_eq "no file still owned by an iterkit package" "$owned" ""
left=$(for f in $files; do in_root $root "$ov" sh -c "[ -e '$f' ] && [ ! -d '$f' ] && echo '$f'"; done)
tap_eq "no packaged file left on disk" "$left" ""
tap_eq "nothing of iterkit under /usr/src, /var/lib/dkms or /lib/modules" \
	"$(in_root $root "$ov" sh -c 'find /usr/src /var/lib/dkms /lib/modules -name "iterkit*"')" ""
rm -rf "$ov"
tap_done
