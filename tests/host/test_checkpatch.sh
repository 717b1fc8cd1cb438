#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel coding style: checkpatch.pl --strict (from Debian's linux-source,
# extracted by scripts/install-deps.sh) must be silent on every module file.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
cp=${CHECKPATCH:-${ITERKIT_CACHE:-/var/cache/iterkit}/linux-src/scripts/checkpatch.pl}
if [ ! -f "$cp" ]; then
	tap_fail "checkpatch.pl present ($cp; run scripts/install-deps.sh test)"
	tap_done
	exit
fi
for f in module/*.c module/*.h; do
	case $f in *.mod.c) continue ;; esac
	out=$(perl "$cp" --strict --no-tree --terse --show-types -f "$f" 2>&1)
	if [ -z "$(grep -E ': (ERROR|WARNING|CHECK):' <<<"$out")" ]; then
		tap_ok "checkpatch --strict $f"
	else
		tap_fail "checkpatch --strict $f"
		tap_diag "$out"
	fi
done
tap_done
