#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds (once) the debug kernel of `make check-debug`: Debian's
# linux-source-6.12 with `make tinyconfig` plus scripts/debug-kernel.config
# (KASAN, lockdep, PROVE_RCU, UBSAN, kmemleak, debug objects, ...).
#
#   scripts/debug-kernel.sh          build if needed; print the build directory
#   scripts/debug-kernel.sh --dir    print the build directory, build nothing
#
# The build directory is a kernel build tree (O=) with vmlinux, bzImage and
# Module.symvers, usable as KDIR for external modules. It lives in the shared
# cache, keyed by the source package version and a hash of the config
# fragment, the build steps and the toolchain, so only the first run pays:
#   $ITERKIT_CACHE/debug-kernel/src-<version>/          the extracted source
#   $ITERKIT_CACHE/debug-kernel/<version>-<hash>/       the build (O=)
# The build's wall-clock time is kept in <build>/iterkit-build-time.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${ITERKIT_CACHE:-/var/cache/iterkit}/debug-kernel
frag=$top/scripts/debug-kernel.config
tarball=/usr/src/linux-source-6.12.tar.xz

log() { echo "debug-kernel: $*" >&2; }

ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || {
	log "linux-source-6.12 is not installed (scripts/install-deps.sh debug)"
	exit 1
}
# What the build depends on: bump RECIPE when the steps below change.
RECIPE=1
hash=$({ echo "$RECIPE"; cat "$frag"; gcc --version | head -n 1; pahole --version; } |
	sha256sum | cut -c1-12)
src=$cache/src-$ver
out=$cache/$ver-$hash

if [ "${1:-}" = --dir ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$cache"
# One build at a time per cache; a second caller waits and reuses it.
exec 9> "$cache/.lock"
flock 9

if [ -f "$out/.iterkit-done" ]; then
	echo "$out"
	exit 0
fi

if [ ! -f "$src/.iterkit-extracted" ]; then
	log "extracting $tarball into $src"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	touch "$src/.iterkit-extracted"
fi

rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
log "configuring $out (tinyconfig + $(basename "$frag"))"
make -s -C "$src" O="$out" tinyconfig > /dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag" > /dev/null
make -s -C "$src" O="$out" olddefconfig > /dev/null

# Every option of the fragment must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$out/.config" || { log "not in the final config: $line"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#"# "}
		opt=${opt%% *}
		! grep -q "^$opt=" "$out/.config" || { log "still set: $opt"; bad=1; } ;;
	esac
done < "$frag"
[ $bad = 0 ] || { log "fix $frag (dependencies)"; exit 1; }

jobs=$(nproc)
log "building with $jobs jobs (nice); the first build takes a long time"
if ! nice -n 10 make -s -C "$src" O="$out" -j"$jobs" bzImage modules > "$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	log "build failed; full log in $out/build.log"
	exit 1
fi
[ -f "$out/vmlinux" ] && [ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/Module.symvers" ] || {
	log "build finished without vmlinux, bzImage or Module.symvers"
	exit 1
}
end=$(date +%s)
echo "$((end - start))" > "$out/iterkit-build-time"
log "built in $(((end - start) / 60)) min $(((end - start) % 60)) s"
touch "$out/.iterkit-done"
echo "$out"
