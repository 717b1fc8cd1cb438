# SPDX-License-Identifier: GPL-2.0
# Shared by the package tests (tests/pkg/test_*.sh, `make check-pkg`). The
# tests that are not about this Debian 12 host run in throw-away overlays
# of the project's build roots (scripts/buildroot.sh): what they install
# and remove never reaches the cached root.
ver=$(cat VERSION)
br=scripts/buildroot.sh
export DEBIAN_FRONTEND=noninteractive

# What a build root needs for these tests: the toolchain and VM harness
# of `make matrix`, plus dkms, the Debian and RPM packaging tools and the
# packages' own build dependencies.
PKG_ROOT_PKGS="make gcc libc6-dev clang llvm libbpf-dev libelf-dev zlib1g-dev libzstd-dev
	pkg-config xz-utils zstd pahole kmod binutils busybox-static cpio qemu-system-x86 bpftool
	dkms dh-dkms debhelper dpkg-dev fakeroot lintian rpm rpmlint linux-bpf-dev file"

# The mirror the build roots and sysroots are made from (as scripts/buildroot.sh
# and scripts/sysroot.sh take it), named in the reasons below.
pkg_mirror=${ITERKIT_MIRROR:-http://deb.debian.org/debian}

# pkg_step REASON CMD...: runs CMD, its output to stderr; when it fails,
# prints REASON and the last error line CMD printed, and fails.
pkg_step() {
	local why=$1 log rc last
	shift
	log=$(mktemp)
	"$@" 2>&1 | tee "$log" >&2
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		last=$(grep -E '^(E: |buildroot: |sysroot: |fetch-kernel: |install-deps: )' "$log" | tail -n 1)
		echo "$why${last:+ ($last)}"
	fi
	rm -f "$log"
	return "$rc"
}

# root_prepare ROOT KVER...: the root with those kernels' headers, and
# their images in the VM cache. Prints the reason and fails when it cannot.
root_prepare() {
	local root=$1 k
	shift
	pkg_step "cannot create the $root build root from $pkg_mirror" "$br" create "$root" || return 1
	# shellcheck disable=SC2086
	pkg_step "packages missing in $root" "$br" install "$root" $PKG_ROOT_PKGS || return 1
	for k in "$@"; do
		pkg_step "linux-headers-$k not in the $root sources" "$br" install "$root" "linux-headers-$k" || return 1
		pkg_step "no image of $k in the $root sources" "$br" run "$root" -- scripts/fetch-kernel.sh "$k" || return 1
	done
}

# tap_unavailable NAME REASON: the suite NAME could not run at all (no build
# root, no emulator, a mirror out of reach). Under CI (CI=true) that is a
# failure with the reason, for a leg that did not run what it names must not
# pass; elsewhere a skip, counted as one. Either way the suite ends here,
# with its plan.
tap_unavailable() {
	local why=${2//$'\n'/; }
	if [ "${CI:-}" = true ]; then
		tap_fail "$1 # could not run: $why"
	else
		tap_skip "$1" "$why"
	fi
	tap_done
	exit
}

# src_copy NAME: a private copy of the tree (packages and VM runs there).
src_copy() {
	local d=$PWD/build/pkg-roots/$1-src
	rm -rf "$d"
	mkdir -p "$d"
	git ls-files -co --exclude-standard -z | cpio -0 -pdm --quiet "$d"
	echo "$d"
}

# overlay_new NAME: a fresh overlay directory for `buildroot.sh run --overlay`.
overlay_new() {
	local d=$PWD/build/pkg-roots/$1-overlay
	rm -rf "$d"
	mkdir -p "$d"
	echo "$d"
}

# in_root ROOT OVERLAY CMD...: CMD inside the overlay of ROOT (apt and dpkg
# wait for their locks instead of failing).
in_root() {
	local root=$1 ov=$2
	shift 2
	"$br" run "$root" --overlay "$ov" -- "$@"
}

# fedora_like ROOT OVERLAY: the overlay's /etc/os-release says Fedora (what
# dkms and dnf read to pick their ways).
fedora_like() {
	in_root "$1" "$2" sed -i 's/^ID=.*/ID=fedora/; s/^ID_LIKE=.*//' /etc/os-release
}

# ko_sig_verify KO CERT: checks the signature appended to module KO against
# certificate CERT (PEM) with openssl, as the kernel would; prints openssl's
# verdict. The tail of a signed module: the PKCS#7 signature (DER), a 12-byte
# struct module_signature ending in the signature's length (big-endian),
# and the 28-byte "~Module signature appended~\n".
ko_sig_verify() {
	local ko=$1 cert=$2 size len d
	size=$(stat -c %s "$ko")
	[ "$(tail -c 28 "$ko")" = "~Module signature appended~" ] || { echo "no signature appended"; return 1; }
	len=$((0x$(tail -c 32 "$ko" | head -c 4 | od -An -tx1 | tr -d ' \n')))
	d=$(mktemp -d)
	tail -c $((len + 40)) "$ko" | head -c "$len" > "$d/sig.der"
	head -c $((size - len - 40)) "$ko" > "$d/content"
	openssl cms -verify -binary -inform DER -in "$d/sig.der" -content "$d/content" \
		-certfile "$cert" -CAfile "$cert" -purpose any -out /dev/null 2>&1
	local rc=$?
	rm -rf "$d"
	return $rc
}

# The module dkms installed for KVER, as a path inside the root.
dkms_ko_in() {	# dkms_ko_in ROOT OVERLAY KVER
	in_root "$1" "$2" sh -c "find /lib/modules/$3 -path '*/updates/dkms/*' -name 'iterkit.ko*' -o -path '*/extra/*' -name 'iterkit.ko*' | head -n 1"
}

# vm_demo ROOT OVERLAY SRC KVER KO: boots KVER with the DKMS-built KO and the
# packaged loader; prints the output and the md5 of the module it loaded.
vm_demo() {
	in_root "$1" "$2" env KVER="$4" "$3/tests/vm/run" --ko "$5" --loader /usr/sbin/iterkit -- \
		'md5sum iterkit.ko && insmod iterkit.ko && iterkit demo'
}

# md5 of a module file inside the root, decompressed.
ko_md5_in() {	# ko_md5_in ROOT OVERLAY KO
	in_root "$1" "$2" sh -c "case $3 in *.xz) xz -dc $3 ;; *.zst) zstd -qdc $3 ;; *) cat $3 ;; esac | md5sum | cut -d' ' -f1"
}

# root_packages ROOT [ARCH]: builds the .debs and RPMs inside an overlay of
# ROOT, or with ARCH only the .debs cross-built for it (`make deb
# DEB_ARCH=ARCH`), with /sys not mounted (dpkg-buildpackage and rpmbuild
# must not need the build machine's kernel), from the current sources;
# reused while the sources are unchanged. Prints the directory holding deb/
# (and rpm/); the build's log is next to it (build-pkgs.log).
root_packages() {
	local root=$1 arch=${2:-} name sum ov src rc goals=(deb rpm) d
	name=$root${arch:+-$arch}-pkgs
	d=$PWD/build/pkg-roots/$name
	[ -z "$arch" ] || goals=(deb "DEB_ARCH=$arch")
	sum=$(git ls-files -co --exclude-standard -z | xargs -0 md5sum | md5sum | cut -d' ' -f1)
	if [ -f "$d/.sources" ] && [ "$(cat "$d/.sources")" = "$sum" ]; then
		echo "$d"
		return 0
	fi
	rm -rf "$d"
	mkdir -p "$d"
	src=$(src_copy "$name")
	ov=$(overlay_new "$name")
	"$br" run "$root" --no-sys --overlay "$ov" -- sh -c \
		"test ! -e /sys/kernel && make -C $src ${goals[*]}" > "$d/build-pkgs.log" 2>&1
	rc=$?
	rm -rf "$ov"
	[ $rc -eq 0 ] || { echo "$d"; return 1; }
	cp -a "$src/build/pkg/deb" "$d/"
	[ -n "$arch" ] || cp -a "$src/build/pkg/rpm" "$d/"
	echo "$sum" > "$d/.sources"
	echo "$d"
}

# pkg_test_begin NAME ROOT KVER...: ROOT with those kernels, a copy of the
# sources ($src) and the packages built in ROOT ($pkg). When the root cannot
# be had, the test could not run (tap_unavailable); when the packages do not
# build, it fails. Either way the test ends there.
pkg_test_begin() {
	local name=$1 root=$2 why
	shift 2
	why=$(root_prepare "$root" "$@") || tap_unavailable "$name package tests" "$why"
	src=$(src_copy "$name")
	if ! pkg=$(root_packages "$root"); then
		tap_fail "packages built in the $root root"
		tap_diag "$(tail -n 30 "$pkg/build-pkgs.log")"
		tap_done
		exit 1
	fi
}

# only_headers ROOT OVERLAY KVER: purges every kernel's headers but KVER's.
only_headers() {
	in_root "$1" "$2" sh -c "apt-get -y -q purge \$(dpkg-query -W -f='\${Package}\n' 'linux-headers-*' |
		grep -v -e '$3' -e common) > /dev/null 2>&1"
}

# pc_check LABEL [PREFIX...]: the installed iterkit.pc as pkg-config reads
# it where PREFIX runs (nothing: this host; in_root ROOT OVERLAY: a build
# root): VERSION's version, the headers' directory, and the headers found
# with its Cflags (pkg-config leaves out /usr/include, which the compiler
# searches anyway).
pc_check() {
	local label=$1
	shift
	tap_eq "$label: pkg-config --modversion iterkit is VERSION's" "$("$@" pkg-config --modversion iterkit 2>&1)" "$ver"
	tap_contains "$label: its Cflags name /usr/include" \
		"$("$@" env PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 pkg-config --cflags iterkit 2>&1)" "-I/usr/include"
	tap_check "$label: <iterkit/iterkit.bpf.h> and <iterkit/iterkit_defs.h> found with pkg-config --cflags iterkit" \
		"$@" sh -c "printf '#if !__has_include(<iterkit/iterkit.bpf.h>) || !__has_include(<iterkit/iterkit_defs.h>)\n#error\n#endif\n' |
			clang -target bpf \$(pkg-config --cflags iterkit) -E -x c - > /dev/null"
}

# examples_check LABEL KVER KO TREE DIR [PREFIX...]: what a user of the
# installed iterkit-dev does: copies each example out of
# /usr/share/doc/iterkit-dev/examples, runs `make KVER=<kver>` in the copy
# (so nothing comes from this tree), then the VM boots KVER with the
# DKMS-built KO and tests/guest/test_examples.sh runs the programs. PREFIX
# runs a command where the packages are installed (nothing: this host;
# in_root ROOT OVERLAY: a build root). TREE holds the test scripts; DIR,
# the copies, must be seen at the same path by the host and PREFIX. With
# EXAMPLES_LOADERS=1 (Debian 13) threads-go and threads-rs are built there
# too, from the installed copies, and tests/examples/test_loaders.sh runs
# after the examples' suite, in the same VM.
examples_check() {
	local label=$1 k=$2 ko=$3 tree=$4 dir=$5 e t0 rc st t suites=test_examples
	shift 5
	rm -rf "$dir"
	mkdir -p "$dir/built"
	"$@" cp -r /usr/share/doc/iterkit-dev/examples/. "$dir/built/"
	for e in minimal cgtop threads; do
		t0=$(date +%s%3N)
		if "$@" make -C "$dir/built/$e" KVER="$k" > "$dir/$e.log" 2>&1; then
			tap_ok "$label: make in a copy of the installed examples/$e ($(( $(date +%s%3N) - t0 )) ms)"
		else
			tap_fail "$label: make in a copy of the installed examples/$e"
			tap_diag "$(tail -n 20 "$dir/$e.log")"
		fi
	done
	if ! "$@" "$tree/tests/examples/stage.sh" "$dir/built" "$dir/vm/examples" > "$dir/stage.log" 2>&1; then
		tap_fail "$label: the examples staged for the VM"
		tap_diag "$(cat "$dir/stage.log")"
		return 1
	fi
	if [ "${EXAMPLES_LOADERS:-}" = 1 ]; then
		t0=$(date +%s%3N)
		if "$@" env EXAMPLES=/usr/share/doc/iterkit-dev/examples KVER="$k" \
				"$tree/tests/examples/build-loaders.sh" "$dir/loaders" "$dir/vm/loaders" > "$dir/loaders.log" 2>&1; then
			tap_ok "$label: threads-go and threads-rs built from the installed examples ($(( $(date +%s%3N) - t0 )) ms)"
		else
			tap_fail "$label: threads-go and threads-rs built from the installed examples"
			tap_diag "$(tail -n 20 "$dir/loaders.log")"
		fi
		cp "$tree/tests/examples/test_loaders.sh" "$dir/vm/"
		suites="$suites test_loaders"
	fi
	# One boot for the suites; each one's TAP and status relayed apart.
	"$@" env KVER="$k" "$tree/tests/vm/run" --ko "$ko" --loader /usr/sbin/iterkit --tests "$dir/vm" -- \
		"cd /iterkit/tests && insmod /iterkit/iterkit.ko && for t in $suites; do echo \"# suite: \$t\"; sh ./\$t.sh; echo \"# status: \$?\"; done" \
		> "$dir/vm.out" 2>&1
	rc=$?
	for t in $suites; do
		awk -v s="# suite: $t" '$0 == s { on = 1; next } /^# suite: / { on = 0 } on && !/^# status: / { print }' \
			"$dir/vm.out" > "$dir/vm-$t.out"
		st=$(sed -n "/^# suite: $t\$/,/^# status: /s/^# status: //p" "$dir/vm.out")
		tap_relay "$label: " "$dir/vm-$t.out" "${st:-$((rc ? rc : 1))}"
	done
}
