#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The packages, for real, on this Debian 12 machine (dkms 3.0.10): build the
# .debs, install them with apt (DKMS builds the module for the installed
# 6.12 headers while bookworm's 6.1 headers, which have no open-coded
# iterators, are also installed), pkg-config finds the installed headers
# (iterkit.pc), boot the DKMS-built module with the packaged loader, build
# the examples from a copy of the installed
# iterkit-dev's (bookworm-backports' libbpf) and run them in the VM,
# reinstall the 6.1 headers. The prebuilt packages (make modules-debs):
# built, lintian-clean and signed; installed, one takes the module over
# from DKMS for its kernel, and DKMS builds it again when it goes. Purge.
# Then the RPMs: built with rpmbuild, rpmlint-clean, file lists and
# scriptlets checked.
# The machine is left as found: what this installs, it removes.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
. tests/pkg/lib.sh
ver=$(cat VERSION)
kver=$(scripts/kver.sh)
export DEBIAN_FRONTEND=noninteractive
apt_q() { apt-get -o DPkg::Lock::Timeout=600 -y -q "$@" > /tmp/iterkit-apt.log 2>&1 || { cat /tmp/iterkit-apt.log; return 1; }; }

# Start from a machine without iterkit: no packages, no DKMS trees left
# behind by an earlier, interrupted run.
left=$(dpkg-query -W -f '${Package} ${Status}\n' 'iterkit*' 2> /dev/null | awk '$NF == "installed" { print $1 }')
[ -z "$left" ] || apt_q purge $left
for mv in $(dkms status iterkit 2>/dev/null | sed -n 's|^\(iterkit/[^,]*\),.*|\1|p' | sort -u); do
	dkms remove "$mv" --all >/dev/null 2>&1
done
rm -rf /var/lib/dkms/iterkit /usr/src/iterkit-*

# -- build and lint --
if make -s deb > /tmp/iterkit-deb.log 2>&1; then tap_ok "make deb"; else tap_fail "make deb"; tap_diag "$(tail -20 /tmp/iterkit-deb.log)"; fi
dkms_deb=build/pkg/deb/iterkit-dkms_${ver}_all.deb
tool_deb=build/pkg/deb/iterkit_${ver}_amd64.deb
dev_deb=build/pkg/deb/iterkit-dev_${ver}_all.deb
tap_check "iterkit-dkms_${ver}_all.deb built" test -f "$dkms_deb"
tap_check "iterkit_${ver}_amd64.deb built" test -f "$tool_deb"
tap_check "iterkit-dev_${ver}_all.deb built" test -f "$dev_deb"
tap_contains "iterkit-dkms is Architecture: all" "$(dpkg-deb -f "$dkms_deb" Architecture)" all
tap_contains "iterkit-dkms depends on dkms" "$(dpkg-deb -f "$dkms_deb" Depends)" dkms
c=$(dpkg-deb -c "$dkms_deb")
for f in dkms.conf $(make -s print-dkms-files); do
	tap_contains "iterkit-dkms ships /usr/src/iterkit-$ver/$f" "$c" "./usr/src/iterkit-$ver/$f"
done
tap_check "iterkit-dkms ships no build products" sh -c "! dpkg-deb -c $dkms_deb | grep -E '\\.(o|ko|mod\\.c)\$'"
tap_eq "dkms.conf carries the package version" \
	"$(dpkg-deb --fsys-tarfile "$dkms_deb" | tar -xOf - ./usr/src/iterkit-$ver/dkms.conf | sed -n 's/^PACKAGE_VERSION=//p')" "\"$ver\""
c=$(dpkg-deb -c "$tool_deb")
for f in usr/sbin/iterkit usr/share/man/man8/iterkit.8.gz usr/lib/modules-load.d/iterkit.conf; do
	tap_contains "iterkit ships /$f" "$c" "./$f"
done
tap_check "iterkit ships no module source" sh -c "! dpkg-deb -c $tool_deb | grep -q usr/src"
tap_check "iterkit ships no header (iterkit-dev does)" sh -c "! dpkg-deb -c $tool_deb | grep -q usr/include"
tap_contains "iterkit-dev is Architecture: all" "$(dpkg-deb -f "$dev_deb" Architecture)" all
tap_contains "iterkit-dev depends on libbpf-dev 1.2 or newer" "$(dpkg-deb -f "$dev_deb" Depends)" "libbpf-dev (>= 1:1.2)"
devx=$(mktemp -d)
dpkg-deb -x "$dev_deb" "$devx"
tap_check "iterkit-dev ships bpf/iterkit.bpf.h as /usr/include/iterkit/iterkit.bpf.h" \
	cmp -s bpf/iterkit.bpf.h "$devx/usr/include/iterkit/iterkit.bpf.h"
tap_check "... and bpf/iterkit_defs.h, which it includes, beside it" \
	cmp -s bpf/iterkit_defs.h "$devx/usr/include/iterkit/iterkit_defs.h"
tap_check "iterkit-dev ships examples/ as they are in /usr/share/doc/iterkit-dev/examples" \
	diff -r examples "$devx/usr/share/doc/iterkit-dev/examples"
tap_eq "iterkit-dev ships nothing else" \
	"$(cd "$devx" && find . -type f ! -path './usr/share/doc/iterkit-dev/examples/*' | sort | tr '\n' ' ')" \
	"./usr/include/iterkit/iterkit.bpf.h ./usr/include/iterkit/iterkit_defs.h ./usr/share/doc/iterkit-dev/changelog.gz ./usr/share/doc/iterkit-dev/copyright ./usr/share/pkgconfig/iterkit.pc "
tap_eq "iterkit-dev's iterkit.pc has VERSION's version" \
	"$(sed -n 's/^Version: //p' "$devx/usr/share/pkgconfig/iterkit.pc")" "$ver"
rm -rf "$devx"

# Before iterkit-dev is installed, an example's Makefile says what is missing.
exd=$(mktemp -d)
cp -r examples/minimal "$exd/"
out=$(make -C "$exd/minimal" KVER="$kver" 2>&1)
tap_eq "without iterkit-dev, make in a copy of examples/minimal fails" "$?" 2
tap_contains "... and names the package" "$out" "minimal: pkg-config finds no iterkit: install iterkit-dev (Debian, Ubuntu) or iterkit-devel (Fedora, RHEL)"
rm -rf "$exd"
lint=$(lintian --fail-on error,warning "build/pkg/deb/iterkit_${ver}_amd64.changes" 2>&1)
tap_eq "lintian: no errors, no warnings" "$?" 0 || tap_diag "$lint"
tap_eq "versions agree (VERSION, debian/changelog, iterkit.spec and its newest %changelog entry, CHANGELOG.md's newest entry)" \
	"$(dpkg-parsechangelog -S Version) $(sed -n 's/^Version: *//p' iterkit.spec) $(sed -n '/^%changelog/,$ s/^\* .* - \([0-9.]*\)-[0-9]*$/\1/p' iterkit.spec | head -n 1) $(sed -n 's/^## \([0-9.]*\) .*/\1/p' CHANGELOG.md | head -n 1)" \
	"$ver $ver $ver $ver"

# -- bookworm's 6.1 headers next to the 6.12 ones --
old=$(apt-cache depends linux-headers-amd64 2>/dev/null | sed -n 's/.*Depends: \(linux-headers-6\.1\.[^ ]*\)/\1/p' | head -n 1)
oldk=${old#linux-headers-}
had_old=
dpkg -s "$old" >/dev/null 2>&1 && had_old=1
if [ -z "$old" ]; then
	tap_fail "bookworm's 6.1 headers package found (apt-cache depends linux-headers-amd64)"
# What that install brings, from apt's own plan of it: only these are purged
# at the end, whatever else the host installs meanwhile.
elif brought=$(apt-get -s install --no-install-recommends "$old" 2>/dev/null |
		sed -n 's/^Inst \([^ ]*\) .*/\1/p') &&
	{ [ -n "$had_old" ] || apt_q install --no-install-recommends "$old"; }; then
	tap_ok "bookworm's 6.1 headers installed ($old)"
else
	tap_fail "bookworm's 6.1 headers installed ($old)"
fi

# -- install with apt: DKMS builds for 6.12, refuses 6.1, the postinst succeeds --
if apt-get -o DPkg::Lock::Timeout=600 install -y -q "./$dkms_deb" "./$tool_deb" "./$dev_deb" > /tmp/iterkit-install.log 2>&1; then
	tap_ok "apt-get install of the three packages succeeds"
else
	tap_fail "apt-get install of the three packages succeeds"
	tap_diag "$(tail -30 /tmp/iterkit-install.log)"
fi
st=$(dkms status iterkit 2>/dev/null)
tap_contains "dkms status: installed for $kver" "$st" "iterkit/$ver, $kver, x86_64: installed"
tap_check "dkms status: nothing for $oldk" bash -c "! grep -q '$oldk' <<<\"\$1\"" _ "$st"
tap_contains "6.1 refused: no open-coded iterator support (found in its headers)" "$(cat /tmp/iterkit-install.log)" \
	"iterkit: Linux $oldk has no open-coded BPF iterator support"
ko=$(ls /lib/modules/"$kver"/updates/dkms/iterkit.ko* 2>/dev/null | head -n 1)
tap_check "module installed in /lib/modules/$kver/updates/dkms" test -n "$ko"
tap_check "no module installed for $oldk" sh -c "! ls /lib/modules/$oldk/updates/dkms/iterkit.ko* 2>/dev/null"
tmpko=$(mktemp --suffix=.ko)
case $ko in *.xz) xz -dc "$ko" > "$tmpko" ;; *) cp "$ko" "$tmpko" ;; esac
tap_check "the DKMS-built module has BTF" sh -c "readelf -S $tmpko | grep -q ' \\.BTF '"
rm -f "$tmpko"
tap_contains "modules-load.d loads iterkit at boot" "$(cat /usr/lib/modules-load.d/iterkit.conf)" iterkit
pc_check "iterkit-dev installed"

# -- the DKMS-built module and the packaged loader in the VM --
out=$(tests/vm/run --ko "$ko" --loader /usr/sbin/iterkit -- 'md5sum iterkit.ko && insmod iterkit.ko && iterkit demo' 2>&1)
rc=$?
tap_eq "demo with the DKMS-built module exits 0" "$rc" 0
[ "$rc" = 0 ] || tap_diag "$out"
tap_contains "demo: kit_num passes in the kernel" "$out" "PASS kit_num"
tap_contains "demo: testmod_seq passes in the kernel" "$out" "PASS testmod_seq"
tap_contains "the VM ran the DKMS-built module" "$out" "$(xz -dcf "$ko" | md5sum | cut -d' ' -f1)  iterkit.ko"

# -- the examples, as a user with the packages builds and runs them --
examples_check "examples ($kver, libbpf $(pkg-config --modversion libbpf))" "$kver" "$ko" "$PWD" \
	"$PWD/build/pkg-roots/bookworm-examples"

# -- 6.1 headers: reinstall, and the dkms kernel hook, still succeed --
if [ -n "$old" ]; then
	if apt_q install --reinstall --no-install-recommends "$old"; then
		tap_ok "reinstalling $old succeeds with iterkit-dkms installed"
	else
		tap_fail "reinstalling $old succeeds with iterkit-dkms installed"
		tap_diag "$(tail -20 /tmp/iterkit-apt.log)"
	fi
	/etc/kernel/header_postinst.d/dkms "$oldk" > /tmp/iterkit-hook.log 2>&1
	tap_eq "dkms header hook for $oldk exits 0" "$?" 0
	# Control: without dkms.conf's 3.0.10 workaround (autoinstall declined
	# for a kernel it cannot build for), the hook fails here on this dkms.
	conf=/usr/src/iterkit-$ver/dkms.conf
	cp "$conf" /tmp/iterkit-dkms.conf.orig
	sed -i 's/^\t\t\tAUTOINSTALL=""$/\t\t\t:/' "$conf"
	tap_check "control: the workaround line was there to take out" sh -c "! cmp -s $conf /tmp/iterkit-dkms.conf.orig"
	/etc/kernel/header_postinst.d/dkms "$oldk" > /dev/null 2>&1
	naive=$?
	cp /tmp/iterkit-dkms.conf.orig "$conf"
	tap_check "control: a plain BUILD_EXCLUSIVE design breaks the hook here (exit $naive)" test "$naive" -ne 0
fi

# -- a supported kernel with neither vmlinux in its headers nor a vmlinuz:
#    refused with what was tried, and the kernel hook still succeeds --
fake=6.12.95-iterkit-nobase
if [ ! -e /lib/modules/$fake ]; then
	mkdir -p /lib/modules/$fake
	cp -a "$(readlink -f /lib/modules/$kver/build)" /lib/modules/$fake/build
	rm -f /lib/modules/$fake/build/vmlinux
	out=$(dkms build "iterkit/$ver" -k $fake 2>&1)
	rc=$?
	tap_eq "dkms build without vmlinux or vmlinuz is refused (exit 77)" "$rc" 77
	tap_contains "refusal names what was tried" "$out" "no BTF base for Linux $fake: tried"
	tap_check "no module built without a BTF base" sh -c "! ls /var/lib/dkms/iterkit/$ver/$fake/*/module/iterkit.ko* 2>/dev/null"
	/etc/kernel/header_postinst.d/dkms $fake > /tmp/iterkit-hook2.log 2>&1
	tap_eq "dkms header hook without a BTF base exits 0" "$?" 0
	rm -rf /lib/modules/$fake /var/lib/dkms/iterkit/$ver/$fake
fi

# -- the prebuilt packages (make modules-debs): the module for $kver comes
#    from iterkit-modules-$kver instead of DKMS, and back when it goes --
gen=6.12.95+deb12-amd64
mdir=build/modules-debs/bookworm
if scripts/modules-debs.sh "$kver" "$gen" > /tmp/iterkit-modules-debs.log 2>&1; then
	tap_ok "make modules-debs for $kver and $gen"
else
	tap_fail "make modules-debs for $kver and $gen"
	tap_diag "$(tail -n 20 /tmp/iterkit-modules-debs.log)"
fi
prebuilt=$(ls "$mdir/iterkit-modules-${kver}_${ver}+deb12_amd64.deb" 2> /dev/null)
flavour=${kver#*+deb12-}
meta=$(ls "$mdir/iterkit-modules-${flavour}_"*_amd64.deb 2> /dev/null)
mok=$(ls "$mdir/iterkit-mok_${ver}+deb12_all.deb" 2> /dev/null)
tap_check "iterkit-modules-$kver, iterkit-modules-$flavour and iterkit-mok built" test -f "$prebuilt" -a -f "$meta" -a -f "$mok"
tap_check "... and iterkit-modules-$gen and iterkit-modules-${gen#*+deb12-}" \
	test -f "$(ls "$mdir/iterkit-modules-${gen}_"*.deb)" -a -f "$(ls "$mdir/iterkit-modules-${gen#*+deb12-}_"*.deb)"
lint=$(lintian --fail-on error,warning "$mdir"/*.changes 2>&1 | grep -v 'root privileges')
tap_eq "lintian on them: no errors, no warnings" "$lint" ""
tap_eq "iterkit-modules-$kver depends on exactly its kernel" "$(dpkg-deb -f "$prebuilt" Depends)" "linux-image-$kver"
tap_eq "iterkit-modules-$flavour follows Debian's linux-image-$flavour" "$(dpkg-deb -f "$meta" Depends)" \
	"iterkit-modules-$kver (= $ver+deb12), linux-image-$flavour"
tap_eq "iterkit-modules-${gen#*+deb12-} follows linux-image-${gen#*+deb12-}, not a cloud kernel" \
	"$(dpkg-deb -f "$(ls "$mdir/iterkit-modules-${gen#*+deb12-}_"*.deb)" Depends)" \
	"iterkit-modules-$gen (= $ver+deb12), linux-image-${gen#*+deb12-}"
tap_check "... with a version that orders by iterkit's, then the kernel's" \
	dpkg --compare-versions "$(dpkg-deb -f "$meta" Version)" eq "$ver+deb12+k${kver%%+*}"
x=$(mktemp -d)
dpkg-deb -x "$prebuilt" "$x/m" && dpkg-deb -x "$mok" "$x/c"
pko=$x/m/lib/modules/$kver/updates/iterkit/iterkit.ko
openssl x509 -inform DER -in "$x/c/usr/share/iterkit/mok/iterkit-signing.der" -out "$x/cert.pem" 2> /dev/null
tap_contains "its module is for $kver" "$(modinfo -F vermagic "$pko" 2>&1)" "$kver "
tap_check "... with BTF" sh -c "readelf -S $pko | grep -q ' \.BTF '"
tap_check "... without debug info" sh -c "! readelf -S $pko | grep -q ' \.debug_info '"
tap_contains "... signed: openssl verifies it with iterkit-mok's certificate" "$(ko_sig_verify "$pko" "$x/cert.pem")" \
	"Verification successful"
cp "$pko" "$x/changed.ko"
printf X | dd of="$x/changed.ko" bs=1 seek=4096 conv=notrunc 2> /dev/null
tap_contains "... and not once a byte of it changed" "$(ko_sig_verify "$x/changed.ko" "$x/cert.pem")" "Verification failure"
rm -rf "$x"
if apt_q install "./$prebuilt" "./$mok"; then
	tap_ok "apt-get install iterkit-modules-$kver iterkit-mok (iterkit-dkms installed)"
else
	tap_fail "apt-get install iterkit-modules-$kver iterkit-mok (iterkit-dkms installed)"
fi
tap_eq "modinfo -k $kver finds the prebuilt module" "$(modinfo -k "$kver" -F filename iterkit 2>&1)" \
	"/lib/modules/$kver/updates/iterkit/iterkit.ko"
tap_eq "... and DKMS's build for $kver is gone" "$(ls /lib/modules/"$kver"/updates/dkms/iterkit.ko* 2> /dev/null)" ""
tap_check "... while DKMS keeps the other kernels' ($gen)" test -n "$(ls /lib/modules/$gen/updates/dkms/iterkit.ko* 2> /dev/null)"
out=$(dkms autoinstall -k "$kver" 2>&1)
tap_contains "dkms autoinstall for $kver says the prebuilt package provides it" "$out" \
	"iterkit-modules-$kver provides the module for $kver"
tap_eq "... and builds nothing" "$(ls /lib/modules/"$kver"/updates/dkms/iterkit.ko* 2> /dev/null)" ""
/etc/kernel/header_postinst.d/dkms "$kver" > /tmp/iterkit-hook.log 2>&1
tap_eq "dkms header hook for $kver exits 0" "$?" 0
out=$(tests/vm/run --ko "/lib/modules/$kver/updates/iterkit/iterkit.ko" --loader /usr/sbin/iterkit -- \
	'insmod iterkit.ko && iterkit demo' 2>&1)
tap_eq "demo with the prebuilt module exits 0" "$?" 0 || tap_diag "$out"
if apt_q remove "iterkit-modules-$kver"; then
	tap_ok "apt-get remove iterkit-modules-$kver"
else
	tap_fail "apt-get remove iterkit-modules-$kver"
fi
tap_check "DKMS builds $kver's module again" test -n "$(ls /lib/modules/$kver/updates/dkms/iterkit.ko* 2> /dev/null)"
tap_eq "modinfo -k $kver finds DKMS's" "$(modinfo -k "$kver" -F filename iterkit 2>&1)" \
	"$(ls /lib/modules/"$kver"/updates/dkms/iterkit.ko*)"

# -- purge: nothing left for any kernel --
if apt_q purge iterkit iterkit-dkms iterkit-dev iterkit-mok; then tap_ok "apt-get purge succeeds"; else tap_fail "apt-get purge succeeds"; fi
tap_eq "dkms status empty after purge" "$(dkms status iterkit 2>/dev/null)" ""
tap_eq "no iterkit module left under /lib/modules" "$(ls /lib/modules/*/updates/dkms/iterkit.ko* 2>/dev/null)" ""
tap_check "/usr/src/iterkit-$ver removed" test ! -e "/usr/src/iterkit-$ver"
tap_check "/usr/sbin/iterkit removed" test ! -e /usr/sbin/iterkit
tap_check "/usr/include/iterkit removed" test ! -e /usr/include/iterkit
tap_check "pkg-config finds no iterkit after the purge" sh -c '! pkg-config --exists iterkit'

if [ -n "$old" ] && [ -z "$had_old" ] && [ -n "$brought" ]; then
	# Exactly what the 6.1 headers brought in, nothing else.
	apt_q purge $brought
fi

# -- RPMs --
if make -s rpm > /tmp/iterkit-rpm.log 2>&1; then tap_ok "make rpm (rpmbuild -ba)"; else tap_fail "make rpm (rpmbuild -ba)"; tap_diag "$(tail -20 /tmp/iterkit-rpm.log)"; fi
drpm=$(ls build/pkg/rpm/RPMS/noarch/iterkit-dkms-"$ver"-*.noarch.rpm 2>/dev/null)
trpm=$(ls build/pkg/rpm/RPMS/x86_64/iterkit-"$ver"-*.x86_64.rpm 2>/dev/null)
tap_check "iterkit-dkms noarch RPM built" test -f "$drpm"
tap_check "iterkit x86_64 RPM built" test -f "$trpm"
tap_check "source RPM built" sh -c 'ls build/pkg/rpm/SRPMS/iterkit-*.src.rpm >/dev/null'
l=$(rpm -qlp "$drpm" 2>/dev/null)
for f in dkms.conf $(make -s print-dkms-files); do
	tap_contains "iterkit-dkms RPM has /usr/src/iterkit-$ver/$f" "$l" "/usr/src/iterkit-$ver/$f"
done
tap_contains "iterkit-dkms RPM requires dkms for %post and %preun" "$(rpm -qp --requires "$drpm" 2>/dev/null)" "dkms"
l=$(rpm -qlp "$trpm" 2>/dev/null)
for f in /usr/sbin/iterkit /usr/lib/modules-load.d/iterkit.conf /usr/share/man/man8/iterkit.8.gz; do
	tap_contains "iterkit RPM has $f" "$l" "$f"
done
devrpm=$(ls build/pkg/rpm/RPMS/noarch/iterkit-devel-"$ver"-*.noarch.rpm 2>/dev/null)
tap_contains "iterkit-devel RPM has the BPF header" "$(rpm -qlp "$devrpm" 2>/dev/null)" /usr/include/iterkit/iterkit.bpf.h
devx=$(mktemp -d)
(cd "$devx" && rpm2cpio "$OLDPWD/$devrpm" | cpio -idm --quiet)
tap_check "iterkit-devel's header is iterkit-dev's (bpf/iterkit.bpf.h)" \
	cmp -s bpf/iterkit.bpf.h "$devx/usr/include/iterkit/iterkit.bpf.h"
tap_check "... and so is iterkit_defs.h beside it" \
	cmp -s bpf/iterkit_defs.h "$devx/usr/include/iterkit/iterkit_defs.h"
tap_check "... and iterkit.pc is iterkit-dev's" sh -c \
	"dpkg-deb --fsys-tarfile $dev_deb | tar -xOf - ./usr/share/pkgconfig/iterkit.pc | cmp -s - $devx/usr/share/pkgconfig/iterkit.pc"
tap_check "iterkit-devel has the examples, as they are" \
	diff -r examples "$devx/usr/share/doc/iterkit-devel-$ver/examples"
tap_contains "iterkit-devel requires libbpf-devel 1.2 or newer" "$(rpm -qp --requires "$devrpm" 2>/dev/null)" "libbpf-devel >= 1.2"
rm -rf "$devx"
lint=$(make -s rpmlint 2>&1)
tap_contains "rpmlint: no errors, no warnings (filters justified in packaging/iterkit.rpmlintrc)" "$lint" "0 errors, 0 warnings"
# The scriptlets run for real in tests/pkg/test_fedora_like.sh.
tap_done
