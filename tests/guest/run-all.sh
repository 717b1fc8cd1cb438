#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM: loads the module, then every suite under
# /iterkit/tests: kselftest binaries, the verifier-expectation runner, and
# test_*.sh scripts. Each suite prints TAP; the host counts the results.
# Every suite starts and must end with the module loaded.
#   run-all.sh [SUITE...]   (default: all)
cd /iterkit/tests || exit 1
only="$*"

run_suite() {
	name=$1
	shift
	case " $only " in "  ") ;; *" $name "*) ;; *) return ;; esac
	echo "# suite: $name"
	out=/tmp/suite.$$
	"$@" > "$out" 2>&1
	rc=$?
	cat "$out"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$out"; then
		echo "not ok - $name exited with status $rc"
	fi
	if ! grep -q '^iterkit ' /proc/modules; then
		echo "not ok - $name left the module unloaded"
		insmod /iterkit/iterkit.ko
	fi
	rm -f "$out"
}

if ! insmod /iterkit/iterkit.ko; then
	echo "not ok - insmod iterkit.ko"
	dmesg | tail -n 20 | sed 's/^/# /'
	exit 1
fi

for t in *; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	case $t in
	*.sh | verifier-runner) continue ;;
	esac
	run_suite "$t" "./$t"
done
if [ -x verifier-runner ]; then
	run_suite verifier ./verifier-runner verifier/*.bpf.o
fi
for t in test_*.sh; do
	[ -f "$t" ] || continue
	run_suite "${t%.sh}" sh "./$t"
done
exit 0
