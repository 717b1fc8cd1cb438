#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel coding style: checkpatch.pl --strict (from Debian's linux-source,
# extracted by scripts/install-deps.sh) must pass on every module file: exit
# status 0 and no ERROR/WARNING/CHECK line (bpf/iterkit_defs.h too: the
# module includes it). A control file with known style
# errors must fail, so a checkpatch that cannot run is never taken for a
# clean one.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
cp=${CHECKPATCH:-${ITERKIT_CACHE:-/var/cache/iterkit}/linux-src/scripts/checkpatch.pl}
if [ ! -f "$cp" ]; then
	tap_fail "checkpatch.pl present ($cp; run scripts/install-deps.sh test)"
	tap_done
	exit
fi
checkpatch() { perl "$cp" --strict --no-tree --terse --show-types -f "$1" 2>&1; }

# Control: a file checkpatch must reject.
ctl=$(mktemp --suffix=.c)
printf '// SPDX-License-Identifier: GPL-2.0\nint f(int a){\n  if(a) return 1 ;\n  return 0;\n}\n' > "$ctl"
out=$(checkpatch "$ctl")
rc=$?
rm -f "$ctl"
if [ $rc -ne 0 ] && grep -qE ': (ERROR|WARNING|CHECK):' <<<"$out"; then
	tap_ok "checkpatch rejects a badly styled control file (exit $rc)"
else
	tap_fail "checkpatch rejects a badly styled control file"
	tap_diag "exit $rc: $out"
fi

for f in module/*.c module/*.h bpf/iterkit_defs.h; do
	case $f in *.mod.c) continue ;; esac
	out=$(checkpatch "$f")
	rc=$?
	if [ $rc -eq 0 ] && ! grep -qE ': (ERROR|WARNING|CHECK):' <<<"$out"; then
		tap_ok "checkpatch --strict $f"
	else
		tap_fail "checkpatch --strict $f"
		tap_diag "exit $rc: $out"
	fi
done
tap_done
