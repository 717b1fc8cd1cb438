#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The loader's unit tests (tests/unit/, kselftest-harness tests built by
# `make unit` with ASan and UBSan: output buffer, JSON and text escaping,
# options, numbers, task states), on the host, no VM; the TAP of each
# binary relayed, a test a line. Then the Makefile's header dependencies:
# a changed header must rebuild what includes it, BPF objects included.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
for t in build/unit/test_*; do
	[ -x "$t" ] || continue
	echo "# $(basename "$t")"
	# A sanitizer report (a leak too) fails its test, and the binary exits non-zero.
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$t" > build/unit/out 2>&1
	tap_relay "$(basename "$t"): " build/unit/out $?
done
[ "$TAP_N" -gt 0 ] || tap_fail "no unit test binaries in build/unit (make unit)"

# make's database (-p, nothing run): the prerequisites it knows for a
# target, those of the dependency files included. (make -n would list
# everything: the vmlinux.h rule is always remade.)
prereqs() { make -pn "$1" 2>/dev/null | awk -v t="$1:" '$1 == t { $1 = ""; print; exit }'; }
dep() {	# TARGET HEADER
	tap_contains "$1 is remade when $2 changes" "$(prereqs "$1")" " $2"
}
dep build/bpf/kit_task.bpf.o bpf/kit_task_record.h
dep build/bpf/kit_cgroup.bpf.o bpf/kit_cgroup.h
dep build/userspace/tasks.o bpf/kit_task_record.h
dep build/userspace/numbers.o userspace/out.h
dep build/userspace/tasks.o build/bpf/kit_task.lskel.h
dep build/unit/test_out userspace/out.h
dep build/tests/helpers/hold_prog build/tests/progs/num_parity.skel.h
tap_done
