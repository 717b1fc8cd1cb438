#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The loader's unit tests (tests/unit/, built by `make unit` with ASan and
# UBSan: output buffer, JSON and text escaping, options, numbers, task
# states), on the host, no VM. Then the Makefile's header dependencies:
# a changed record header must rebuild what includes it.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
for t in build/unit/test_*; do
	[ -x "$t" ] || continue
	echo "# $(basename "$t")"
	out=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$t" 2>&1)
	rc=$?
	# the binary's own TAP lines, renumbered into this suite's
	while IFS= read -r line; do
		case $line in
		"ok "*) tap_ok "$(basename "$t"): ${line#ok [0-9]* }" ;;
		"not ok "*) tap_fail "$(basename "$t"): ${line#not ok [0-9]* }" ;;
		"1.."*) ;;
		*) echo "$line" ;;
		esac
	done <<<"$out"
	tap_eq "$(basename "$t") exits 0 (no sanitizer report)" "$rc" 0
done
[ "$TAP_N" -gt 0 ] || tap_fail "no unit test binaries in build/unit (make unit)"

# make -n -W FILE: what make would run if FILE had changed.
deps() { make -n -W "$1" "$2" 2>/dev/null; }
out=$(deps bpf/kit_task_record.h iterkit)
tap_contains "bpf/kit_task_record.h changed: the BPF program is rebuilt" "$out" "bpf/kit_task.bpf.c"
tap_contains "bpf/kit_task_record.h changed: tasks.c is recompiled" "$out" "userspace/tasks.c"
out=$(deps userspace/out.h iterkit)
tap_contains "userspace/out.h changed: numbers.c is recompiled" "$out" "userspace/numbers.c"
out=$(deps bpf/iterkit.bpf.h build/tests/kit_task)
tap_contains "bpf/iterkit.bpf.h changed: a kselftest's programs are rebuilt" "$out" "tests/progs/kit_task_walks.bpf.c"
out=$(deps tests/progs/fuzz.h build/tests/fuzz)
tap_contains "tests/progs/fuzz.h changed: the fuzz test is rebuilt" "$out" "tests/kselftest/fuzz.c"
tap_done
