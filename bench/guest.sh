#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make bench` inside the VM: B3 (verifier statistics), B1 (loops), then
# B2 (walkers) and B4 (the loader against /proc, cgroupfs and ps) on
# growing populations of cgroups and tasks. Prints "@@" lines that
# bench/report.py reads; nothing here judges.
#   sh guest.sh [quick]     (quick: fewer rounds and smaller populations)
B=/iterkit/tests/bench
export PATH=/iterkit:$B:$PATH
quick=${1:-}

info() { echo "@@info $*"; }

insmod /iterkit/iterkit.ko || { echo "@@error insmod iterkit.ko failed"; exit 1; }
echo "@@kernel $(uname -r)"
echo "@@arch $(uname -m)"
echo "@@cpus $(nproc)"
echo "@@clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# 10,000 processes need more than the default for a small VM.
echo 100000 > /proc/sys/kernel/threads-max

if [ -n "$quick" ]; then
	R1=5 R2=5 R4=3 NS="0 10 1000 100000" TASK_POPS="100 1000" CG_POPS="100"
	OWN_AHEAD=3000 CG_BIG=3000
else
	R1=21 R2=11 R4=7 NS="0 10 100 1000 10000 100000 1000000" TASK_POPS="100 1000 10000" CG_POPS="100 1000"
	OWN_AHEAD=3000 CG_BIG=10000
fi

# procps ps, with the libraries bench/run copied next to it (or, for a
# foreign architecture, those tests/vm/run copied from its sysroot).
PS=
if [ -x $B/procps/ps ]; then
	PS=$B/procps/ps
	for ld in $B/procps/lib/ld-linux*.so.*; do
		[ -e "$ld" ] && PS="$ld --library-path $B/procps/lib $B/procps/ps"
	done
	$PS -e -o pid,ppid,comm > /dev/null 2>&1 || PS=
fi
[ -n "$PS" ] && echo "@@have ps $($PS --version 2>&1 | head -n 1)" || echo "@@have ps none"
command -v systemd-cgls > /dev/null && echo "@@have systemd-cgls yes" || echo "@@have systemd-cgls none"

info "B3: verifier statistics"
verify $B/loops.bpf.o $B/verify600.bpf.o || echo "@@error verify failed"

info "B1: loops, N = $NS"
loops $R1 $NS || echo "@@error loops failed"

tasks_now() { awk '{ split($4, a, "/"); print a[2] }' /proc/loadavg; }
cgroups_now() { echo $(( $(sed -n 's/^nr_descendants //p' /sys/fs/cgroup/cgroup.stat) + 1 )); }

# Processes until the system has $1 tasks.
grow_tasks() {
	n=$(( $1 - $(tasks_now) ))
	[ $n -gt 0 ] || return 0
	rm -f /tmp/spawn.$1
	spawn $n > /tmp/spawn.$1 &
	while ! grep -q ready /tmp/spawn.$1 2>/dev/null; do sleep 0.2; done
}

# Cgroups (two levels under /sys/fs/cgroup/bench) until there are $1.
grow_cgroups() {
	mkdir -p /sys/fs/cgroup/bench
	i=0
	while [ "$(cgroups_now)" -lt "$1" ]; do
		n=$(( $1 - $(cgroups_now) - 1 ))
		[ $n -gt 99 ] && n=99
		mkdir /sys/fs/cgroup/bench/g$i
		[ $n -gt 0 ] && (cd /sys/fs/cgroup/bench/g$i && mkdir $(seq 1 $n | sed s/^/c/))
		i=$((i + 1))
	done
}

# B5: kit_cgroup's id lookup. make_dying N: N more cgroups removed while
# page cache is charged to them (the memory controller on), so they stay
# dying and every walk steps over them, as on a long-running host.
ndying=0
make_dying() {
	grep -q memory /sys/fs/cgroup/cgroup.subtree_control ||
		echo +memory > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p /sys/fs/cgroup/bench-dying /tmp/bench-dying
	grep -q memory /sys/fs/cgroup/bench-dying/cgroup.subtree_control ||
		echo +memory > /sys/fs/cgroup/bench-dying/cgroup.subtree_control
	k=0
	while [ $k -lt "$1" ]; do
		d=/sys/fs/cgroup/bench-dying/d$ndying
		mkdir $d
		sh -c "echo \$\$ > $d/cgroup.procs && head -c 8192 /dev/zero > /tmp/bench-dying/$ndying"
		rmdir $d
		ndying=$((ndying + 1))
		k=$((k + 1))
	done
}

# The newest cgroup (every other one is ahead of it) looked up from a
# syscall program and a raw_tp, with a tenth as many dying cgroups as live.
b5_curve() {	# POP
	make_dying $(( $1 / 10 - ndying > 0 ? $1 / 10 - ndying : 0 ))
	mkdir -p /sys/fs/cgroup/newest-$1
	echo "@@population lookup $1 cgroups=$(cgroups_now) dying=$(sed -n 's/^nr_dying_descendants //p' /sys/fs/cgroup/cgroup.stat)"
	lookups $R2 newest $1 /sys/fs/cgroup/newest-$1 || echo "@@error lookups newest $1 failed"
}

# One run's phases, memory and counters (iterkit --stats).
stats() {	# LABEL POP COMMAND...
	label=$1 pop=$2
	shift 2
	echo "@@stats $label $pop $("$@" --stats 2>&1 >/dev/null | grep '^iterkit-stats:')"
}

# B4 for one population of WHAT (tasks or cgroups): whole runs, one-shot and
# resident, against the baselines; then one load and R walks against one.
b4() {	# WHAT POP ROUNDS REPEAT_KIT REPEAT_BASELINE
	what=$1 pop=$2 rounds=$3 rk=$4 rb=$5
	if [ "$what" = tasks ]; then
		base=procfs_tasks
		extra=${PS:+:: ps-$pop $PS -e -o pid,ppid,comm}
	else
		base=cgroupfs_walk
		extra=
	fi
	echo "@@population $what $pop tasks=$(tasks_now) cgroups=$(cgroups_now)"
	echo "@@repeat $what $pop $rk $rb"
	# shellcheck disable=SC2086
	timeit $rounds $what-json-$pop iterkit $what --json :: $what-text-$pop iterkit $what \
		:: $base-$pop $base $extra
	iterkit load > /dev/null || echo "@@error iterkit load failed"
	timeit $rounds $what-resident-json-$pop iterkit $what --json \
		:: $what-resident-text-$pop iterkit $what
	stats $what-resident $pop iterkit $what --json
	timeit $rounds $what-walk1-$pop iterkit $what --json --repeat 1 \
		:: $what-walkR-$pop iterkit $what --json --repeat $rk \
		:: $base-walk1-$pop $base --repeat 1 :: $base-walkR-$pop $base --repeat $rb
	iterkit unload > /dev/null
	stats $what-oneshot $pop iterkit $what --json
}

# What starting any process costs here (the floor under every B4 figure).
timeit $R4 floor-true-0 true :: floor-iterkit-0 iterkit --version

info "cgroups: B2 and B4 at $CG_POPS cgroups"
for pop in $CG_POPS; do
	grow_cgroups $pop
	walkers $R2 $pop cgroups || echo "@@error walkers cgroups failed"
	# R walks must take long enough to stand out of the noise of one process start
	if [ "$pop" -lt 1000 ]; then b4 cgroups $pop $R4 51 11; else b4 cgroups $pop $R4 21 3; fi
	b5_curve $pop
done
info "B5: the caller's own cgroup with $OWN_AHEAD cgroups ahead of it; the newest at $CG_BIG"
grow_cgroups $OWN_AHEAD
mkdir -p /sys/fs/cgroup/own
lookups $R2 own $OWN_AHEAD /sys/fs/cgroup/own /sys/fs/cgroup/own || echo "@@error lookups own failed"
grow_cgroups $CG_BIG
b5_curve $CG_BIG

info "tasks: B2 and B4 at $TASK_POPS tasks"
for pop in $TASK_POPS; do
	grow_tasks $pop
	walkers $R2 $pop tasks || echo "@@error walkers tasks failed"
	if [ "$pop" -ge 10000 ]; then
		b4 tasks $pop 5 11 2
	elif [ "$pop" -ge 1000 ]; then
		b4 tasks $pop $R4 21 3
	else
		b4 tasks $pop $R4 51 11
	fi
done
echo "@@done"
