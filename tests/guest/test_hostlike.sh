#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest made to look like a long-running host, then every walker
# checked against /proc, cgroupfs and the kernel's own iterators in it:
#   - a few hundred live cgroups, nested as systemd and Kubernetes nest them
#     (system.slice services with workers, user sessions, pods with
#     containers), about a thousand processes in them and as many threads;
#   - dying cgroups: the memory controller on, page cache (tmpfs pages)
#     charged to a cgroup, then rmdir: it stays dying while that memory does
#     (on 6.12; 7.2 and 7.3 move the pages to the parent when the cgroup
#     goes offline); and cgroups removed with a zombie in them, dying until
#     it is reaped, on every kernel;
#   - a container as systemd-nspawn or podman makes one: its own pid, cgroup
#     and mount namespaces, its init in its own cgroup (busybox's unshare,
#     after helpers/cgns for the cgroup namespace);
#   - task names with control bytes (C0 and C1, as bytes and as UTF-8), a
#     newline, spaces, bytes that are not UTF-8, parentheses, and all 15
#     bytes a comm holds.
# Everything is created here and removed at the end; the last check is that
# nothing is left (no process, no cgroup, no dying cgroup).
. ./tap.sh
kmsg_mark test_hostlike

CG=/sys/fs/cgroup
TMP=/tmp/hostlike
HELPER=/iterkit/tests/helpers/hostlike
mkdir -p "$TMP"
rm -f "$TMP"/*

hex() { printf "$1" | od -An -tx1 | tr -d ' \n'; }
# The bytes of a string, in hex.
hexof() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }

# The names some processes get (printf escapes), beside ordinary ones; C1
# controls (CSI 0x9b, NEL 0x85) as bare bytes and as UTF-8.
NAMES='ev\033[2J\nfake
c1\233x\205y
u8\302\233x\302\205y
with space
\377\376\375bad
abcdefghijklmno
x) S 1 (y
tab\there
\346\227\245\346\234\254
cut\346\227'
echo "$NAMES" | while IFS= read -r n; do hex "$n"; echo; done > "$TMP/names"
ORDINARY="sshd nginx postgres containerd-shim kubelet systemd-journal cron dbus-daemon"

spawner=
ct_unshare=
ct_init=
memory_was=$(cat "$CG/cgroup.subtree_control")

teardown() {
	[ -n "$ct_init" ] && kill -9 "$ct_init" 2>/dev/null
	[ -n "$spawner" ] && kill "$spawner" 2>/dev/null && wait "$spawner" 2>/dev/null
	[ -n "$ct_unshare" ] && wait "$ct_unshare" 2>/dev/null
	for top in system.slice user.slice kubepods.slice machine.slice; do
		[ -d "$CG/$top" ] || continue
		echo 1 > "$CG/$top/cgroup.kill" 2>/dev/null
		i=0
		while grep -q 'populated 1' "$CG/$top/cgroup.events" 2>/dev/null && [ $i -lt 200 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		find "$CG/$top" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
	# The dying cgroups go once the memory charged to them is freed: the
	# page cache that kept them, and every file the container wrote.
	rm -rf "$TMP"
	i=0
	while [ "$(sed -n 's/^nr_dying_descendants //p' "$CG/cgroup.stat")" != 0 ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	case $memory_was in *memory*) ;; *) echo -memory > "$CG/cgroup.subtree_control" 2>/dev/null ;; esac
	left=$(ls -d "$CG"/system.slice "$CG"/user.slice "$CG"/kubepods.slice "$CG"/machine.slice 2>/dev/null)
	dying=$(sed -n 's/^nr_dying_descendants //p' "$CG/cgroup.stat")
	[ -z "$left" ] && [ "$dying" = 0 ]
}
trap teardown EXIT

# -- cgroups --
memory_on=0
echo +memory > "$CG/cgroup.subtree_control" && memory_on=$((memory_on + 1))
mkdir -p "$CG/system.slice" "$CG/user.slice/user-1000.slice/session-1.scope" \
	"$CG/user.slice/user-1000.slice/user@1000.service/app.slice" \
	"$CG/kubepods.slice/kubepods-burstable.slice" "$CG/machine.slice/ct1"
for d in system.slice kubepods.slice kubepods.slice/kubepods-burstable.slice; do
	echo +memory > "$CG/$d/cgroup.subtree_control" && memory_on=$((memory_on + 1))
done
tap_check "set-up: the memory controller on down to the cgroups page cache is charged to (4 writes)" \
	sh -c "[ $memory_on = 4 ] && grep -qw memory $CG/kubepods.slice/kubepods-burstable.slice/cgroup.subtree_control"
plan=$TMP/plan
: > "$plan"
# add DIR PROCS: PROCS processes in DIR, named after ordinary daemons,
# every third with three more threads.
set -- $ORDINARY
nord=$#
k=1
for n in $ORDINARY; do eval "ord$k=$(hex "$n")"; k=$((k + 1)); done
nproc=0
add() {
	k=0
	while [ $k -lt "$2" ]; do
		nproc=$((nproc + 1))
		eval "h=\$ord$((nproc % nord + 1))"
		echo "$CG/$1 $h $((nproc % 3 == 0 ? 3 : 0))" >> "$plan"
		k=$((k + 1))
	done
}
i=1
while [ $i -le 40 ]; do
	mkdir -p "$CG/system.slice/svc$i.service"
	add "system.slice/svc$i.service" 4
	if [ $((i % 4)) = 0 ]; then
		for w in 1 2 3; do
			mkdir -p "$CG/system.slice/svc$i.service/worker-$w"
			add "system.slice/svc$i.service/worker-$w" 2
		done
	fi
	i=$((i + 1))
done
i=1
while [ $i -le 30 ]; do
	mkdir -p "$CG/user.slice/user-1000.slice/user@1000.service/app.slice/app-$i.scope"
	add "user.slice/user-1000.slice/user@1000.service/app.slice/app-$i.scope" 3
	i=$((i + 1))
done
i=1
while [ $i -le 60 ]; do
	pod=kubepods.slice/kubepods-burstable.slice/pod$i.slice
	mkdir -p "$CG/$pod"
	for c in a b; do
		mkdir -p "$CG/$pod/cri-containerd-$i$c.scope"
		add "$pod/cri-containerd-$i$c.scope" 5
	done
	i=$((i + 1))
done
# The hostile names, in a session scope.
while read -r h; do
	echo "$CG/user.slice/user-1000.slice/session-1.scope $h 1" >> "$plan"
done < "$TMP/names"

# -- dying cgroups: tmpfs pages charged to them keep them after rmdir --
# Page cache keeps a removed cgroup dying on 6.12; from 7.2 the kernel
# moves it to the parent when the cgroup goes offline. Either way the
# walkers must show what the kernel counts (cgroup.stat), checked below.
dying_before=$(sed -n 's/^nr_dying_descendants //p' "$CG/cgroup.stat")
dying_made=0
i=1
while [ $i -le 20 ]; do
	d=$CG/system.slice/old$i.service
	mkdir "$d"
	sh -c "echo \$\$ > $d/cgroup.procs && head -c 65536 /dev/zero > $TMP/cache.s$i"
	rmdir "$d" && dying_made=$((dying_made + 1))
	i=$((i + 1))
done
i=1
while [ $i -le 10 ]; do
	d=$CG/kubepods.slice/kubepods-burstable.slice/gone$i.slice
	mkdir "$d"
	sh -c "echo \$\$ > $d/cgroup.procs && head -c 65536 /dev/zero > $TMP/cache.k$i"
	rmdir "$d" && dying_made=$((dying_made + 1))
	i=$((i + 1))
done
# Where the kernel moves page cache to the parent at offline, those
# cgroups are released over the next moments: let that settle (5 s without
# a change, at most 60 s), so that nothing is released while walks are
# compared below.
held=$(sed -n 's/^nr_dying_descendants //p' "$CG/cgroup.stat")
same=0
i=0
while [ $same -lt 5 ] && [ $i -lt 60 ]; do
	sleep 1
	now=$(sed -n 's/^nr_dying_descendants //p' "$CG/cgroup.stat")
	if [ "$now" = "$held" ]; then same=$((same + 1)); else same=0; held=$now; fi
	i=$((i + 1))
done
tap_check "set-up: 30 cgroups removed with page cache charged to them" [ "$dying_made" = 30 ]
kept=$((held - dying_before))
tap_check "dying cgroups: page cache keeps all 30 dying, or (moved to the parent at offline) none: $kept" \
	sh -c "[ '$kept' = 30 ] || [ '$kept' = 0 ]"

# -- dying cgroups: a zombie (exited, not reaped) keeps its cgroup --
i=1
while [ $i -le 15 ]; do
	d=system.slice/zombie$i.service
	[ $i -gt 10 ] && d=kubepods.slice/kubepods-burstable.slice/zombie$i.slice
	mkdir -p "$CG/$d"
	echo "$CG/$d $(hex "defunct") -1" >> "$plan"
	echo "$CG/$d" >> "$TMP/zombie-dirs"
	i=$((i + 1))
done

# -- processes --
mkfifo "$TMP/ready"
"$HELPER" spawn < "$plan" > "$TMP/ready" &
spawner=$!
read -r word started < "$TMP/ready"
want=$(wc -l < "$plan")
tap_check "set-up: ${started:-no} processes started in their cgroups (of $want)" \
	sh -c "[ '$word' = ready ] && [ '$started' = '$want' ]"
removed=0
while read -r d; do rmdir "$d" && removed=$((removed + 1)); done < "$TMP/zombie-dirs"
dying=$(sed -n 's/^nr_dying_descendants //p' "$CG/cgroup.stat")
tap_check "dying cgroups: 15 cgroups removed with a zombie in them stay dying ($dying dying in all, $held before)" \
	sh -c "[ $removed = 15 ] && [ $dying = $((held + 15)) ]"

# -- a container --
cat > "$TMP/ct-init.sh" <<'EOF'
umount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup || exit 1
mkdir /sys/fs/cgroup/init.scope /sys/fs/cgroup/app.service /sys/fs/cgroup/app.service/worker
echo $$ > /sys/fs/cgroup/init.scope/cgroup.procs
(echo 0 > /sys/fs/cgroup/app.service/cgroup.procs && exec sleep 100000) &
(echo 0 > /sys/fs/cgroup/app.service/worker/cgroup.procs && exec sleep 100000) &
echo up > /tmp/hostlike/ct.up
while :; do wait; sleep 1000; done
EOF
sh -c "echo \$\$ > $CG/machine.slice/ct1/cgroup.procs &&
	exec /iterkit/tests/helpers/cgns unshare -p -f --mount-proc sh $TMP/ct-init.sh" &
ct_unshare=$!
i=0
while [ ! -f "$TMP/ct.up" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
# children_of PID: the pids whose parent is PID, from each /proc/N/stat
# (/proc/PID/task/PID/children needs CONFIG_PROC_CHILDREN, which not every
# kernel has).
children_of() {
	local s
	for s in /proc/[0-9]*/stat; do
		# "pid (comm) S ppid ...": the comm may hold spaces and parentheses.
		[ "$(sed -n 's/.*) [A-Za-z] \([0-9]*\) .*/\1/p' "$s" 2>/dev/null)" = "$1" ] &&
			cut -d' ' -f1 "$s"
	done
}
# The container's init: the process busybox's unshare forked (its pid 1).
ct_init=$(children_of "$ct_unshare" | head -n 1)
tap_check "set-up: a container with its own pid, cgroup and mount namespaces (init: host pid ${ct_init:-none})" \
	sh -c "[ -f $TMP/ct.up ] && [ -n '$ct_init' ] && [ \"\$(readlink /proc/$ct_init/ns/pid)\" != \"\$(readlink /proc/self/ns/pid)\" ] && [ \"\$(readlink /proc/$ct_init/ns/cgroup)\" != \"\$(readlink /proc/self/ns/cgroup)\" ]"
# The processes this suite started there, by their pids in the container:
# its init (1) and the init's two workers.
ct_known=$({
	echo 1
	for c in $(children_of "$ct_init"); do
		awk '/^NSpid:/ { print $NF }' "/proc/$c/status"
	done
} | sort -n | tr '\n' ' ')
tasks=$(ls -d /proc/[0-9]*/task/[0-9]* | wc -l)
cgroups=$(find "$CG" -type d | wc -l)
tap_diag "host-like: $cgroups cgroups, $dying dying, $tasks tasks"

# run_helper NAME WANT COMMAND...: COMMAND's TAP, numbered into this
# suite's (tap_relay: a plan, as many results as planned, exit 0), and as
# many results as WANT says, so that a helper stopping before its plan is
# caught too. Its stderr is shown as diagnostics.
run_helper() {
	_hname=$1
	_hwant=$2
	shift 2
	"$@" > "$TMP/$_hname.out" 2> "$TMP/$_hname.err"
	tap_relay "" "$TMP/$_hname.out" $?
	_hbad=$?
	[ -s "$TMP/$_hname.err" ] && sed 's/^/# stderr: /' "$TMP/$_hname.err"
	tap_eq "hostlike $_hname: all $_hwant of its results" "$TAP_RELAYED" "$_hwant" && [ $_hbad -eq 0 ]
}

run_helper check 10 "$HELPER" check "$TMP/names"

# -- and inside the container, from one of its cgroups --
host_id=$(stat -c %i "$CG/system.slice")
root_id=$(stat -c %i "$CG")
run_helper check-ns 7 sh -c "echo \$\$ > $CG/machine.slice/ct1/app.service/cgroup.procs &&
	exec $HELPER enter $ct_init $HELPER check-ns $host_id $root_id"

# -- the loader, against /proc and cgroupfs --
# Thread ids in /proc now (sorted).
proc_tids() { ls -d /proc/[0-9]*/task/[0-9]* | sed 's|.*/||' | sort; }

out=$(iterkit demo 2>&1)
rc=$?
tap_eq "iterkit demo exits 0 here (dying cgroups, containers, hostile names)" "$rc" 0 || tap_diag "$out"
for it in kit_num testmod_seq kit_task kit_cgroup; do
	tap_contains "iterkit demo: $it passes" "$out" "PASS $it"
done

proc_tids > "$TMP/tids.before"
iterkit tasks --threads --json > "$TMP/threads.json"
rc=$?
proc_tids > "$TMP/tids.after"
grep -Fxf "$TMP/tids.before" "$TMP/tids.after" > "$TMP/tids.stable"
sed -n 's/^{"pid":[0-9]*,"tid":\([0-9]*\),.*/\1/p' "$TMP/threads.json" | sort > "$TMP/tids.walk"
missing=$(grep -cvFxf "$TMP/tids.walk" "$TMP/tids.stable")
tap_check "tasks --threads: every thread in /proc before and after is listed ($(wc -l < "$TMP/tids.stable") stable, $(wc -l < "$TMP/tids.walk") listed, exit $rc)" \
	sh -c "[ $rc = 0 ] && [ $missing = 0 ] && [ $(wc -l < "$TMP/tids.stable") -gt 1500 ]"
# What the cgroups hold now, by process: each is listed with its cgroup's processes.
cat $(find "$CG/system.slice" "$CG/user.slice" "$CG/kubepods.slice" -name cgroup.procs) | sort > "$TMP/pids.cg"
iterkit tasks --json > "$TMP/procs.json"
sed -n 's/^{"pid":\([0-9]*\),.*/\1/p' "$TMP/procs.json" | sort > "$TMP/pids.walk"
tap_check "tasks: every process in the host's cgroups is listed ($(wc -l < "$TMP/pids.cg"))" \
	sh -c "[ $(grep -cvFxf "$TMP/pids.walk" "$TMP/pids.cg") = 0 ] && [ $(wc -l < "$TMP/pids.cg") -gt 900 ]"
# Text: one line per task whatever its name holds, no terminal control byte.
# Its own walk, so compared with /proc around it (threads come and go).
proc_tids > "$TMP/tids.before"
iterkit tasks --threads > "$TMP/threads.txt"
proc_tids > "$TMP/tids.after"
grep -Fxf "$TMP/tids.before" "$TMP/tids.after" > "$TMP/tids.stable"
awk 'NR > 1 { print $2 }' "$TMP/threads.txt" | sort > "$TMP/tids.text"
tap_check "tasks text: one line per task ($(($(wc -l < "$TMP/threads.txt") - 1)) lines, $(sort -u "$TMP/tids.text" | wc -l) distinct tids), every thread in /proc before and after among them" \
	sh -c "[ $(wc -l < "$TMP/tids.text") = $(sort -u "$TMP/tids.text" | wc -l) ] &&
		[ $(grep -cvFxf "$TMP/tids.text" "$TMP/tids.stable") = 0 ] && [ $(wc -l < "$TMP/tids.stable") -gt 1500 ]"
tap_eq "tasks text: no control byte in the output (ESC, BS, CR, ...)" \
	"$(tr -d '\n\t' < "$TMP/threads.txt" | tr -d '\040-\176\200-\377' | wc -c)" 0
tap_eq "tasks text: no C1 control as UTF-8 in the output (U+0080-U+009F)" \
	"$(od -An -tx1 -v < "$TMP/threads.txt" | tr -d '\n' | grep -c ' c2 [89]')" 0
# The process a hostile name was given to (NAMES' line N), found by its
# comm in /proc among the session scope's processes.
named_pid() {
	_want=$(sed -n "$1p" "$TMP/names")0a
	for _p in $(cat "$CG/user.slice/user-1000.slice/session-1.scope/cgroup.procs"); do
		[ "$(od -An -tx1 -v < "/proc/$_p/comm" | tr -d ' \n')" = "$_want" ] && echo "$_p"
	done
}
# The comm of that process's line in the text listing.
text_comm() {
	awk -v p="$1" 'NR > 1 && $1 == p && $2 == p' "$TMP/threads.txt" |
		sed 's/^ *[0-9]* *[0-9]* *[0-9]* *[0-9]* [A-Za-z] *[0-9]* //'
}
json_comm() {
	sed -n "s/^{\"pid\":$1,\"tid\":$1,.*,\"comm\":\(.*\)}.*/\1/p" "$TMP/threads.json"
}
p=$(named_pid 1)
tap_eq "tasks text: the name with ESC and a newline shows escaped, a ? for each (pid ${p:-none})" \
	"$(text_comm "$p")" 'ev?[2J?fake'
tap_eq "tasks --json: ... escaped as JSON escapes it" "$(json_comm "$p")" '"ev\u001b[2J\nfake"'
p=$(named_pid 2)
tap_eq "tasks text: C1 controls as bare bytes (0x9b, 0x85) show as ? (pid ${p:-none})" \
	"$(text_comm "$p")" 'c1?x?y'
tap_eq "tasks --json: ... as U+FFFD (not UTF-8)" "$(json_comm "$p")" '"c1\ufffdx\ufffdy"'
p=$(named_pid 3)
# The guest has no UTF-8 locale: in the C locale every byte from 0x80 is a ?
# (the loader's unit tests check C.UTF-8, where each character is one ?).
tap_eq "tasks text: C1 controls as UTF-8 (U+009B, U+0085) show as ?, one per byte in the C locale (pid ${p:-none})" \
	"$(text_comm "$p")" 'u8??x??y'
# JSON escapes only what it must (below U+0020): U+009B stays UTF-8.
tap_eq "tasks --json: ... kept as UTF-8" "$(hexof "$(json_comm "$p")")" "$(hex '"u8\302\233x\302\205y"')"

iterkit cgroups --json > "$TMP/cgroups.json"
sed -n 's/^{"id".*"state":"online".*"path":"\([^"]*\)"}.*/\1/p' "$TMP/cgroups.json" | sort > "$TMP/cg.walk"
find "$CG" -type d | sed "s|^$CG||; s|^\$|/|" | sort > "$TMP/cg.fs"
tap_eq "cgroups: the online cgroups listed are exactly cgroupfs's directories ($(wc -l < "$TMP/cg.fs"))" \
	"$(cat "$TMP/cg.walk")" "$(cat "$TMP/cg.fs")"
dying=$(sed -n 's/^nr_dying_descendants //p' "$CG/cgroup.stat")
tap_eq "cgroups: every dying cgroup is listed, marked dying ($dying)" \
	"$(grep -c '"state":"dying"' "$TMP/cgroups.json")" "$dying"
tap_eq "cgroups text: the same cgroups marked dying" "$(iterkit cgroups | grep -c ', dying, ')" "$dying"

# -- and the loader inside the container: its pids, its cgroup tree --
in_ct() { sh -c "echo \$\$ > $CG/machine.slice/ct1/app.service/cgroup.procs && exec $HELPER enter $ct_init $*"; }
# Its /proc, less the shell listing it (a builtin loop: no other process).
echo 'for p in /proc/[0-9]*; do [ "${p#/proc/}" = $$ ] || echo "${p#/proc/}"; done' > "$TMP/ct-pids.sh"
in_ct sh "$TMP/ct-pids.sh" | sort -n > "$TMP/ct.pids.proc"
in_ct iterkit tasks --json > "$TMP/ct.tasks.json"
# (iterkit itself was not there when /proc was listed)
grep -v '"comm":"iterkit"' "$TMP/ct.tasks.json" | sed -n 's/^{"pid":\([0-9]*\),.*/\1/p' | sort -n > "$TMP/ct.pids.walk"
tap_eq "container: tasks lists exactly the processes started there, by their pids there" \
	"$(tr '\n' ' ' < "$TMP/ct.pids.walk")" "$ct_known"
tap_eq "container: ... which its /proc lists too" "$(tr '\n' ' ' < "$TMP/ct.pids.proc")" "$ct_known"
tap_contains "container: ... its init is pid 1" "$(cat "$TMP/ct.tasks.json")" '{"pid":1,"tid":1,"ppid":0,'
in_ct iterkit cgroups --json > "$TMP/ct.cgroups.json"
tap_eq "container: cgroups lists its tree, paths from its namespace's root" \
	"$(sed -n 's/^{"id".*"state":"online".*"path":"\([^"]*\)"}.*/\1/p' "$TMP/ct.cgroups.json" | sort | tr '\n' ' ')" \
	"/ /app.service /app.service/worker /init.scope "
out=$(in_ct iterkit demo 2>&1)
rc=$?
tap_check "container: iterkit demo exits 0, its walkers passing" \
	sh -c "[ $rc = 0 ] && [ $(printf '%s\n' "$out" | grep -c '^PASS kit_') -ge 2 ]" || tap_diag "$out"

tap_check "the host-like world removed: no process, cgroup or dying cgroup left" teardown
trap - EXIT
tap_log_clean "kernel log clean" test_hostlike
tap_done
