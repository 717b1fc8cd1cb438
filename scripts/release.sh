#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make release`: everything a release publishes, built from the committed
# tree (HEAD) into build/release/ (docs/release.md):
#
#   iterkit-<version>.tar.xz      the source (git archive of HEAD)
#   debs/bookworm/, debs/trixie/  the .debs for Debian 12 (built here) and 13
#                                 (the trixie build root), amd64, arm64, all,
#                                 with the prebuilt modules of make modules-debs
#   debs/trixie-backports/        the prebuilt modules for trixie-backports' kernels
#   rpms/                         the RPMs (x86_64, aarch64, noarch), signed
#   apt/                          the apt repository (aptly): suites bookworm,
#                                 trixie and trixie-backports (NotAutomatic,
#                                 ButAutomaticUpgrades, as Debian's), component
#                                 main, signed
#   rpm/                          the dnf repository (createrepo_c), signed
#                                 repomd.xml, and iterkit.repo
#   iterkit-archive-keyring.gpg   the public key, binary (/etc/apt/keyrings)
#   iterkit-archive-keyring.asc   the same, ASCII-armoured (rpm --import)
#   SHA256SUMS, SHA256SUMS.asc    checksums of all the above, and their signature
#
# SIGNING_KEY names the key (a fingerprint in the caller's keyring, GNUPGHOME
# if set); the key never enters the tree. MODULE_SIGNING_KEY and
# MODULE_SIGNING_CERT (PEM files) sign the prebuilt modules. PREVIOUS=<an earlier release
# directory> keeps its packages in the new repositories, so that users can
# still install (downgrade to) them. RELEASE_URL is where the release is
# served (iterkit.repo points there).
#
# Binary .deb versions carry the suite (0.1.0+deb12, 0.1.0+deb13): one pool
# holds both suites' builds, each made with its own release's toolchain.
# Two runs of one commit give the same tarball, .debs and RPMs (before
# signing; the unsigned RPMs stay in build/release-work/rpms-unsigned):
# SOURCE_DATE_EPOCH is the commit's time, umask, locale and time zone are
# fixed, and the build directory's path is mapped away (and of a fixed length).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

die() { echo "release: $*" >&2; exit 1; }
log() { echo "release: $*" >&2; }

key=${SIGNING_KEY:-}
url=${RELEASE_URL:-https://iterkit.github.io/iterkit}
previous=${PREVIOUS:-}
out=$top/build/release
work=$top/build/release-work

[ -n "$key" ] || die "SIGNING_KEY=<fingerprint> names the key that signs the release (gpg --list-secret-keys)"
gpg --batch --list-secret-keys "$key" > /dev/null 2>&1 ||
	die "no secret key '$key' in ${GNUPGHOME:-~/.gnupg} (gpg --list-secret-keys)"
fpr=$(gpg --batch --with-colons --list-secret-keys "$key" | awk -F: '$1 == "fpr" { print $10; exit }')
[ -z "$previous" ] || [ -d "$previous/debs" ] || die "PREVIOUS=$previous is not a release directory (no debs/)"
for v in MODULE_SIGNING_KEY MODULE_SIGNING_CERT; do
	[ -n "${!v:-}" ] || die "$v=<PEM file> names the pair that signs the prebuilt modules (docs/fleet.md)"
	[ -r "${!v}" ] || die "$v=${!v} cannot be read"
done
MODULE_SIGNING_KEY=$(realpath "$MODULE_SIGNING_KEY") MODULE_SIGNING_CERT=$(realpath "$MODULE_SIGNING_CERT")
export MODULE_SIGNING_KEY MODULE_SIGNING_CERT
git rev-parse --verify -q HEAD > /dev/null || die "not in a git work tree with a commit"

umask 022
export LC_ALL=C.UTF-8 TZ=UTC
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct HEAD)
export SOURCE_DATE_EPOCH
ver=$(git show HEAD:VERSION)
commit=$(git rev-parse HEAD)
log "iterkit $ver from $commit, signed by $fpr"

rm -rf "$out" "$work"
mkdir -p "$out/debs/bookworm" "$out/debs/trixie" "$out/rpms" "$work/rpms-unsigned"

# -- the source: the commit's files, sorted, with the commit's time --
git -c tar.umask=022 archive --format=tar --prefix="iterkit-$ver/" HEAD | xz -6 -T1 -c > "$out/iterkit-$ver.tar.xz"
# The packages are built from the tarball's files in a directory whose path
# has the same length on every run: clang 19 orders a BPF object's BTF types
# as its memory layout falls, and the build path's length shifts that layout.
cache=${ITERKIT_CACHE:-/var/cache/iterkit}
mkdir -p "$cache/release-build"
builddir=$(mktemp -d "$cache/release-build/XXXXXXXX")
trap 'rm -rf "$builddir"' EXIT
src=$builddir/iterkit-$ver
tar -xJf "$out/iterkit-$ver.tar.xz" -C "$builddir"

# -- the packages --
# build_debs SUITE ARCH...: `make deb` for each ARCH (the machine's own
# first) in a copy of the source, here (bookworm) or in the trixie root.
build_debs() {
	local suite=$1 a goal run=()
	shift
	if [ "$suite" = trixie ]; then
		scripts/buildroot.sh create trixie >&2
		scripts/buildroot.sh install trixie make gcc libc6-dev clang llvm libbpf-dev libelf-dev \
			zlib1g-dev libzstd-dev pkg-config bpftool dkms dh-dkms debhelper dpkg-dev fakeroot \
			linux-bpf-dev rpm git >&2
		run=(scripts/buildroot.sh run trixie --no-sys --overlay "$work/overlay-trixie" --)
	fi
	for a in "$@"; do
		rm -rf "$work/overlay-trixie"
		goal=(deb "DEB_SUFFIX=+deb${suite_num[$suite]}")
		[ "$a" = "$(dpkg --print-architecture)" ] || goal+=("DEB_ARCH=$a")
		log "$suite $a: make ${goal[*]}"
		"${run[@]}" env SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" LC_ALL=C.UTF-8 TZ=UTC \
			sh -c 'umask 022 && make -C "$1" "$@"' _ "$src" "${goal[@]}" > "$work/deb-$suite-$a.log" 2>&1 ||
			die "$suite $a: make ${goal[*]} failed (its log: $work/deb-$suite-$a.log: $(tail -n 1 "$work/deb-$suite-$a.log"))"
		find "$src/build/pkg/deb" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' -exec cp {} "$out/debs/$suite/" \;
	done
	rm -rf "$work/overlay-trixie"
}
declare -A suite_num=([bookworm]=12 [trixie]=13 [trixie-backports]=13)
build_debs bookworm amd64 arm64
build_debs trixie amd64 arm64

# -- the prebuilt modules, for every kernel of packaging/prebuilt/kernels --
log "the prebuilt modules: make modules-debs"
(cd "$src" && scripts/modules-debs.sh) > "$work/modules-debs.log" 2>&1 ||
	die "make modules-debs failed (its log: $work/modules-debs.log: $(tail -n 1 "$work/modules-debs.log"))"
suites=()
for d in "$src"/build/modules-debs/*/; do
	s=$(basename "$d")
	case $s in key | work) continue ;; esac
	[ -n "${suite_num[$s]:-}" ] || die "make modules-debs made packages for a suite this release does not publish: $s"
	mkdir -p "$out/debs/$s"
	cp "$d"/*.deb "$out/debs/$s/"
	case " bookworm trixie " in *" $s "*) ;; *) suites+=("$s") ;; esac
done

for a in "" aarch64; do
	log "rpm ${a:-x86_64}: make rpm${a:+ RPM_ARCH=$a}"
	make -C "$src" rpm ${a:+RPM_ARCH=$a} > "$work/rpm-${a:-x86_64}.log" 2>&1 ||
		die "make rpm${a:+ RPM_ARCH=$a} failed (its log: $work/rpm-${a:-x86_64}.log)"
	if [ -z "$a" ]; then
		cp "$src"/build/pkg/rpm/RPMS/*/*.rpm "$work/rpms-unsigned/"
	else
		cp "$src"/build/pkg/rpm/RPMS/aarch64/*.rpm "$work/rpms-unsigned/"
	fi
done
cp "$work"/rpms-unsigned/*.rpm "$out/rpms/"
# Debian's rpm looks for gpg2 (Fedora's name): it is told where gpg is.
rpmsign --addsign --define "_gpg_name $fpr" --define "__gpg $(command -v gpg)" \
	${GNUPGHOME:+--define "_gpg_path $GNUPGHOME"} \
	"$out"/rpms/*.rpm > "$work/rpmsign.log" 2>&1 || die "rpmsign failed: $(tail -n 1 "$work/rpmsign.log")"

# -- the keys --
gpg --batch --export "$fpr" > "$out/iterkit-archive-keyring.gpg"
gpg --batch --armor --export "$fpr" > "$out/iterkit-archive-keyring.asc"

# -- the apt repository: aptly, whose repositories keep every version --
cat > "$work/aptly.conf" <<EOF
{"rootDir": "$work/aptly", "gpgProvider": "gpg", "architectures": ["amd64", "arm64", "all"]}
EOF
aptly=(aptly -config="$work/aptly.conf")
for suite in bookworm trixie "${suites[@]}"; do
	"${aptly[@]}" repo create -distribution="$suite" -component=main \
		-comment="iterkit for Debian ${suite_num[$suite]} ($suite)" "iterkit-$suite" > "$work/aptly.log" 2>&1 ||
		die "aptly repo create: $(tail -n 1 "$work/aptly.log")"
	for d in ${previous:+"$previous/debs/$suite"} "$out/debs/$suite"; do
		# (a previous release may not have had this suite)
		[ "$d" = "$out/debs/$suite" ] || [ -d "$d" ] || continue
		ls "$d"/*.deb > /dev/null 2>&1 || die "no .debs in $d"
		"${aptly[@]}" repo add "iterkit-$suite" "$d" > "$work/aptly.log" 2>&1 ||
			die "aptly repo add $suite $d: $(tail -n 1 "$work/aptly.log")"
	done
	# A backports suite, as Debian's: installed from only when asked
	# (-t), then upgraded from.
	bpo=()
	case $suite in *-backports) bpo=(-notautomatic=yes -butautomaticupgrades=yes) ;; esac
	"${aptly[@]}" publish repo -batch -gpg-key="$fpr" -origin=iterkit -label=iterkit "${bpo[@]}" \
		"iterkit-$suite" > "$work/aptly.log" 2>&1 ||
		die "aptly publish $suite: $(tail -n 2 "$work/aptly.log")"
done
cp -rL "$work/aptly/public" "$out/apt"

# -- the dnf repository --
mkdir -p "$out/rpm"
cp ${previous:+"$previous"/rpms/*.rpm} "$out"/rpms/*.rpm "$out/rpm/"
createrepo_c --quiet "$out/rpm" > "$work/createrepo.log" 2>&1 || die "createrepo_c: $(tail -n 1 "$work/createrepo.log")"
gpg --batch --yes --local-user "$fpr" --armor --detach-sign "$out/rpm/repodata/repomd.xml"
cat > "$out/rpm/iterkit.repo" <<EOF
[iterkit]
name=iterkit
baseurl=$url/rpm
enabled=1
gpgcheck=1
repo_gpgcheck=1
gpgkey=$url/iterkit-archive-keyring.asc
EOF

# -- what a user checks a download against --
(cd "$out" && find . -maxdepth 3 -type f \( -name '*.tar.xz' -o -name '*.deb' -o -name '*.rpm' \
	-o -name 'iterkit-archive-keyring.*' \) ! -path './apt/*' ! -path './rpm/*' | sed 's|^\./||' | sort |
	xargs sha256sum > SHA256SUMS)
gpg --batch --yes --local-user "$fpr" --armor --detach-sign "$out/SHA256SUMS"
log "done: $out"
echo "iterkit $ver released in $out"
echo "signing key: $fpr"
echo "commit: $commit"
