#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian 13 (dkms 3.2, gcc-14, pahole 1.30), in an overlay of the project's
# trixie build root:
# - the .debs and RPMs build there with dpkg-buildpackage and rpmbuild,
#   without /sys mounted, and lintian and rpmlint are clean;
# - `apt install` of both .debs with 7.3.4 headers present builds and
#   installs the module for 7.3.4, and pkg-config finds iterkit-dev's
#   headers; installing 7.2.12's headers afterwards
#   builds it for 7.2.12 through dkms's kernel hook;
# - on 7.2.12 the build's BTF check is what keeps a module whose walkers
#   could not load out: without the second dedup pass dkms fails;
# - the VM boots each kernel with its DKMS-built module and the packaged
#   loader, and the demo passes;
# - the examples, copied out of the installed iterkit-dev and built with
#   trixie's libbpf, clang and bpftool, run in the VM on 7.3.4, and so do
#   threads-go and threads-rs built from those copies with Debian 13's Go
#   and Rust packages (tests/examples/test_loaders.sh);
# - `apt purge` leaves nothing: dkms status empty, no module, no sources.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
. tests/pkg/lib.sh
root=trixie
k73=7.3.4+deb13-cloud-amd64
k72=7.2.12+deb13-cloud-amd64

why=$(root_prepare $root $k73 $k72) || tap_unavailable "Debian 13 package tests" "$why"
# shellcheck disable=SC2046
why=$(pkg_step "the Go and Rust loaders' packages missing in $root" \
	"$br" install $root $(tests/examples/build-loaders.sh --packages)) ||
	tap_unavailable "Debian 13 package tests" "$why"
src=$(src_copy $root)

# -- the packages, built in the root without /sys --
pkg=$(root_packages $root)
tap_eq "make deb rpm in the trixie root, /sys not mounted" "$?" 0 || tap_diag "$(tail -n 30 "$pkg/build-pkgs.log")"
dkms_deb=$pkg/deb/iterkit-dkms_${ver}_all.deb
tool_deb=$pkg/deb/iterkit_${ver}_amd64.deb
dev_deb=$pkg/deb/iterkit-dev_${ver}_all.deb
tap_check "the three .debs built" test -f "$dkms_deb" -a -f "$tool_deb" -a -f "$dev_deb"
tap_check "the RPMs built" sh -c "ls $pkg/rpm/RPMS/noarch/iterkit-dkms-$ver-*.rpm $pkg/rpm/RPMS/x86_64/iterkit-$ver-*.rpm > /dev/null"
ov=$(overlay_new $root-lint)
lint=$(in_root $root "$ov" lintian --fail-on error,warning "$pkg/deb/iterkit_${ver}_amd64.changes" 2>&1)
tap_eq "trixie's lintian: no errors, no warnings" "$?" 0 || tap_diag "$lint"
lint=$(in_root $root "$ov" make -s -C "$src" rpmlint RPM_DIR="$pkg/rpm" 2>&1)
tap_contains "trixie's rpmlint: no errors, no warnings" "$lint" "0 errors, 0 warnings"
rm -rf "$ov"

# -- install with 7.3.4 headers only --
ov=$(overlay_new $root-dkms)
only_headers $root "$ov" $k73
have=$(in_root $root "$ov" sh -c 'ls -d /lib/modules/*/build' | tr '\n' ' ')
tap_eq "the root starts with 7.3.4's headers alone" "$have" "/lib/modules/$k73/build "
# The build root is minimal: its dpkg leaves out /usr/share/doc, where
# iterkit-dev's examples go. A Debian 13 from the installer keeps it.
in_root $root "$ov" rm -f /etc/dpkg/dpkg.cfg.d/99mmdebstrap
in_root $root "$ov" apt-get -o DPkg::Lock::Timeout=600 -y -q install "$dkms_deb" "$tool_deb" "$dev_deb" > "$src/install.log" 2>&1
tap_eq "apt install of the three .debs" "$?" 0 || tap_diag "$(tail -n 30 "$src/install.log")"
st=$(in_root $root "$ov" dkms status iterkit)
tap_contains "dkms 3.2 built and installed it for $k73" "$st" "iterkit/$ver, $k73, x86_64: installed"
log73=$(in_root $root "$ov" sh -c "cat /var/lib/dkms/iterkit/$ver/$k73/x86_64/log/make.log 2>/dev/null || cat /var/lib/dkms/iterkit/$ver/build/make.log")
tap_contains "the build said which BTF base it used" "$log73" "BTF base: /lib/modules/$k73/build/vmlinux (headers)"

pc_check "trixie, iterkit-dev installed" in_root $root "$ov"

# -- another kernel's headers: built through dkms's kernel hook --
in_root $root "$ov" apt-get -o DPkg::Lock::Timeout=600 -y -q install "linux-headers-$k72" > "$src/install72.log" 2>&1
tap_eq "apt install of linux-headers-$k72" "$?" 0 || tap_diag "$(tail -n 30 "$src/install72.log")"
st=$(in_root $root "$ov" dkms status iterkit)
tap_contains "the kernel hook built and installed it for $k72" "$st" "iterkit/$ver, $k72, x86_64: installed"
log72=$(in_root $root "$ov" sh -c "cat /var/lib/dkms/iterkit/$ver/$k72/x86_64/log/make.log 2>/dev/null")
tap_contains "on 7.2.12 the second dedup pass merged the module's copy of vmlinux types" "$log72" "module types deduplicated to"
tap_contains "... and the check passed" "$log72" "has BTF that uses the kernel's task_struct and cgroup"

# -- both DKMS-built modules in the VM --
for k in $k73 $k72; do
	ko=$(dkms_ko_in $root "$ov" $k)
	tap_check "$k: module installed ($ko)" test -n "$ko"
	out=$(vm_demo $root "$ov" "$src" $k "$ko" 2>&1)
	rc=$?
	tap_eq "$k: demo with the DKMS-built module and the packaged loader exits 0" "$rc" 0 || tap_diag "$out"
	tap_contains "$k: kit_cgroup passes (walked cgroups go to vmlinux's kfuncs)" "$out" "PASS kit_cgroup"
	tap_contains "$k: kit_task passes" "$out" "PASS kit_task"
	tap_contains "$k: the VM ran the DKMS-built module" "$out" "$(ko_md5_in $root "$ov" "$ko")  iterkit.ko"
done

# -- the examples, as a user with the packages builds and runs them --
lb=$(in_root $root "$ov" pkg-config --modversion libbpf)
EXAMPLES_LOADERS=1 examples_check "examples ($k73, libbpf $lb)" $k73 "$(dkms_ko_in $root "$ov" $k73)" "$src" "$src/examples" \
	in_root $root "$ov"

# -- without the second dedup pass, dkms fails on 7.2.12 and installs nothing --
out=$(in_root $root "$ov" env ITERKIT_REDUP=0 dkms build -m iterkit -v "$ver" -k $k72 --force 2>&1)
rc=$?
tap_check "without the dedup pass the 7.2.12 build fails" test "$rc" -ne 0
log=$(in_root $root "$ov" sh -c "cat /var/lib/dkms/iterkit/$ver/build/make.log 2>/dev/null")
tap_contains "... because the module's BTF has its own task_struct" "$log$out" "defines its own struct task_struct instead of referring to vmlinux's"
tap_check "... and no module was left for 7.2.12" sh -c "! $br run $root --overlay $ov -- sh -c 'ls /var/lib/dkms/iterkit/$ver/$k72/x86_64/module/iterkit.ko* 2>/dev/null'"
in_root $root "$ov" dkms install -m iterkit -v "$ver" -k $k72 --force > /dev/null 2>&1
tap_contains "rebuilt with the dedup pass, it installs again" "$(in_root $root "$ov" dkms status iterkit)" "iterkit/$ver, $k72, x86_64: installed"

# -- purge: nothing left --
in_root $root "$ov" apt-get -o DPkg::Lock::Timeout=600 -y -q purge iterkit iterkit-dkms iterkit-dev > "$src/purge.log" 2>&1
tap_eq "apt purge" "$?" 0 || tap_diag "$(tail -n 20 "$src/purge.log")"
tap_eq "dkms status empty after purge" "$(in_root $root "$ov" dkms status iterkit)" ""
tap_eq "no iterkit module left under /lib/modules" \
	"$(in_root $root "$ov" sh -c 'find /lib/modules -name "iterkit.ko*"')" ""
tap_eq "no sources left in /usr/src or /var/lib/dkms, no header in /usr/include" \
	"$(in_root $root "$ov" sh -c 'ls -d /usr/src/iterkit-* /var/lib/dkms/iterkit /usr/include/iterkit 2>/dev/null')" ""
rm -rf "$ov"
tap_done
