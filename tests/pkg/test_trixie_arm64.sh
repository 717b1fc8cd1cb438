#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian 13 on arm64: an arm64 build root (its programs run under QEMU's
# user-mode emulator) with dkms 3.2 and the arm64 7.3.4 headers.
# - the loader package cross-builds for arm64 in the trixie root
#   (dpkg-buildpackage -a arm64) and lintian is clean;
# - `apt install` of iterkit-dkms and the arm64 iterkit package makes dkms
#   build the module there, natively, with BTF that uses the kernel's own
#   task_struct and cgroup;
# - the VM boots the stock arm64 7.3.4 kernel with that module and the
#   packaged loader, and the demo passes;
# - `apt purge` leaves nothing.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
. tests/pkg/lib.sh
root=trixie-arm64
k=7.3.4+deb13-cloud-arm64
# What iterkit-dkms needs besides itself, and the kernel's headers (with
# their gcc-14 and linux-kbuild, arm64 builds).
ARM64_ROOT_PKGS="dkms pahole libbpf1 zstd xz-utils kmod linux-headers-$k"

# --root: only the root and its packages. tests/run-all.sh starts this first,
# in the background: made under emulation, the root is the longest wait of a
# check-pkg with an empty cache, and the suites before this one need none of it.
if [ "${1:-}" = --root ]; then
	# shellcheck disable=SC2086
	"$br" create $root && "$br" install $root $ARM64_ROOT_PKGS
	exit
fi

prepare() {
	# Its own error line says when it is binfmt_misc or qemu-user that failed.
	pkg_step "cannot create the $root build root from $pkg_mirror" "$br" create $root || return 1
	# shellcheck disable=SC2086
	pkg_step "packages missing in $root" "$br" install $root $ARM64_ROOT_PKGS || return 1
	root_prepare trixie || return 1
	pkg_step "no headers or image of $k from $pkg_mirror" scripts/sysroot.sh kernel trixie-arm64 $k || return 1
	pkg_step "qemu-system-arm missing" scripts/install-deps.sh arm64 || return 1
}
why=$(prepare) || tap_unavailable "Debian 13 arm64 package tests" "$why"
src=$(src_copy $root)

# -- the packages: iterkit-dkms (all) from the trixie root, the loader cross-built --
pkg=$(root_packages trixie)
tap_eq "make deb rpm in the trixie root" "$?" 0 || tap_diag "$(tail -n 30 "$pkg/build-pkgs.log")"
cross=$(root_packages trixie arm64)
tap_eq "make deb DEB_ARCH=arm64 in the trixie root, /sys not mounted" "$?" 0 ||
	tap_diag "$(tail -n 30 "$cross/build-pkgs.log")"
dkms_deb=$pkg/deb/iterkit-dkms_${ver}_all.deb
tool_deb=$cross/deb/iterkit_${ver}_arm64.deb
tap_check "iterkit_${ver}_arm64.deb built" test -f "$tool_deb"
tap_eq "its Architecture" "$(dpkg-deb -f "$tool_deb" Architecture 2>&1)" arm64
x=$(mktemp -d)
dpkg-deb -x "$tool_deb" "$x"
tap_contains "its /usr/sbin/iterkit is an AArch64 program" "$(readelf -h "$x/usr/sbin/iterkit" 2>&1)" "AArch64"
rm -rf "$x"
ov=$(overlay_new $root-lint)
lint=$(in_root trixie "$ov" lintian --fail-on error,warning "$cross/deb/iterkit_${ver}_arm64.changes" 2>&1)
tap_eq "trixie's lintian on the arm64 package: no errors, no warnings" "$?" 0 || tap_diag "$lint"
rm -rf "$ov"

# -- install in the arm64 root: dkms builds the module there --
ov=$(overlay_new $root-dkms)
tap_contains "the arm64 root runs arm64 programs" "$(in_root $root "$ov" uname -m)" aarch64
tap_contains "dkms 3.2" "$(in_root $root "$ov" dkms --version 2>&1)" "dkms-3.2"
t0=$SECONDS
in_root $root "$ov" apt-get -o DPkg::Lock::Timeout=600 -y -q install "$dkms_deb" "$tool_deb" > "$src/install.log" 2>&1
tap_eq "apt install of both .debs (took $((SECONDS - t0)) s under emulation)" "$?" 0 || tap_diag "$(tail -n 30 "$src/install.log")"
st=$(in_root $root "$ov" dkms status iterkit)
tap_contains "dkms built and installed it for $k" "$st" "iterkit/$ver, $k, aarch64: installed"
log=$(in_root $root "$ov" sh -c "cat /var/lib/dkms/iterkit/$ver/$k/aarch64/log/make.log 2>/dev/null || cat /var/lib/dkms/iterkit/$ver/build/make.log")
tap_contains "the build said which BTF base it used" "$log" "BTF base: /lib/modules/$k/build/vmlinux (headers)"
tap_contains "its BTF uses the kernel's task_struct and cgroup" "$log" "has BTF that uses the kernel's task_struct and cgroup"

# -- that module and the packaged loader in the arm64 VM --
ko=$(dkms_ko_in $root "$ov" $k)
tap_check "module installed ($ko)" test -n "$ko"
mkdir -p "$src/arm64"
in_root $root "$ov" sh -c "cp $ko $src/arm64/ && cp /usr/sbin/iterkit $src/arm64/iterkit"
ko_out=$src/arm64/$(basename "$ko")
case $ko_out in *.xz) xz -dc "$ko_out" ;; *.zst) zstd -qdc "$ko_out" ;; *) cat "$ko_out" ;; esac > "$src/arm64/plain.ko"
tap_contains "the module is an AArch64 object" "$(readelf -h "$src/arm64/plain.ko" 2>&1)" AArch64
tap_contains "... with BTF" "$(readelf -S "$src/arm64/plain.ko" 2>&1)" " .BTF "
out=$(env KVER=$k ITERKIT_SYSROOT="$(scripts/sysroot.sh path trixie-arm64)" "$src/tests/vm/run" \
	--ko "$ko_out" --loader "$src/arm64/iterkit" -- \
	'uname -m && md5sum iterkit.ko && insmod iterkit.ko && iterkit demo' 2>&1)
rc=$?
tap_eq "demo with the DKMS-built module and the packaged loader exits 0" "$rc" 0 || tap_diag "$out"
tap_contains "the VM is arm64" "$out" aarch64
tap_contains "kit_cgroup passes (walked cgroups go to vmlinux's kfuncs)" "$out" "PASS kit_cgroup"
tap_contains "kit_task passes" "$out" "PASS kit_task"
tap_contains "the VM ran the DKMS-built module" "$out" "$(ko_md5_in $root "$ov" "$ko")  iterkit.ko"

# -- purge: nothing left --
in_root $root "$ov" apt-get -o DPkg::Lock::Timeout=600 -y -q purge iterkit iterkit-dkms > "$src/purge.log" 2>&1
tap_eq "apt purge" "$?" 0 || tap_diag "$(tail -n 20 "$src/purge.log")"
tap_eq "dkms status empty after purge" "$(in_root $root "$ov" dkms status iterkit)" ""
tap_eq "no iterkit module left under /lib/modules" \
	"$(in_root $root "$ov" sh -c 'find /lib/modules -name "iterkit.ko*"')" ""
rm -rf "$ov"
tap_done
