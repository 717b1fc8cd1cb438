#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Module life cycle in the VM: BTF and kfuncs after insmod, rmmod refused
# while a program uses the kfuncs, 50 clean load/unload cycles, and init
# refusing modules whose BTF is missing or unusable. Starts and ends with
# the module loaded.
. /iterkit/tests/tap.sh
cd /iterkit || exit 1
H=/iterkit/tests/helpers

# Reports since this suite started, and kfunc registrations that failed.
bad_log() {
	kernel_reports test_lifecycle
	kernel_log_since test_lifecycle | grep 'missing module BTF'
}

loaded() { grep -q '^iterkit ' /proc/modules; }

# Programs are freed asynchronously (after an RCU grace period): wait for
# the module's references to drop before unloading it.
wait_unused() {
	local tries=0
	while [ "$(cat /sys/module/iterkit/refcnt 2>/dev/null || echo 0)" != 0 ] && [ $tries -lt 100 ]; do
		sleep 0.1
		tries=$((tries + 1))
	done
}

kmsg_mark test_lifecycle

# -- after insmod (run-all.sh loaded it) --
tap_check "module listed in /proc/modules" loaded
tap_check "/sys/kernel/btf/iterkit exists" test -r /sys/kernel/btf/iterkit
funcs=$($H/btf_funcs)
for f in bpf_iter_kit_num_new bpf_iter_kit_num_next bpf_iter_kit_num_destroy \
	bpf_iter_testmod_seq_new bpf_iter_testmod_seq_next bpf_iter_testmod_seq_destroy; do
	case "
$funcs
" in
	*"
$f
"*) tap_ok "module BTF has $f" ;;
	*) tap_fail "module BTF has $f"; tap_diag "$funcs" ;;
	esac
done

# -- iterator layouts: the module's structs, as its BTF describes them,
# against the ones bpf/iterkit.bpf.h gives programs (tests/progs/layout.bpf.o
# holds one of each). A module built without the walkers has none of theirs.
mod_sizes=$($H/btf_funcs --sizes)
bpf_sizes=$($H/btf_funcs --sizes-obj tests/progs/layout.bpf.o)
for s in bpf_iter_kit_num bpf_iter_testmod_seq bpf_iter_kit_task \
	bpf_iter_kit_cgroup bpf_iter_kit_cgroup_at; do
	m=$(echo "$mod_sizes" | awk -v s="$s" '$1 == s { print $2 }')
	b=$(echo "$bpf_sizes" | awk -v s="$s" '$1 == s { print $2 }')
	case "
$funcs
" in
	*"
${s}_new
"*) ;;
	*)
		if [ "$m" = missing ]; then
			tap_skip "$s: module and iterkit.bpf.h agree on its size" "the module has no ${s}_new"
			continue
		fi
		;;
	esac
	tap_eq "$s: module and iterkit.bpf.h agree on its size ($m, $b)" "$m" "$b"
	case "$m" in
	'' | missing | 0) tap_fail "$s: the module's BTF has its size" ;;
	*) tap_ok "$s: the module's BTF has its size" ;;
	esac
done

# -- rmmod while a program holds the kfuncs --
fifo=/tmp/hold.fifo
rm -f $fifo
mkfifo $fifo
rm -f /tmp/hold.out	# a rerun must not see the last run's "loaded"
$H/hold_prog < $fifo > /tmp/hold.out 2>&1 &
hold=$!
exec 3> $fifo
i=0
while ! grep -q loaded /tmp/hold.out 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
tap_check "helper loaded a program using kit_num" grep -q loaded /tmp/hold.out
refcnt=$(cat /sys/module/iterkit/refcnt)
tap_check "module refcount is held by the program ($refcnt)" test "$refcnt" -ge 1
if rmmod iterkit 2> /tmp/rmmod.err; then
	tap_fail "rmmod refused while the program is loaded"
	insmod iterkit.ko
else
	tap_ok "rmmod refused while the program is loaded"
	tap_diag "$(cat /tmp/rmmod.err)"
fi
tap_check "module still loaded" loaded
echo >&3
exec 3>&-
wait $hold
tap_eq "helper exited cleanly" "$?" 0
wait_unused
tap_check "rmmod works once the program is closed" rmmod iterkit
tap_check "module gone after rmmod" sh -c '! grep -q "^iterkit " /proc/modules'
tap_check "/sys/kernel/btf/iterkit gone after rmmod" test ! -e /sys/kernel/btf/iterkit

# -- LIFECYCLE_CYCLES (50; check-debug: 200) cycles: insmod, programs using
#    the kfuncs running (one in a test-run loop, one on every system call),
#    rmmod refused, programs stopped, rmmod succeeds. Every fourth cycle
#    starts rmmod at once, racing the programs' load: either rmmod wins and
#    the programs cannot load, or the load wins and rmmod is refused. --
cycles=${LIFECYCLE_CYCLES:-50}
leaks_before=
if [ -w /sys/kernel/debug/kmemleak ]; then
	# Forget what was suspect before the cycles.
	echo scan > /sys/kernel/debug/kmemleak
	echo clear > /sys/kernel/debug/kmemleak
	leaks_before=1
fi
rm -f "$fifo"
mkfifo "$fifo"
f_insmod=0 f_btf=0 f_start=0 f_held=0 f_refused=0 f_stop=0 f_rmmod=0 f_gone=0 f_race=0
refusals=0 runs=0 races_unloaded=0 races_held=0
cycle=0
while [ $cycle -lt "$cycles" ]; do
	cycle=$((cycle + 1))
	if ! insmod iterkit.ko; then
		f_insmod=$((f_insmod + 1))
		continue
	fi
	[ -r /sys/kernel/btf/iterkit ] || f_btf=$((f_btf + 1))
	# Emptied here: the child truncates it only once the FIFO opens, so
	# the last cycle's "running" could otherwise pass for this one's.
	: > /tmp/lc.out
	$H/lifecycle_prog < "$fifo" > /tmp/lc.out 2>&1 &
	prog=$!
	exec 3> "$fifo"
	if [ $((cycle % 4)) = 0 ]; then
		if rmmod iterkit 2> /dev/null; then
			# rmmod won: the programs must not load, let alone run.
			exec 3>&-
			wait $prog
			rc=$?
			if [ $rc != 3 ] || grep -q running /tmp/lc.out; then
				f_race=$((f_race + 1))
				tap_diag "race cycle $cycle: rmmod won, yet the program exited $rc: $(cat /tmp/lc.out)"
			fi
			loaded && f_race=$((f_race + 1))
			races_unloaded=$((races_unloaded + 1))
			continue
		fi
		races_held=$((races_held + 1))
	fi
	n=0
	while ! grep -q running /tmp/lc.out && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if ! grep -q running /tmp/lc.out; then
		f_start=$((f_start + 1))
		tap_diag "cycle $cycle: the programs did not start: $(cat /tmp/lc.out)"
		exec 3>&-
		wait $prog
		wait_unused
		rmmod iterkit
		continue
	fi
	[ "$(cat /sys/module/iterkit/refcnt)" -ge 1 ] || f_held=$((f_held + 1))
	for try in 1 2; do
		if rmmod iterkit 2> /dev/null; then
			f_refused=$((f_refused + 1))
			insmod iterkit.ko
		else
			refusals=$((refusals + 1))
		fi
	done
	echo >&3
	exec 3>&-
	wait $prog
	rc=$?
	r=$(sed -n 's/^runs \([0-9]*\) fires [0-9]* bad 0$/\1/p' /tmp/lc.out)
	if [ $rc != 0 ] || [ -z "$r" ] || [ "$r" = 0 ]; then
		f_stop=$((f_stop + 1))
		tap_diag "cycle $cycle: the program exited $rc: $(cat /tmp/lc.out)"
	else
		runs=$((runs + r))
	fi
	wait_unused
	rmmod iterkit || f_rmmod=$((f_rmmod + 1))
	[ -e /sys/kernel/btf/iterkit ] && f_gone=$((f_gone + 1))
done
rm -f "$fifo"
echo "# life-cycle cycles: $cycles ($races_unloaded rmmod-first races, $races_held load-first races); rmmod refused $refusals times while programs ran; $runs program runs"
tap_eq "$cycles cycles: insmod succeeds" "$f_insmod" 0
tap_eq "$cycles cycles: /sys/kernel/btf/iterkit after insmod" "$f_btf" 0
tap_eq "$cycles cycles: programs load and run their walks" "$f_start" 0
tap_eq "$cycles cycles: the programs hold a module reference" "$f_held" 0
tap_eq "$cycles cycles: rmmod refused while programs run" "$f_refused" 0
tap_eq "$cycles cycles: programs stop cleanly, every walk checked" "$f_stop" 0
tap_eq "$cycles cycles: rmmod succeeds once they are gone" "$f_rmmod" 0
tap_eq "$cycles cycles: /sys/kernel/btf/iterkit gone after rmmod" "$f_gone" 0
tap_eq "$cycles cycles: rmmod racing the load: never both" "$f_race" 0
insmod iterkit.ko
out=$(iterkit num 0 100 --json)
tap_contains "kfuncs work after the cycles" "$out" '"count":100,"sum":4950'
log=$(bad_log)
tap_eq "kernel log clean after the cycles" "$log" ""
if [ -n "$leaks_before" ]; then
	# kmemleak reports objects unreferenced for 5 s, found by two scans.
	sleep 6
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	leaks=$(grep -c 'unreferenced object' /sys/kernel/debug/kmemleak)
	echo "# kmemleak after the cycles: $leaks suspected leaks"
	tap_eq "kmemleak: no leak after the cycles" "$leaks" 0
	[ "$leaks" = 0 ] || tap_diag "$(head -n 60 /sys/kernel/debug/kmemleak)"
else
	tap_skip "kmemleak: no leak after the cycles" "no kmemleak in this kernel"
fi

# -- broken BTF is refused at init, with a clear line --
wait_unused
rmmod iterkit
# expect_refused WHAT KO LOGLINE: insmod KO fails and the kernel log says LOGLINE.
# The log is read from a marker of the attempt's own: never cleared, so the
# suites' own marks stay for the checks that follow them.
expect_refused() {
	kmsg_mark "test_lifecycle refusal $1"
	if insmod "$2" 2>/dev/null; then
		tap_fail "module $1 refused"
		rmmod iterkit
	else
		tap_ok "module $1 refused"
	fi
	tap_contains "refusal of a module $1 names the cause" "$(kernel_log_since "test_lifecycle refusal $1")" "$3"
}
expect_refused "without .BTF" tests/iterkit-nobtf.ko "iterkit: module has no BTF (.BTF section)"
# Unusable BTF: iterkit's init refuses it where the kernel let the module in
# without BTF (6.12); from 7.x the kernel validates module BTF itself and
# refuses first. Either is right as long as nothing got registered and the
# log names the cause.
kmsg_mark "test_lifecycle refusal badbtf"
if insmod tests/iterkit-badbtf.ko 2>/dev/null; then
	tap_fail "module with unusable BTF refused"
	rmmod iterkit
else
	tap_ok "module with unusable BTF refused"
fi
log=$(kernel_log_since "test_lifecycle refusal badbtf")
if echo "$log" | grep -q "iterkit: kernel did not publish the module's BTF" ||
	echo "$log" | grep -q "failed to validate module \[iterkit\] BTF"; then
	tap_ok "refusal of a module with unusable BTF names the cause"
else
	tap_fail "refusal of a module with unusable BTF names the cause"
	tap_diag "$log"
fi
tap_check "no kfunc registered by the refused module" sh -c \
	'! echo "$1" | grep -q "iterator kfuncs registered" && [ ! -e /sys/kernel/btf/iterkit ]' _ "$log"
tap_check "nothing left loaded after the refusals" sh -c '! grep -q "^iterkit " /proc/modules'

insmod iterkit.ko
tap_check "module loaded again at the end" loaded
tap_done
