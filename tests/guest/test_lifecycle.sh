#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Module life cycle in the VM: BTF and kfuncs after insmod, rmmod refused
# while a program uses the kfuncs, 50 clean load/unload cycles, and init
# refusing modules whose BTF is missing or unusable. Starts and ends with
# the module loaded.
. /iterkit/tests/tap.sh
cd /iterkit || exit 1
H=/iterkit/tests/helpers

bad_log() {
	dmesg | grep -E 'WARNING|BUG|Oops|rcu_.*stall|Call Trace|refcount_t|missing module BTF|general protection' 
}

loaded() { grep -q '^iterkit ' /proc/modules; }

# Programs are freed asynchronously (after an RCU grace period): wait for
# the module's references to drop before unloading it.
wait_unused() {
	i=0
	while [ "$(cat /sys/module/iterkit/refcnt 2>/dev/null || echo 0)" != 0 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

dmesg -c > /dev/null

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

# -- rmmod while a program holds the kfuncs --
fifo=/tmp/hold.fifo
rm -f $fifo
mkfifo $fifo
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

# -- 50 load/unload cycles --
fails=0
i=0
while [ $i -lt 50 ]; do
	insmod iterkit.ko || fails=$((fails + 1))
	[ -r /sys/kernel/btf/iterkit ] || fails=$((fails + 1))
	rmmod iterkit || fails=$((fails + 1))
	i=$((i + 1))
done
tap_eq "50 load/unload cycles without an error" "$fails" 0
insmod iterkit.ko
out=$(iterkit num 0 100 --json)
tap_contains "kfuncs work after the cycles" "$out" '"count":100,"sum":4950'
log=$(bad_log)
tap_eq "kernel log clean after the cycles" "$log" ""

# -- broken BTF is refused at init, with a clear line --
wait_unused
rmmod iterkit
# expect_refused WHAT KO LOGLINE: insmod KO fails and the kernel log says LOGLINE.
expect_refused() {
	dmesg -c > /dev/null
	if insmod "$2" 2>/dev/null; then
		tap_fail "module $1 refused"
		rmmod iterkit
	else
		tap_ok "module $1 refused"
	fi
	tap_contains "refusal of a module $1 names the cause" "$(dmesg)" "$3"
}
expect_refused "without .BTF" tests/iterkit-nobtf.ko "iterkit: module has no BTF (.BTF section)"
# Unusable BTF: iterkit's init refuses it where the kernel let the module in
# without BTF (6.12); from 7.x the kernel validates module BTF itself and
# refuses first. Either is right as long as nothing got registered and the
# log names the cause.
dmesg -c > /dev/null
if insmod tests/iterkit-badbtf.ko 2>/dev/null; then
	tap_fail "module with unusable BTF refused"
	rmmod iterkit
else
	tap_ok "module with unusable BTF refused"
fi
log=$(dmesg)
if echo "$log" | grep -q "iterkit: kernel did not accept the module's BTF" ||
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
