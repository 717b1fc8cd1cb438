#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM: loads the module, then every suite under
# /iterkit/tests: kselftest binaries, the verifier-expectation runner, and
# test_*.sh scripts. Each suite prints TAP; the host counts the results.
# Every suite starts and must end with the module loaded. A suite that
# exits non-zero with no "not ok" of its own, prints no plan or several,
# or whose results differ from its plan gets a "not ok - SUITE: why".
# At the end, one check of the kernel log of the whole run (read from
# /dev/kmsg all along, so that a wrapped ring buffer loses nothing).
#   run-all.sh [SUITE...]   (default: all; an unknown name: exit 2)
cd /iterkit/tests || exit 1
. ./tap.sh
only="$*"

# The suites, in the order they run (suite_list, tap.sh; the verifier
# runner runs on every verifier/*.bpf.o).
suites=$(suite_list . | tr '\n' ' ')
suites=" ${suites% }"
for s in $only; do
	case " $suites " in
	*" $s "*) ;;
	*) echo "run-all: unknown suite: $s (known:$suites)" >&2; exit 2 ;;
	esac
done

run_suite() {
	name=$1
	shift
	case " $only " in "  ") ;; *" $name "*) ;; *) return ;; esac
	echo "# suite: $name"
	out=/tmp/suite.$$
	"$@" > "$out" 2>&1
	rc=$?
	cat "$out"
	# (a last line without its newline would swallow the next one)
	[ -z "$(tail -c 1 "$out")" ] || echo
	why=$(suite_verdict "$out" "$rc")
	[ -z "$why" ] || echo "not ok - $name: $why"
	if ! grep -q '^iterkit ' /proc/modules; then
		echo "not ok - $name left the module unloaded"
		insmod /iterkit/iterkit.ko
	fi
	rm -f "$out"
}

# The kernel log from boot on, read as it is written: the ring buffer may
# wrap during a long run, the copy keeps all of it. Each /dev/kmsg record
# is "prio,seq,usec,flags;text" (seq from 0 at boot); lines starting with
# a space continue the record before. (busybox cat stops at the EPIPE of
# records overwritten before it read them: a reader that fell behind.)
kmsg=/tmp/run-all.kmsg
# What debug kernels (make check-debug) say at boot that looks like a
# report and is not one.
KMSG_NOT_REPORTS='KASAN: KernelAddressSanitizer initialized|kmemleak: Kernel memory leak detector initialized|kmemleak: Automatic memory scanning thread started|ODEBUG: selftest passed'
cat /dev/kmsg > "$kmsg" 2> "$kmsg.err" < /dev/null &
kmsg_reader=$!

kernel_log_check() {
	what="kernel log: no WARNING/BUG/Oops/RCU stall/lockdep report in the whole run"
	lost=
	# All that was logged up to here: wait for a record written now.
	end="iterkit run-all end $$"
	echo "$end" > /dev/kmsg
	n=0
	while ! grep -q ";$end\$" "$kmsg" && kill -0 "$kmsg_reader" 2>/dev/null && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if ! kill -0 "$kmsg_reader" 2>/dev/null; then
		lost="the reader of /dev/kmsg stopped during the run ($(head -c 200 "$kmsg.err"))"
	else
		kill "$kmsg_reader"
		wait "$kmsg_reader" 2>/dev/null
		grep -q ";$end\$" "$kmsg" || lost="the end of the run never reached the copy"
	fi
	gaps=$(awk '/^ / { next }
		{ split($0, f, "[,;]"); s = f[2] + 0 }
		!n++ && s != 0 { printf "records 0-%d were gone before the run started; ", s - 1 }
		n > 1 && s != p + 1 { printf "records %d-%d lost; ", p + 1, s - 1 }
		{ p = s }' "$kmsg")
	gaps=${gaps%; }
	[ -z "$gaps" ] || lost="${lost:+$lost; }$gaps"
	reports=$(sed -n 's/^[0-9][^;]*;//p' "$kmsg" | grep -E "$KMSG_REPORTS" | grep -vE "$KMSG_NOT_REPORTS")
	if [ -z "$lost" ] && [ -z "$reports" ]; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		[ -z "$lost" ] || echo "# the copy of the kernel log is incomplete: $lost"
		[ -z "$reports" ] || printf '%s\n' "$reports" | head -n 50 | sed 's/^/# report: /'
	fi
	rm -f "$kmsg" "$kmsg.err"
}

if ! insmod /iterkit/iterkit.ko; then
	echo "not ok - insmod iterkit.ko"
	dmesg | tail -n 20 | sed 's/^/# /'
	kill "$kmsg_reader"
	exit 1
fi

for name in $suites; do
	case $name in
	verifier) run_suite verifier ./verifier-runner verifier/*.bpf.o ;;
	*) if [ -f "$name.sh" ]; then run_suite "$name" sh "./$name.sh"; else run_suite "$name" "./$name"; fi ;;
	esac
done
kernel_log_check
exit 0
