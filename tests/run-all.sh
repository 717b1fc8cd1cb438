#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: host suites (tests/host/test_*.sh), then every guest suite in
# one VM boot. Every suite prints TAP; this counts "ok"/"not ok" lines and
# ends with "N passed, M failed[, K skipped]". Exit status 1 on any failure.
#   tests/run-all.sh [--guest|--pkg] [SUITE...]   (default: all; names as
#       printed "# suite: X"; --guest: no host suites; --pkg: the package
#       suites of tests/pkg/ instead, `make check-pkg`)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=build/check.log
guest=
hostdir=tests/host
case ${1:-} in
--guest) guest=1; shift ;;
--pkg) hostdir=tests/pkg; log=build/check-pkg.log; shift ;;
esac
mkdir -p build
: > "$log"
only="$*"

selected() { [ -z "$only" ] || [[ " $only " == *" $1 "* ]]; }

for t in "$hostdir"/test_*.sh; do
	[ -f "$t" ] && [ -z "$guest" ] || continue
	name=$(basename "$t" .sh)
	selected "$name" || continue
	{
		echo "# suite: $name"
		out=$(bash "$t" 2>&1)
		rc=$?
		echo "$out"
		if [ $rc -ne 0 ] && ! grep -q '^not ok' <<<"$out"; then
			echo "not ok - $name exited with status $rc"
		fi
	} | tee -a "$log"
done

guest_only=()
for s in $only; do [ -f "$hostdir/$s.sh" ] || guest_only+=("$s"); done
if [ "$hostdir" = tests/host ] && { [ -z "$only" ] || [ ${#guest_only[@]} -gt 0 ]; }; then
	tests/vm/run --timeout "${ITERKIT_VM_TIMEOUT:-2400}" --mem 2048 -- \
		"sh /iterkit/tests/run-all.sh ${guest_only[*]}" 2>&1 | tee -a "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "not ok - guest suites: the VM run failed (status $rc)" | tee -a "$log"
	fi
fi

pass=$(grep -E '^ok ' "$log" | grep -vc '# SKIP')
skip=$(grep -E '^ok ' "$log" | grep -c '# SKIP')
fail=$(grep -cE '^not ok' "$log")
echo
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
