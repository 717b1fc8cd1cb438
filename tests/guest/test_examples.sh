#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The examples of examples/, built by their own Makefiles as a user builds
# them (tests/examples/stage.sh put them in /iterkit/tests/examples), run
# here against the real module:
# - minimal: what kit_num and testmod_seq yielded, computed in the kernel;
# - the bpftool path: loadall, prog run, map dump, with no loader;
# - cgtop: every line checked against cgroupfs (cgroup.procs, cgroup.threads)
#   for a tree with processes, a process with threads and a zombie;
# - threads: the process with the most threads, and the kernel's counts
#   equal to the same program's /proc counts;
# - without the module: what each prints, and threads' exit status 3;
#   without the walkers (the module as built for kernels before 6.7,
#   tests/iterkit-nowalkers.ko): threads falls back, minimal runs;
# - no kernel report meanwhile.
# Starts and ends with the module loaded.
. ./tap.sh
. ./examples.sh
kmsg_mark test_examples
E=/iterkit/tests/examples
export LD_LIBRARY_PATH=$E/lib
CG=/sys/fs/cgroup/iterkit-examples
if [ ! -x $E/minimal/minimal ] || [ ! -x $E/cgtop/cgtop ] || [ ! -x $E/threads/threads ]; then
	tap_fail "the examples are built (no $E/*/<name>)"
	tap_done
	exit 1
fi

# -- minimal --
run $E/minimal/minimal
tap_eq "minimal exits 0" "$rc" 0 || tap_diag "$err"
tap_contains "minimal: kit_num [0, 10) yields 10 values, sum 45" "$out" "kit_num [0, 10): 10 values, sum 45"
tap_contains "minimal: testmod_seq 7 x 3 yields 3 values, sum 21" "$out" "testmod_seq 7 x 3: 3 values, sum 21"
run $E/minimal/minimal -1000 2500 -9 4000
s=0 i=-1000
while [ $i -lt 2500 ]; do s=$((s + i)); i=$((i + 1)); done
tap_contains "minimal: kit_num [-1000, 2500) as plain C sums it ($s)" "$out" "kit_num [-1000, 2500): 3500 values, sum $s"
tap_contains "minimal: testmod_seq -9 x 4000" "$out" "testmod_seq -9 x 4000: 4000 values, sum -36000"
run $E/minimal/minimal 1
tap_eq "minimal with one argument exits 2" "$rc" 2

# -- bpftool, no loader --
P=/sys/fs/bpf/iterkit-minimal
run $E/bin/bpftool prog loadall $E/minimal/minimal.bpf.o $P
tap_eq "bpftool prog loadall minimal.bpf.o" "$rc" 0 || tap_diag "$err"
tap_eq "both programs pinned" "$(ls $P | tr '\n' ' ')" "minimal minimal_xdp "
out=$(head -c 14 /dev/zero | $E/bin/bpftool prog run pinned $P/minimal_xdp data_in - 2>&1)
tap_contains "bpftool prog run: XDP_PASS" "$out" "Return value: 2,"
run $E/bin/bpftool map dump name minimal.bss
tap_contains "bpftool map dump: kit_num's sum" "$out" '"num_sum": 45'
tap_contains "bpftool map dump: testmod_seq's sum" "$out" '"seq_sum": 21'
rm -r $P

# -- cgtop: a tree with known members --
rmdir $CG/a/c "$CG/with space" $CG/a $CG/b $CG 2>/dev/null
mkdir -p $CG/a/c "$CG/with space" $CG/b
join() { echo "$2" > "$1/cgroup.procs"; }
sleep 1000 & s1=$!
sleep 1000 & s2=$!
join $CG/a $s1
join $CG/a $s2
$E/bin/hold_threads 4 > /tmp/ht.out &
ht=$!
i=0
while ! grep -q ready /tmp/ht.out 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
join $CG/a/c $ht
# A zombie: sleep 0 exits, and its parent, now sleep 1000, never reaps it.
sh -c "echo \$\$ > $CG/b/cgroup.procs; sleep 0 & exec sleep 1000" &
zp=$!
zombie=
i=0
while [ -z "$zombie" ] && [ $i -lt 100 ]; do
	sleep 0.1
	zombie=$(for f in /proc/[0-9]*/stat; do awk -v p=$zp '$4 == p && $3 == "Z" { print $1 }' "$f" 2>/dev/null; done)
	i=$((i + 1))
done
tap_check "set-up: a process with 5 threads and a zombie (pid ${zombie:-none})" \
	[ "$(awk '/^Threads:/ { print $2 }' /proc/$ht/status)" = 5 -a -n "$zombie" ]

# expected PATH: "procs threads tasks PATH" from cgroupfs for the dir PATH
expected() {
	d=$1
	p=$(wc -l < "$d/cgroup.procs")
	t=$(wc -l < "$d/cgroup.threads")
	k=$(find "$d" -name cgroup.threads | while read -r f; do cat "$f"; done | wc -l)
	echo "$p $t $k"
}
# check LABEL OUTPUT PREFIX: each cgroup under $CG has its line, with PREFIX for /sys/fs/cgroup
check_tree() {
	label=$1 text=$2 prefix=$3
	n=0 bad=
	for d in $CG $CG/a $CG/a/c "$CG/with space" $CG/b; do
		want="$(expected "$d") $prefix${d#/sys/fs/cgroup}"
		got=$(printf '%s\n' "$text" | awk -v p="$prefix${d#/sys/fs/cgroup}" '{ l = $0; sub(/^ *[0-9]+ +[0-9]+ +[0-9]+  /, "", l) } l == p { print $1, $2, $3, l }')
		[ "$got" = "$want" ] || bad="$bad
  want: $want
  got:  $got"
		n=$((n + 1))
	done
	if [ -z "$bad" ]; then tap_ok "$label: $n cgroups as cgroupfs counts them"; else tap_fail "$label"; tap_diag "$bad"; tap_diag "$text"; fi
}
run $E/cgtop/cgtop -n 1 $CG
tap_eq "cgtop -n 1 CGROUP exits 0" "$rc" 0 || tap_diag "$err"
tap_eq "cgtop: a header and one line per cgroup" "$(printf '%s\n' "$out" | wc -l)" 6
check_tree "cgtop from $CG" "$out" /sys/fs/cgroup
tap_contains "cgtop: c holds 1 process with 5 threads" "$out" "       1        5        5  $CG/a/c"
tap_contains "cgtop: the zombie is not counted in b (1 process, 1 thread)" "$out" "       1        1        1  $CG/b"
run $E/cgtop/cgtop -n 1 -d 9
tap_eq "cgtop -n 1 (from the root) exits 0" "$rc" 0 || tap_diag "$err"
check_tree "cgtop from the root" "$out" ""
tap_eq "cgtop: the root's line comes first" "$(printf '%s\n' "$out" | sed -n '2s/^ *[0-9]* *[0-9]* *[0-9]*  //p')" /
run $E/cgtop/cgtop -n 1 -d 1
tap_eq "cgtop -d 1: nothing below level 1" "$(printf '%s\n' "$out" | awk 'NR > 1 && $4 ~ /\/.*\// { print }')" ""
tap_contains "cgtop -d 1: $CG's tasks still count its descendants" "$out" "       0        0        8  ${CG#/sys/fs/cgroup}"
run $E/cgtop/cgtop -n 3 -i 0.1 $CG/a
tap_eq "cgtop -n 3: three samples" "$(printf '%s\n' "$out" | grep -c '^ *procs')" 3
run $E/cgtop/cgtop /proc
tap_eq "cgtop on a directory that is no cgroup exits 1" "$rc" 1
tap_contains "... and says so" "$err" "/proc is not a cgroup v2 directory"
run $E/cgtop/cgtop -n x
tap_eq "cgtop -n x exits 2" "$rc" 2

# -- threads --
run $E/threads/threads -n 3
tap_eq "threads exits 0 with iterkit" "$rc" 0 || tap_diag "$err"
tap_contains "threads: counted by kit_task" "$out" "counted by:  kit_task"
top1=$(printf '%s\n' "$out" | sed -n 5p)
tap_eq "threads: the process with the most threads is hold_threads, 5 threads" \
	"$(echo $top1)" "$ht 0 5 hold_threads"
kernel_user=$(printf '%s\n' "$out" | grep '^user:')
run $E/threads/threads -p -n 3
tap_eq "threads -p exits 3 (counted from /proc)" "$rc" 3
tap_eq "threads: the kernel's user counts are /proc's" "$kernel_user" "$(printf '%s\n' "$out" | grep '^user:')"
tap_eq "threads -p: the same first process" "$(echo $(printf '%s\n' "$out" | sed -n 5p))" "$ht 0 5 hold_threads"

kill $s1 $s2 $ht $zp 2>/dev/null
wait $s1 $s2 $ht $zp 2>/dev/null
rmdir $CG/a/c "$CG/with space" $CG/a $CG/b $CG

# -- without the module --
if unload; then
	run $E/threads/threads
	tap_eq "no module: threads exits 3" "$rc" 3
	tap_eq "no module: threads says why, in one line" "$err" \
		"threads: the iterkit module is not loaded (modprobe iterkit): counted from /proc"
	tap_contains "no module: threads counted from /proc" "$out" "counted by:  /proc"
	run $E/minimal/minimal
	tap_eq "no module: minimal exits 1" "$rc" 1
	tap_contains "no module: libbpf names the kfunc it could not resolve" "$err" \
		"kfunc 'bpf_iter_kit_num_new' is referenced but wasn't resolved"
	tap_contains "no module: minimal's last line says what to do" "$(printf '%s\n' "$err" | tail -n 1)" \
		"minimal: cannot load the BPF program: Invalid argument (the iterkit module is not loaded: modprobe iterkit)"
	run $E/cgtop/cgtop -n 1
	tap_eq "no module: cgtop exits 1" "$rc" 1
	run $E/bin/bpftool prog loadall $E/minimal/minimal.bpf.o $P
	tap_check "no module: bpftool prog loadall fails" [ "$rc" -ne 0 ]
	tap_contains "... naming the kfunc" "$err" "kfunc 'bpf_iter_kit_num_new' is referenced but wasn't resolved"
	rm -rf $P
else
	tap_fail "rmmod iterkit (something still holds the module)"
fi

# -- the module without its walkers (as built for kernels before 6.7) --
if load_nowalkers "no walkers: threads falls back, minimal runs"; then
	run $E/threads/threads
	tap_eq "no walkers: threads exits 3" "$rc" 3
	tap_eq "no walkers: threads says why" "$err" \
		"threads: the iterkit module has no task walker (a kernel before 6.7): counted from /proc"
	run $E/minimal/minimal
	tap_contains "no walkers: minimal still runs" "$out" "kit_num [0, 10): 10 values, sum 45"
	unload || tap_fail "rmmod iterkit-nowalkers.ko"
fi
grep -q '^iterkit ' /proc/modules || insmod /iterkit/iterkit.ko
tap_log_clean "kernel log clean" test_examples
tap_done
