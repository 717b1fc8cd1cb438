#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The three loaders of examples/threads's program, run here against the
# real module: threads (C, libbpf skeleton, tests/examples/stage.sh put it
# in /iterkit/tests/examples), threads-go (cilium/ebpf) and threads-rs
# (libbpf-rs), both built from Debian 13's packages
# (tests/examples/build-loaders.sh put them in /iterkit/tests/loaders):
# - with the module, each counts with kit_task and prints what the others
#   print: the same user processes and threads as /proc (threads -p) and
#   the same processes with the most threads, a process of 5 threads first;
# - bad arguments: exit 2;
# - without the module, and with the module as built for kernels before
#   6.7 (no walkers): each says why in one line, counts from /proc and
#   exits 3, cilium/ebpf's refused load (its kfuncs are not weak) and
#   libbpf's bpf_ksym_exists() alike;
# - no kernel report meanwhile.
# Starts and ends with the module loaded.
. ./tap.sh
. ./examples.sh
kmsg_mark test_loaders
E=/iterkit/tests/examples
L=/iterkit/tests/loaders
export LD_LIBRARY_PATH=$E/lib
# threads-rs runs with the libraries it was built with (Debian 13's), the
# dynamic loader too.
rs() { "$L/lib/ld-linux-x86-64.so.2" --library-path "$L/lib" "$L/threads-rs/threads-rs" "$@"; }
go() { "$L/threads-go/threads-go" "$@"; }
c() { "$E/threads/threads" "$@"; }

if [ ! -x $E/threads/threads ] || [ ! -x $L/threads-go/threads-go ] || [ ! -x $L/threads-rs/threads-rs ]; then
	tap_fail "the three loaders are built (threads, threads-go, threads-rs)"
	tap_done
	exit 1
fi

# lines OUTPUT: the lines that must agree between loaders and with /proc
# (the kernel threads come and go: kworkers).
lines() { printf '%s\n' "$1" | grep -v '^kernel:'; }

$E/bin/hold_threads 4 > /tmp/ld-ht.out &
ht=$!
i=0
while ! grep -q ready /tmp/ld-ht.out 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
tap_eq "set-up: a process with 5 threads" "$(awk '/^Threads:/ { print $2 }' /proc/$ht/status)" 5

run c -p -n 3
tap_eq "threads -p (C, /proc) exits 3" "$rc" 3
proc=$(lines "$out")
tap_contains "/proc: the process with 5 threads first" "$out" "$(printf '%8u %8u %8u  %s' $ht 0 5 hold_threads)"

for l in c go rs; do
	run $l -n 3
	tap_eq "$l: exits 0 with the module" "$rc" 0 || tap_diag "$err"
	tap_contains "$l: counted by kit_task" "$out" "counted by:  kit_task"
	tap_eq "$l: users, threads and the 3 processes with the most threads as /proc has them" "$(lines "$out")" \
		"$(printf '%s\n' "$proc" | sed 's|^counted by:  /proc$|counted by:  kit_task|')" || tap_diag "$out"
	if printf '%s\n' "$out" | grep -Eq '^kernel: +[1-9][0-9]* threads$'; then
		tap_ok "$l: kernel threads counted"
	else
		tap_fail "$l: kernel threads counted"
	fi
	run $l -n 17
	tap_eq "$l -n 17: exit 2" "$rc" 2
	run $l -x
	tap_eq "$l -x: exit 2" "$rc" 2
done
run go -p -n 3
tap_eq "go -p: /proc's count, exit 3" "$rc $(lines "$out")" "3 $proc"
run rs -p -n 3
tap_eq "rs -p: /proc's count, exit 3" "$rc $(lines "$out")" "3 $proc"

# without: CASE WHY: every loader falls back to /proc and says WHY.
without() {
	for l in go rs; do
		run $l -n 3
		tap_eq "$1: $l exits 3" "$rc" 3
		tap_eq "$1: $l says why, in one line" "$err" "threads-$l: $2: counted from /proc"
		tap_eq "$1: $l counted from /proc, as /proc has it" "$(lines "$out")" "$proc"
	done
}
if unload; then
	without "no module" "the iterkit module is not loaded (modprobe iterkit)"
	run go -v -n 0
	tap_contains "no module: cilium/ebpf refused the load, the kfunc missing (threads-go -v)" "$err" \
		'kfunc "bpf_iter_kit_task_new": not supported'
	run rs -v -n 0
	tap_contains "no module: libbpf resolved the weak kfunc to 0 (threads-rs -v)" "$err" \
		"extern 'bpf_iter_kit_task_new' (weak): not resolved, defaulting to zero"
else
	tap_fail "rmmod iterkit (something still holds the module)"
fi
if load_nowalkers "no walkers: threads-go and threads-rs fall back"; then
	without "no walkers" "the iterkit module has no task walker (a kernel before 6.7)"
	unload || tap_fail "rmmod iterkit-nowalkers.ko"
fi

kill $ht 2>/dev/null
wait $ht 2>/dev/null
grep -q '^iterkit ' /proc/modules || insmod /iterkit/iterkit.ko
tap_log_clean "kernel log clean" test_loaders
tap_done
