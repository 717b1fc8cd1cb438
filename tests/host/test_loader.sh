#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The iterkit loader, as a user runs it: one VM boot runs every subcommand
# (text, --json, --help, bad input, module missing, the module without its
# walkers, resident programs), then the host checks the values the kernel
# produced, the JSON and the exit codes.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh

# Each case: NAME|COMMAND. The guest prints "@@case NAME rc=N" after its output.
# A line "!COMMAND" is run as it is, between the cases (set-up).
# Where a case needs another process to have reached a state (asleep
# between walks, blocked writing), it waits for that in /proc/PID/wchan:
# inwchan PID REGEX, at most 60 s, saying so when it was not reached.
cases='
nomod_status|iterkit status
nomod_num|iterkit num 0 3
nomod_num_json|iterkit num 0 3 --json
nomod_demo|iterkit demo
LOAD|insmod iterkit.ko
!named() { sh -c "printf \"\$0\" > /proc/\$\$/comm; while :; do sleep 100; done" "$1" & p=$!; i=0; while [ "$(cat /proc/$p/comm)" = sh ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done; }
!unmod() { i=0; while [ "$(cat /sys/module/iterkit/refcnt)" != 0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; rmmod iterkit; }
!echo +memory > /sys/fs/cgroup/cgroup.subtree_control && mkdir /sys/fs/cgroup/dying1 /sys/fs/cgroup/live1 && sh -c "echo \$\$ > /sys/fs/cgroup/dying1/cgroup.procs && dd if=/dev/zero of=/tmp/dying1.dat bs=64k count=64 2>/dev/null" && rmdir /sys/fs/cgroup/dying1
dying_stat|sed -n "s/^nr_dying_descendants //p" /sys/fs/cgroup/cgroup.stat
dying_json|iterkit cgroups --json
dying_text|iterkit cgroups
dying_dirs|find /sys/fs/cgroup -type d | sed "s|^/sys/fs/cgroup||; s|^$|/|" | sort
!named "$(printf "ev\033[2J\nfake")"; mkdir "$(printf "/sys/fs/cgroup/cg\033[31mred")"
esc_tasks|iterkit tasks
esc_tree|iterkit tasks --tree
esc_json|iterkit tasks --json
esc_cgroups|iterkit cgroups
esc_cgroups_json|iterkit cgroups --json
!mkdir /sys/fs/cgroup/ctr; printf "%s\n" "umount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup || exit 1" "mkdir -p /sys/fs/cgroup/inner" "sleep 1000 &" "eval \"\$1\"" > /tmp/ctr.sh
!ctr() { sh -c "echo \$\$ > /sys/fs/cgroup/ctr/cgroup.procs && exec /iterkit/tests/helpers/cgns unshare -p -f --mount-proc sh /tmp/ctr.sh \"\$0\"" "$1"; }
root_ids|stat -c %i /sys/fs/cgroup /sys/fs/cgroup/ctr
ctr_tasks|ctr "ps -o pid,ppid,comm; echo @@cut; iterkit tasks --json"
ctr_threads|ctr "iterkit tasks --threads --json"
ctr_pid|ctr "iterkit tasks --pid 1 --json; echo @@cut; iterkit tasks --pid \$! --json"
ctr_nopid|ctr "iterkit tasks --pid 99999"
ctr_host|ctr "iterkit tasks --host --json"
ctr_cgroups|ctr "find /sys/fs/cgroup -type d | sed \"s|^/sys/fs/cgroup||; s|^\$|/|\" | sort; echo @@cut; iterkit cgroups --json"
ctr_cgroups_host|ctr "iterkit cgroups --host --json"
ctr_up|ctr "iterkit cgroups --root /sys/fs/cgroup/inner --order up --json"
ctr_outside|ctr "iterkit cgroups --root 1"
ctr_demo|ctr "iterkit demo"
ver_status|iterkit status --json
!unmod; insmod tests/iterkit-otherversion.ko
ver_num|iterkit num 0 3
ver_status_bad|iterkit status
!unmod; insmod iterkit.ko
status|iterkit status
status_json|iterkit status --json
num|iterkit num -3 3
num_json|iterkit num 0 100 --json
num_json_first|iterkit --json num 5 8
num_empty|iterkit num 7 7 --json
num_int_min|iterkit num -2147483648 -2147483646 --json
num_int_max|iterkit num 2147483645 2147483647 --json
num_einval|iterkit num 5 0 --json
num_einval_text|iterkit num 5 0
num_e2big|iterkit num 0 8388609 --json
num_max|iterkit num 0 8388608 --json
num_hex|iterkit num 0x10 0x14 --json
seq|iterkit seq 7 3
seq_json|iterkit seq -5 1000 --json
seq_neg|iterkit seq 1 -1 --json
demo|iterkit demo
demo_json|iterkit demo --json
help|iterkit --help
version|iterkit --version
num_help|iterkit num --help
seq_help|iterkit seq --help
tasks_help|iterkit tasks --help
cgroups_help|iterkit cgroups --help
tasks|iterkit tasks
tasks_json|iterkit tasks --json
tasks_threads_json|iterkit tasks --threads --json
tasks_pid1|iterkit tasks --pid 1 --json
tasks_tree|iterkit tasks --tree
tasks_nopid|iterkit tasks --pid 99999
bad_tasks_pid|iterkit tasks --pid x
bad_tasks_opt|iterkit tasks --frobnicate
cgroups|iterkit cgroups
cgroups_json|iterkit cgroups --json
cgroups_self|iterkit cgroups --order self --json
cgroups_noroot|iterkit cgroups --root /sys/fs/cgroup/no/such/cgroup
bad_cgroups_order|iterkit cgroups --order bogus
bad_noargs|iterkit
bad_cmd|iterkit frobnicate
bad_opt|iterkit --frobnicate status
bad_num_missing|iterkit num 1
bad_num_extra|iterkit num 1 2 3
bad_num_text|iterkit num one 2
bad_num_range|iterkit num 0 2147483648
bad_num_trailing|iterkit num 1x 2
bad_seq_text|iterkit seq 1 many
bad_seq_range|iterkit seq 99999999999999999999 1
bad_status_arg|iterkit status extra
bad_demo_arg|iterkit demo extra
bad_repeat|iterkit tasks --repeat 0
bad_interval|iterkit cgroups --repeat 2 --interval soon
bad_json_value|iterkit --json=1 status
bad_json_value_cmd|iterkit status --json=1
bad_short|iterkit -xv status
bad_short_cmd|iterkit tasks -xv
num_decimal|iterkit num 08 010 --json
epipe|sh -c "{ iterkit tasks --threads --repeat 300; echo rc=\$? >&2; } | head -c 100 > /dev/null"
epipe_status|sh -c "{ sleep 1; iterkit status; echo rc=\$? >&2; } | true"
full_help|{ iterkit --help > /dev/full; }
full_num_json|{ iterkit num 0 3 --json > /dev/full; }
!mkdir /sys/fs/cgroup/3rdparty
root_digit_path|iterkit cgroups --root 3rdparty --order self --json
root_u64|iterkit cgroups --root 18446744073709551615
root_long|iterkit cgroups --root "/$(head -c 5000 /dev/zero | tr "\0" a)"
num_dashdash|iterkit --json num -- -9 -1
bad_num_nine|iterkit num -1 -2 -3 -4 -5 -6 -7 -8 -9
bad_interval_hex|iterkit cgroups --repeat 2 --interval 0x10
bad_pid_hex|iterkit tasks --pid 0x1
bad_lock_timeout|iterkit tasks --lock-timeout soon
json_err_usage|iterkit num 1 --json
json_err_command|iterkit --json frobnicate
json_err_late|iterkit tasks --frobnicate --json
json_err_nopid|iterkit tasks --pid 99999 --json
verbose_after|iterkit num 0 3 -v
verbose_before|iterkit -v num 0 3
opts_anywhere|iterkit --stats tasks --pid 1 --json
stats_tasks|iterkit tasks --json --stats
tree_all|iterkit tasks --tree
tree_count|iterkit tasks --json
repeat_json|iterkit tasks --json --repeat 3 --stats
repeat_cgroups_json|iterkit cgroups --json --repeat 2
repeat_interval|iterkit cgroups --root / --order self --repeat 2 --interval 0.2
!named "caf\303\251 \303\274"; named "\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251\303\251"
!mkdir "$(printf "/sys/fs/cgroup/caf\303\251")"
utf8_tasks|iterkit tasks --json
utf8_tasks_text|LC_ALL=C iterkit tasks
utf8_cgroups|iterkit cgroups --json
!umount /sys/fs/cgroup
nocg_demo|iterkit demo
nocg_demo_json|iterkit demo --json
!mount -t cgroup2 cgroup2 /sys/fs/cgroup
resident_load|iterkit load
!mkdir -p /sys/fs/bpf/iterkit/0123456789ab/tasks
resident_status|iterkit status --json
resident_status_text|iterkit status
!inwchan() { i=0; until grep -qE "$2" /proc/$1/wchan 2>/dev/null; do if [ $i -ge 600 ]; then echo "pid $1 not in $2 after 60 s (wchan: $(cat /proc/$1/wchan 2>&1))"; return 1; fi; sleep 0.1; i=$((i + 1)); done; }
resident_lock|{ iterkit tasks --repeat 2 --interval 300 > /dev/null & p=$!; inwchan $p nanosleep; iterkit tasks --json > /dev/null; r=$?; kill -0 $p 2>/dev/null && echo "first still waiting"; kill $p; wait $p; (exit $r); }
resident_blocked|{ go=/tmp/resident_blocked.go; rm -f $go; (iterkit tasks --json --repeat 100000 | { until [ -e $go ]; do sleep 0.1; done; }) & w=$!; i=0; until pidof iterkit > /dev/null || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done; inwchan "$(pidof iterkit)" pipe_write; iterkit tasks --json > /dev/null; r=$?; pidof iterkit > /dev/null && echo "writer still blocked"; touch $go; wait $w; rm -f $go; (exit $r); }
!held() { iterkit tasks --threads --repeat 1000000000 > /dev/null & h=$!; ino=$(stat -c %i $(ls -d /sys/fs/bpf/iterkit/*/tasks | grep -v 0123456789ab)); i=0; while [ $i -lt 3000 ]; do kill -STOP $h; grep -q "FLOCK .* $h [0-9a-f]*:[0-9a-f]*:$ino " /proc/locks && return 0; kill -CONT $h; i=$((i + 1)); done; return 1; }
lock_timeout|{ held || echo "never caught holding the lock"; echo "holder=$h"; iterkit tasks --json --lock-timeout 0.5; r=$?; kill -KILL $h; wait $h 2>/dev/null; (exit $r); }
lock_wait|{ held || echo "never caught holding the lock"; echo "holder=$h"; iterkit tasks --json > /tmp/lw.json & w=$!; sleep 2; kill -0 $w 2>/dev/null && echo "still waiting"; kill -KILL $h; wait $w; r=$?; wait $h 2>/dev/null; grep -c "\"pid\":1," /tmp/lw.json; (exit $r); }
resident_tasks|iterkit tasks --json --stats
resident_num|iterkit num 0 100 --json --stats
resident_rmmod|rmmod iterkit
resident_unload|iterkit unload
resident_rmmod_after|rmmod iterkit
!insmod iterkit.ko
resident_race|{ f=0; for i in 1 2 3 4 5 6; do iterkit load > /dev/null 2>/tmp/l.$i & a=$!; iterkit unload > /dev/null 2>/tmp/u.$i & b=$!; iterkit tasks --json > /dev/null & c=$!; wait $a || f=$((f + 1)); wait $b || f=$((f + 1)); wait $c || f=$((f + 1)); done; echo "failed=$f leftovers=$(ls /sys/fs/bpf/iterkit | grep -c new-)"; cat /tmp/l.* /tmp/u.*; }
resident_cycle|{ iterkit load > /dev/null && iterkit tasks > /dev/null && iterkit unload && rmmod iterkit; }
nowalk_insmod|insmod tests/iterkit-nowalkers.ko
nowalk_demo|iterkit demo
nowalk_demo_json|iterkit demo --json
nowalk_tasks|iterkit tasks
nowalk_status|iterkit status --json
nowalk_load|iterkit load --json
!iterkit unload >/dev/null; unmod; insmod iterkit.ko
!mkdir /sys/fs/cgroup/small
!for c in 1 2 3; do mkdir /sys/fs/cgroup/grow$c; (cd /sys/fs/cgroup/grow$c && mkdir $(seq 1 100 | sed s/^/g/)); done
grow_total|find /sys/fs/cgroup -type d | wc -l
grow_walk|unshare -m sh -c "mount --bind /sys/fs/cgroup/small /sys/fs/cgroup && iterkit cgroups --json --stats"
!names=$(seq 1 260 | sed s/^/c/); for d in $(seq 0 99); do mkdir /sys/fs/cgroup/many$d && (cd /sys/fs/cgroup/many$d && mkdir $names); done
many_total|sed -n "s/^nr_descendants //p" /sys/fs/cgroup/cgroup.stat
many_json|{ iterkit cgroups --json > /tmp/many.json; r=$?; grep -c "^{\"id\"" /tmp/many.json; grep -o "\"count\":[0-9]*,\"dropped\":[0-9]*" /tmp/many.json; (exit $r); }
many_text|{ iterkit cgroups > /tmp/many.txt; r=$?; wc -l < /tmp/many.txt; (exit $r); }
!inload() { iterkit load > /dev/null & p=$!; i=0; until ls /sys/fs/bpf/iterkit 2>/dev/null | grep -q "^new-$p\$"; do [ $i -lt 3000 ] || break; sleep 0.01; i=$((i + 1)); done; kill -STOP $p; echo "loading: $(ls /sys/fs/bpf/iterkit 2>/dev/null | grep -c "^new-$p\$")"; }
!refs() { i=0; while [ "$(cat /sys/module/iterkit/refcnt)" != 0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; echo "refcnt=$(cat /sys/module/iterkit/refcnt)"; }
unload_wait|{ inload; echo "loader=$p"; iterkit unload --lock-timeout 0.3; r=$?; kill -CONT $p; wait $p; echo "load rc=$?"; iterkit unload > /dev/null; refs; (exit $r); }
load_sigint|{ inload; kill -INT $p; kill -CONT $p; wait $p; echo "rc=$?"; echo "left: $(ls /sys/fs/bpf/iterkit | wc -l)"; refs; }
load_sigterm|{ inload; kill -TERM $p; kill -CONT $p; wait $p; echo "rc=$?"; echo "left: $(ls /sys/fs/bpf/iterkit | wc -l)"; refs; }
caps_user|/iterkit/tests/helpers/caps_exec uid 1000 iterkit num 0 3
caps_noperfmon|/iterkit/tests/helpers/caps_exec drop 21,38 iterkit tasks
caps_noperfmon_v|/iterkit/tests/helpers/caps_exec drop 21,38 iterkit -v tasks
caps_noperfmon_json|/iterkit/tests/helpers/caps_exec drop 21,38 iterkit tasks --json
caps_bpf_perfmon|/iterkit/tests/helpers/caps_exec drop 21 iterkit tasks --json
caps_userns|unshare -U -r iterkit num 0 3
!mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
lockdown_tasks|if echo confidentiality 2>/dev/null > /sys/kernel/security/lockdown; then iterkit tasks; else echo "no lockdown LSM"; fi
'
script=$(mktemp)
while IFS='|' read -r name cmd; do
	[ -n "$name" ] || continue
	if [ "${name#!}" != "$name" ]; then
		printf '%s\n' "${name#!}${cmd:+|$cmd}" >> "$script"
		continue
	fi
	printf '%s > /tmp/out.%s 2> /tmp/err.%s; echo "@@case %s rc=$?"; cat /tmp/out.%s; echo "@@stderr"; cat /tmp/err.%s; echo "@@end"\n' \
		"$cmd" "$name" "$name" "$name" "$name" "$name" >> "$script"
done <<<"$cases"
# 26,000 cgroups at the end take about 600 MB of kernel memory.
out=$(tests/vm/run --timeout 900 --mem 2048 -- "$(cat "$script")")
vmrc=$?
rm -f "$script"
if [ $vmrc -ne 0 ]; then
	tap_fail "loader VM run (exit $vmrc)"
	tap_diag "$out"
	tap_done
	exit
fi

# stdout, stderr and exit status of one case
get() { awk -v n="$1" '$0 ~ "^@@case "n" rc=" {p=1; next} /^@@stderr/ {p=0} /^@@end/ {p=0} p' <<<"$out"; }
err() { awk -v n="$1" '$0 ~ "^@@case "n" rc=" {f=1; next} f && /^@@stderr/ {p=1; next} /^@@end/ {p=0; f=0} p' <<<"$out"; }
rc() { sed -n "s/^@@case $1 rc=\([0-9]*\)$/\1/p" <<<"$out"; }
json() { get "$1" | jq -e "$2" >/dev/null 2>&1; }

# With --json an error is one JSON object on stdout, {"error": ...}, and
# nothing on stderr (as bpftool does); the exit status stays.
check_json_error() {	# NAME RC TEXT-IN-THE-MESSAGE
	local o e r
	o=$(get "$1")
	e=$(err "$1")
	r=$(rc "$1")
	if [ "$r" = "$2" ] && [ -z "$e" ] && [ "$(wc -l <<<"$o")" = 1 ] &&
		jq -e --arg t "$3" '(keys == ["error"]) and (.error | contains($t))' <<<"$o" >/dev/null 2>&1; then
		tap_ok "$1: {\"error\": ...} on stdout, exit $2"
	else
		tap_fail "$1: {\"error\": ...} on stdout, exit $2"
		tap_diag "exit $r; stdout: $o; stderr: $e"
	fi
}

# The "iterkit-stats:" line's KEY=VALUE.
stat_of() { err "$1" | sed -n "s/^iterkit-stats:.* $2=\([0-9.]*\).*/\1/p"; }

check_json() {	# NAME JQ-EXPRESSION DESCRIPTION
	if json "$1" "$2"; then
		tap_ok "$1: $3"
	else
		tap_fail "$1: $3"
		tap_diag "jq: $2"
		tap_diag "$(get "$1")"
	fi
}

# -- without the module: one clear line, exit 1 --
tap_eq "status without the module exits 1" "$(rc nomod_status)" 1
tap_contains "status without the module says so" "$(get nomod_status)" "module:        not loaded"
tap_eq "num without the module exits 1" "$(rc nomod_num)" 1
tap_eq "num without the module: one line on stderr" "$(err nomod_num | wc -l)" 1
tap_contains "num without the module names the fix" "$(err nomod_num)" "not loaded"
tap_eq "num without the module: the path it checked, named" "$(err nomod_num)" \
	"iterkit: num: the iterkit module is not loaded (no /sys/module/iterkit); load it with: modprobe iterkit"
tap_eq "demo without the module exits 1" "$(rc nomod_demo)" 1
check_json_error nomod_num_json 1 "not loaded"

# -- status --
tap_eq "status exits 0 with the module" "$(rc status)" 0
tap_contains "status: kit_num available" "$(get status)" "kit_num        available"
tap_contains "status: testmod_seq available" "$(get status)" "testmod_seq    available"
check_json status_json '.module_loaded and .module_btf and .usable and .kernel_supported' "loaded, BTF, usable"
check_json status_json '.kernel_supported and .kernel_walkers and ([.iterators[].needs_kernel_func] | unique) == ["bpf_iter_num_new","bpf_iter_task_new"]' "kernel support read from the kernel's BTF (bpf_iter_num_new, bpf_iter_task_new)"
check_json status_json '[.iterators[] | select(.name=="kit_num") | .kfuncs[]] == ["bpf_iter_kit_num_new","bpf_iter_kit_num_next","bpf_iter_kit_num_destroy"]' "kit_num kfuncs listed"
check_json status_json '[.iterators[] | select(.name=="testmod_seq") | .available] == [true]' "testmod_seq available"
check_json status_json '[.iterators[] | select(.name=="kit_cgroup_at") | .kfuncs[]] == ["bpf_iter_kit_cgroup_at_new","bpf_iter_kit_cgroup_at_next","bpf_iter_kit_cgroup_at_destroy"]' "kit_cgroup_at (a BPF program's own iterator) listed with its kfuncs"
check_json status_json ".kernel == \"$(scripts/kver.sh)\"" "running kernel reported"

# -- num --
tap_eq "num -3 3 exits 0" "$(rc num)" 0
tap_eq "num -3 3 text" "$(get num)" "kit_num [-3, 3): 6 values, sum -3
-3 -2 -1 0 1 2"
check_json num_json '.ret == 0 and .count == 100 and .sum == 4950 and .values == [range(0;64)] and .truncated' "0..99 from the kernel"
check_json num_json_first '.values == [5,6,7]' "--json before the command"
check_json num_empty '.ret == 0 and .count == 0 and .values == []' "empty range"
check_json num_int_min '.values == [-2147483648,-2147483647] and .sum == -4294967295' "INT_MIN edge"
check_json num_int_max '.values == [2147483645,2147483646] and .sum == 4294967291' "INT_MAX edge"
check_json num_einval '.ret == -22 and .new_errno == "EINVAL" and (has("error") | not) and .count == 0' "start > end gives EINVAL (as new_errno: no \"error\" key in a success), empty"
tap_eq "num 5 0 still exits 0 (the kernel's answer is shown)" "$(rc num_einval)" 0
tap_contains "num 5 0 text names the errno" "$(get num_einval_text)" "EINVAL"
check_json num_e2big '.ret == -7 and .new_errno == "E2BIG" and (has("error") | not) and .count == 0' "range > 8M gives E2BIG, empty"
check_json num_max '.ret == 0 and .count == 8388608 and .sum == 35184367894528' "8M range walked fully"
check_json num_hex '.values == [16,17,18,19]' "hex arguments"

# -- seq --
tap_eq "seq 7 3 text" "$(get seq)" "testmod_seq value 7 x 3: 3 values, sum 21
7 7 7"
check_json seq_json '.ret == 0 and .count == 1000 and .sum == -5000 and (.values | length) == 64 and (.values | unique) == [-5]' "1000 x -5"
check_json seq_neg '.ret == -22 and .new_errno == "EINVAL" and (has("error") | not) and .count == 0' "negative count gives EINVAL, empty"

# -- demo --
tap_eq "demo exits 0" "$(rc demo)" 0
tap_contains "demo: kit_num verdict" "$(get demo)" "PASS kit_num"
tap_contains "demo: testmod_seq verdict" "$(get demo)" "PASS testmod_seq"
check_json demo_json 'map(select(.iterator=="kit_num" or .iterator=="testmod_seq") | .verdict) == ["pass","pass"]' "verdicts"

# -- tasks and cgroups (their own suites check them against /proc and cgroupfs) --
tap_eq "tasks exits 0" "$(rc tasks)" 0
# The header's columns, in order, and init's own line under them.
tap_eq "tasks: header line" "$(get tasks | head -n 1 | tr -s ' ' | sed 's/^ //')" \
	"PID TID PPID UID S THR COMM"
tap_eq "tasks: init's line (pid 1, tid 1, ppid 0, uid 0, comm init)" \
	"$(get tasks | awk '$1 == 1 { print $1, $2, $3, $4, $NF }')" "1 1 0 0 init"
check_json tasks_json '.count == (.tasks | length) and .tasks[0].pid == 0 and ([.tasks[] | select(.pid == 1) | .comm] == ["init"])' "idle task first, init present, count matches"
check_json tasks_threads_json '.count >= 2 and (.tasks | map(.tid) | unique | length) == .count' "threads: distinct tids"
check_json tasks_pid1 '.count == 1 and .tasks[0].pid == 1 and .tasks[0].tid == 1' "--pid 1: init's one thread"
tap_contains "tasks --tree shows init under pid 0" "$(get tasks_tree)" "init(1)"
tap_eq "tasks --pid of a missing process exits 1" "$(rc tasks_nopid)" 1
tap_contains "tasks --pid of a missing process says so" "$(err tasks_nopid)" "no process with pid 99999"
tap_eq "cgroups exits 0" "$(rc cgroups)" 0
check_json cgroups_json '.ret == 0 and .cgroups[0].path == "/" and .cgroups[0].level == 0 and .count == (.cgroups | length)' "root first, count matches"
check_json cgroups_self '.count == 1 and .cgroups[0].path == "/"' "--order self: the root alone"
tap_eq "cgroups --root of a missing cgroup exits 1" "$(rc cgroups_noroot)" 1
tap_eq "cgroups --root of a missing cgroup: one line" "$(err cgroups_noroot | wc -l)" 1

# -- options anywhere (getopt_long), errors as JSON --
check_json_error json_err_usage 2 "needs START END"
check_json_error json_err_command 2 "unknown command 'frobnicate'"
check_json_error json_err_late 2 "unknown option '--frobnicate'"
check_json_error json_err_nopid 1 "no process with pid 99999"
for c in verbose_after verbose_before; do
	tap_eq "$c: exit 0" "$(rc $c)" 0
	tap_eq "$c: the kernel's answer on stdout" "$(get $c)" "kit_num [0, 3): 3 values, sum 3
0 1 2"
	tap_contains "$c: the verifier's log on stderr" "$(err $c)" "processed "
done
check_json opts_anywhere '.count == 1 and .tasks[0].pid == 1' "--stats before the command, --json after its options"
tap_contains "opts_anywhere: stats on stderr" "$(err opts_anywhere)" "iterkit-stats:"

# -- --stats: phases, the records and the maps' memory of one walk --
n=$(get stats_tasks | jq .count)
tap_eq "stats: records = tasks shown" "$(stat_of stats_tasks records)" "$n"
tap_eq "stats: one load, one walk" "$(stat_of stats_tasks loads) $(stat_of stats_tasks walks)" "1 1"
m=$(stat_of stats_tasks map_bytes)
# The record array holds the tasks (48 bytes each) with room to spare, not per-record buffers.
if [ -n "$m" ] && [ "$m" -ge $((n * 48)) ] && [ "$m" -le $((n * 48 * 3 + 65536)) ]; then
	tap_ok "stats: map memory $m bytes for $n tasks"
else
	tap_fail "stats: map memory $m bytes for $n tasks"
fi
rss=$(stat_of stats_tasks peak_rss_kib)
if [ -n "$rss" ] && [ "$rss" -gt 0 ] && [ "$rss" -lt 16384 ]; then
	tap_ok "stats: peak RSS $rss KiB"
else
	tap_fail "stats: peak RSS '$rss' KiB"
fi

# -- --tree: every process once, under its parent --
procs=$(get tree_count | jq .count)
tap_eq "tree: one line per process" "$(get tree_all | wc -l)" "$procs"
tap_eq "tree: one root, the idle task" "$(get tree_all | grep -c '^[^ |\`]')" 1

# -- --repeat: the program is loaded once, walked N times --
tap_eq "repeat 3: three JSON documents, one line each (NDJSON)" \
	"$(get repeat_json | wc -l) $(get repeat_json | while IFS= read -r l; do jq -e '.count > 0 and .count == (.tasks | length)' <<<"$l"; done | grep -c true)" "3 3"
tap_eq "cgroups --repeat 2 --json: two documents, one line each" \
	"$(get repeat_cgroups_json | wc -l) $(get repeat_cgroups_json | while IFS= read -r l; do jq -e '.cgroups[0].path == "/"' <<<"$l"; done | grep -c true)" "2 2"
tap_eq "without --repeat, one task per line (as before)" "$(get tasks_json | wc -l)" "$(( $(get tasks_json | jq .count) + 2 ))"
tap_eq "repeat 3: one load, three walks" "$(stat_of repeat_json loads) $(stat_of repeat_json walks)" "1 3"
tap_eq "repeat 2 with an interval: two walks" "$(get repeat_interval | grep -c '^/  (id 1, level 0')" 2

# -- UTF-8 names pass through (invalid bytes become U+FFFD) --
check_json utf8_tasks 'any(.tasks[]; .comm == "café ü")' "a UTF-8 comm comes out as it is"
check_json utf8_tasks 'any(.tasks[]; .comm == "ééééééé\ufffd")' "a comm cut inside a character ends in U+FFFD"
tap_contains "utf8, C locale: every byte >= 0x80 of a comm is a '?'" "$(get utf8_tasks_text)" " caf?? ??"
tap_eq "utf8, C locale: no byte >= 0x80 in the text" "$(get utf8_tasks_text | LC_ALL=C grep -c $'[\x80-\xff]')" 0
check_json utf8_cgroups 'any(.cgroups[]; .name == "café" and .path == "/café")' "a UTF-8 cgroup name and path"

# -- demo: not available is SKIP (exit 0), a failure is FAIL (exit 1) --
tap_eq "no cgroup2 mounted: demo exits 0" "$(rc nocg_demo)" 0
tap_contains "no cgroup2 mounted: kit_cgroup skipped" "$(get nocg_demo)" "SKIP kit_cgroup"
tap_eq "no cgroup2 mounted: no FAIL line" "$(get nocg_demo | grep -c '^FAIL')" 0
check_json nocg_demo_json 'map(.verdict) == ["pass","pass","pass","skip"]' "verdicts without cgroup2"
tap_eq "module without walkers: insmod" "$(rc nowalk_insmod)" 0
tap_eq "module without walkers: demo exits 0" "$(rc nowalk_demo)" 0
tap_contains "module without walkers: kit_task skipped" "$(get nowalk_demo)" "SKIP kit_task"
tap_contains "module without walkers: kit_cgroup skipped" "$(get nowalk_demo)" "SKIP kit_cgroup"
tap_contains "module without walkers: kit_num passes" "$(get nowalk_demo)" "PASS kit_num"
check_json nowalk_demo_json 'map([.iterator, .verdict]) == [["kit_num","pass"],["testmod_seq","pass"],["kit_task","skip"],["kit_cgroup","skip"]]' "valid JSON, one verdict per iterator"
tap_eq "module without walkers: tasks exits 1" "$(rc nowalk_tasks)" 1
tap_contains "module without walkers: tasks says why" "$(err nowalk_tasks)" "no kit_task kfuncs"
check_json nowalk_status '.usable and ([.iterators[] | select(.available) | .name] == ["kit_num","testmod_seq"])' "status: the walkers are missing"
check_json nowalk_load '[.programs[].name] == ["num","seq"]' "load pins what the module has"

# -- resident programs: iterkit load / unload --
tap_eq "load exits 0" "$(rc resident_load)" 0
tap_contains "load names what it pinned" "$(get resident_load)" "tasks (room for "
check_json resident_status '[.resident[] | select(.this_build) | .dir | startswith("/sys/fs/bpf/iterkit/")] == [true]' "status shows the resident programs"
check_json resident_status '(.resident | length) == 2 and any(.resident[]; .dir == "/sys/fs/bpf/iterkit/0123456789ab" and (.this_build | not) and .programs == ["tasks"])' "status lists another build's pin directory too"
tap_contains "status text: another build's directory" "$(get resident_status_text)" "/sys/fs/bpf/iterkit/0123456789ab (another build"
tap_eq "a walk is not held up by another's --interval sleep (the lock covers one walk)" "$(rc resident_lock) $(get resident_lock)" "0 first still waiting"
tap_eq "a walk is not held up by another whose stdout is blocked" "$(rc resident_blocked) $(get resident_blocked)" "0 writer still blocked"
check_json resident_tasks '.count == (.tasks | length) and .tasks[0].pid == 0 and any(.tasks[]; .pid == 1 and .comm == "init")' "tasks from the resident program"
tap_eq "resident tasks: no load, one walk" "$(stat_of resident_tasks loads) $(stat_of resident_tasks walks)" "0 1"
check_json resident_num '.count == 100 and .sum == 4950 and .values[63] == 63' "num from the resident program"
tap_eq "resident num: no load" "$(stat_of resident_num loads)" 0
tap_eq "rmmod is refused while programs are resident" "$(rc resident_rmmod)" 1
tap_contains "unload says what it removed" "$(get resident_unload)" "unloaded 4 resident programs"
tap_eq "rmmod works right after unload (unload waits for the kernel to free the programs)" "$(rc resident_rmmod_after)" 0
tap_eq "load, unload and a walk at once, six times: all succeed, nothing half-made left" "$(get resident_race | head -n 1)" "failed=0 leftovers=0" ||
	tap_diag "$(get resident_race)"
tap_eq "load, walk, unload && rmmod" "$(rc resident_cycle)" 0 || tap_diag "$(err resident_cycle)"

# -- a walk that does not fit is walked again with room, never shown cut --
total=$(get grow_total)	# online ones; the walk has the dying ones too
dying=$(get dying_stat)
check_json grow_walk ".count == $total + $dying and (.cgroups | length) == $total + $dying and .dropped == 0" "all $total + $dying cgroups, though cgroupfs (a bind mount of a leaf) said 1"
tap_eq "grow: walked twice, the second time with room" "$(stat_of grow_walk loads) $(stat_of grow_walk walks)" "2 2"
# More than the old fixed 4 MiB ring buffer held (about 25,000 records):
# it dropped the rest and still exited 0. (The guest counts: 2.6 MB of JSON
# would take seconds through the serial port.)
total=$(( $(get many_total) + 1 + dying ))
tap_eq "$total cgroups: JSON exits 0" "$(rc many_json)" 0
tap_eq "$total cgroups: one JSON line each, count and dropped" "$(get many_json)" "$total
\"count\":$total,\"dropped\":0"
tap_eq "$total cgroups: text exits 0" "$(rc many_text)" 0
tap_eq "$total cgroups: one line each in the tree view" "$(get many_text)" "$total"

# -- dying cgroups: walked, marked, and not taken for live ones --
n=$(get dying_stat)
if [ "${n:-0}" -gt 0 ]; then
	tap_ok "the VM has $n dying cgroup(s) (page cache charged, then rmdir)"
else
	tap_fail "the VM has no dying cgroup (nr_dying_descendants '$n')"
fi
check_json dying_json 'any(.cgroups[]; .name == "dying1" and .state == "dying" and .path == "/dying1")' "the dying cgroup is walked, marked dying"
check_json dying_json 'all(.cgroups[]; .state == "online" or .state == "dying") and any(.cgroups[]; .name == "live1" and .state == "online")' "every cgroup online or dying"
tap_eq "the online cgroups are cgroupfs's directories" \
	"$(get dying_json | jq -r '.cgroups[] | select(.state == "online") | .path' | sort)" "$(get dying_dirs)"
tap_contains "text: the dying cgroup is marked" "$(get dying_text | grep dying1)" ", dying, "
tap_contains "demo with a dying cgroup: kit_cgroup passes (online cgroups against cgroupfs)" "$(get demo)" "PASS kit_cgroup"

# -- names with control bytes: escaped in text (as ps does), exact in JSON --
for c in esc_tasks esc_tree esc_cgroups; do
	tap_eq "$c: no raw ESC byte in the text" "$(get $c | grep -c $'\033')" 0
done
tap_contains "tasks: a comm with ESC and a newline shown as ps does" "$(get esc_tasks)" " ev?[2J?fake"
tap_eq "tasks: the newline in a comm makes no line of its own" "$(get esc_tasks | grep -c '^fake')" 0
tap_contains "tasks --tree: escaped" "$(get esc_tree)" "ev?[2J?fake("
check_json esc_json 'any(.tasks[]; .comm == "ev\u001b[2J\nfake")' "JSON: the comm's bytes, escaped as JSON"
tap_contains "cgroups: a name with ESC shown as ps does" "$(get esc_cgroups)" "cg?[31mred  (id "
check_json esc_cgroups_json 'any(.cgroups[]; .name == "cg\u001b[31mred")' "JSON: the cgroup name's bytes"

# -- a container: its own pid, cgroup and mount namespaces --
part() { get "$1" | awk -v n="$2" '/^@@cut$/ { k++; next } k == n'; }
tap_eq "container: made (pid, cgroup and mount namespaces)" "$(err ctr_tasks)" ""
pspairs=$(part ctr_tasks 0 | awk 'NR > 1 && $3 != "ps" { print $1, $2 }' | sort)
itpairs=$(part ctr_tasks 1 | jq -r '.tasks[] | select(.comm != "iterkit") | "\(.pid) \(.tid) \(.ppid)"' 2>/dev/null |
	awk '$1 == $2 { print $1, $3 }' | sort)
if [ -n "$pspairs" ] && [ "$pspairs" = "$itpairs" ]; then
	tap_ok "container: tasks shows what ps there shows (pids and ppids of the namespace)"
else
	tap_fail "container: tasks shows what ps there shows (pids and ppids of the namespace)"
	tap_diag "ps: $pspairs"
	tap_diag "iterkit: $itpairs"
fi
check_json ctr_threads 'all(.tasks[]; .pid < 1000 and .pid > 0) and any(.tasks[]; .pid == 1 and .ppid == 0)' "container: threads with the namespace's ids, pid 1 its init"
tap_eq "container: --pid 1 is the namespace's init" "$(part ctr_pid 0 | jq -c '[.count, .tasks[0].pid, .tasks[0].tid, .tasks[0].comm]')" '[1,1,1,"sh"]'
tap_eq "container: --pid of a process there" "$(part ctr_pid 1 | jq -c '[.count, .tasks[0].comm]')" '[1,"sleep"]'
tap_eq "container: --pid of a process not there exits 1" "$(rc ctr_nopid)" 1
tap_contains "container: --pid of a process not there says so" "$(err ctr_nopid)" "no process with pid 99999 in this pid namespace"
check_json ctr_host 'any(.tasks[]; .pid == 0) and any(.tasks[]; .pid == 1 and .comm == "init") and .count > 10' "container: --host shows every task, host ids"
tap_eq "container: cgroups shows the namespace's tree, paths from its root" \
	"$(part ctr_cgroups 1 | jq -r '.cgroups[] | select(.state == "online") | .path' | sort)" "$(printf '/\n/inner')"
tap_eq "container: ... which is what its cgroupfs has" "$(part ctr_cgroups 0)" "$(printf '/\n/inner')"
tap_eq "container: its root is / at level 0" "$(part ctr_cgroups 1 | jq -c '[.cgroups[0].path, .cgroups[0].level]')" '["/",0]'
check_json ctr_cgroups_host 'any(.cgroups[]; .path == "/ctr/inner") and .cgroups[0].path == "/"' "container: --host shows the whole hierarchy"
rootino=$(get root_ids | sed -n 1p)
ctrino=$(get root_ids | sed -n 2p)
check_json ctr_cgroups_host ".root == ${rootino:-0} and .root == .cgroups[0].id and .root != 0" "container: --host, \"root\" is the hierarchy's root (inode $rootino)"
tap_eq "container: \"root\" is the namespace's root (/sys/fs/cgroup/ctr, inode $ctrino)" "$(part ctr_cgroups 1 | jq .root)" "${ctrino:-none}"
tap_eq "container: --root inner: \"root\" is inner" "$(get ctr_up | jq '.root == .cgroups[0].id and .root != .cgroups[1].id')" true
tap_eq "container: --order up stops at the namespace's root" "$(get ctr_up | jq -c '[.cgroups[].path]')" '["/inner","/"]'
tap_eq "container: a cgroup outside the namespace does not exist there" "$(rc ctr_outside)" 1
tap_contains "container: ... and says so" "$(err ctr_outside)" "no such cgroup: id 1 in this cgroup namespace"
tap_eq "container: demo exits 0" "$(rc ctr_demo)" 0 || tap_diag "$(get ctr_demo)"
tap_contains "container: demo, kit_task" "$(get ctr_demo)" "PASS kit_task"
tap_contains "container: demo, kit_cgroup" "$(get ctr_demo)" "PASS kit_cgroup"

# -- versions --
check_json ver_status ".module_version == \"$(cat VERSION)\" and .loader_version == \"$(cat VERSION)\" and .module_version_supported" "status: the module's version and the loader's"
tap_eq "a module of another version: num exits 1" "$(rc ver_num)" 1
tap_eq "a module of another version: one line on stderr, nothing on stdout" "$(err ver_num | wc -l) $(get ver_num | wc -c)" "1 0"
tap_contains "a module of another version: says which" "$(err ver_num)" "version 9.9.9, which this iterkit ($(cat VERSION)) does not speak"
tap_eq "a module of another version: status exits 1" "$(rc ver_status_bad)" 1
tap_contains "a module of another version: status says so" "$(get ver_status_bad)" "version 9.9.9: NOT one this iterkit"

# -- smaller: option names, decimal numbers, write errors --
tap_eq "--json=1: names --json" "$(err bad_json_value)" "iterkit: --json takes no value (see iterkit --help)"
tap_eq "status --json=1: names --json" "$(err bad_json_value_cmd)" "iterkit: status: --json takes no value (see iterkit status --help)"
tap_eq "-xv: names -x" "$(err bad_short)" "iterkit: unknown option '-x' (see iterkit --help)"
tap_eq "tasks -xv: names -x" "$(err bad_short_cmd)" "iterkit: tasks: unknown option '-x' (see iterkit tasks --help)"
check_json num_decimal '.start == 8 and .end == 10 and .values == [8,9]' "08 and 010 are decimal"
tap_eq "a broken pipe stops the walks with exit 1 (SIGPIPE ignored by iterkit itself)" "$(err epipe | grep '^rc=')" "rc=1"
tap_eq "a broken pipe is said once" "$(err epipe | grep -c 'write error')" 1
tap_contains "... as iterkit: <command>: write error: <strerror>" "$(err epipe)" "iterkit: tasks: write error: Broken pipe"
tap_eq "status | true (the reader gone first): exit 1, one line" "$(err epipe_status)" "iterkit: status: write error: Broken pipe
rc=1"
tap_eq "--help > /dev/full: exit 1" "$(rc full_help)" 1
tap_eq "--help > /dev/full: one line" "$(err full_help)" "iterkit: write error: No space left on device"
tap_eq "num --json > /dev/full: exit 1, the line on stderr" "$(rc full_num_json) $(err full_num_json)" "1 iterkit: num: write error: No space left on device"

# -- argument rules --
check_json root_digit_path '.count == 1 and .cgroups[0].path == "/3rdparty"' "--root 3rdparty is a path (an id is all digits)"
tap_eq "--root 2^64 - 1: an id (above LLONG_MAX), looked for" "$(rc root_u64) $(err root_u64)" "1 iterkit: cgroups: no such cgroup: id 18446744073709551615"
tap_eq "--root of 5001 bytes: refused, not cut" "$(rc root_long) $(err root_long)" "2 iterkit: cgroups: --root: the path is longer than 4095 bytes"
check_json num_dashdash '.start == -9 and .end == -1 and .count == 8' "num -- -9 -1: arguments after --"
tap_contains "nine negative numbers: too many arguments" "$(err bad_num_nine)" "iterkit: num: too many arguments"
tap_contains "--interval 0x10: refused (not 16 s)" "$(err bad_interval_hex)" "--interval needs decimal seconds"
tap_contains "--pid 0x1: refused" "$(err bad_pid_hex)" "--pid needs a decimal process id"
# One prefix: "iterkit: <command>: " once the command is known, "iterkit: " before.
for c in bad_json_value_cmd:status bad_short_cmd:tasks bad_tasks_pid:tasks bad_tasks_opt:tasks bad_cgroups_order:cgroups \
	bad_num_missing:num bad_num_extra:num bad_num_text:num bad_num_range:num bad_num_trailing:num bad_seq_text:seq \
	bad_seq_range:seq bad_status_arg:status bad_demo_arg:demo bad_repeat:tasks bad_interval:cgroups bad_num_nine:num \
	bad_interval_hex:cgroups bad_pid_hex:tasks bad_lock_timeout:tasks bad_json_value: bad_short: bad_noargs: bad_cmd: bad_opt:; do
	n=${c%%:*} cmd=${c#*:}
	e=$(err "$n")
	if [ -n "$cmd" ]; then want="iterkit: $cmd: "; else want="iterkit: "; fi
	if [[ $e == "$want"* ]] && { [ -n "$cmd" ] || [[ $e != "iterkit: "[a-z]*": "* ]]; }; then
		tap_ok "$n: prefix '$want'"
	else
		tap_fail "$n: prefix '$want'"
		tap_diag "stderr: $e"
	fi
done

# -- locks and interrupts --
h=$(get lock_timeout | sed -n 's/^holder=//p')
tap_eq "a held resident lock: caught held (pid ${h:-?})" "$(get lock_timeout | grep -c 'never caught')" 0
tap_eq "--lock-timeout 0.5: exit 1" "$(rc lock_timeout)" 1
tap_eq "--lock-timeout: one line naming the holder on stderr" "$(err lock_timeout)" \
	"iterkit: tasks: waiting for the resident program's lock held by pid $h (iterkit)"
tap_eq "--lock-timeout --json: then the error, on stdout" "$(get lock_timeout | sed -n 2p | jq -r .error)" \
	"gave up waiting for the resident program's lock held by pid $h (iterkit) after 0.5 s (--lock-timeout)"
h=$(get lock_wait | sed -n 's/^holder=//p')
tap_eq "no timeout: waits, saying so once, and walks when the holder is gone" \
	"$(rc lock_wait) $(get lock_wait | sed 1d) $(err lock_wait)" \
	"0 still waiting
1 iterkit: tasks: waiting for the resident program's lock held by pid $h (iterkit)"
p=$(get unload_wait | sed -n 's/^loader=//p')
tap_eq "unload while a load holds the pin root: waits, then gives up (--lock-timeout 0.3)" \
	"$(rc unload_wait) $(err unload_wait)" \
	"1 iterkit: unload: waiting for the lock of /sys/fs/bpf/iterkit held by pid $p (iterkit)
iterkit: unload: gave up waiting for the lock of /sys/fs/bpf/iterkit held by pid $p (iterkit) after 0.3 s (--lock-timeout)"
tap_eq "... the load went on (exit 0); unloaded, the module is free" "$(get unload_wait | sed 1,2d)" "load rc=0
refcnt=0"
for s in INT:130 TERM:143; do
	n=load_sig$(tr A-Z a-z <<<"${s%:*}")
	tap_eq "load interrupted (SIG${s%:*}) while loading: exit ${s#*:}, nothing pinned, the module free" \
		"$(get $n)" "loading: 1
rc=${s#*:}
left: 0
refcnt=0"
	tap_eq "load interrupted (SIG${s%:*}): nothing said" "$(err $n)" ""
done

# -- on the host (no module needed): write errors as a user meets them --
e=$(./iterkit --help 2>&1 >/dev/full)
r=$?
tap_eq "host: iterkit --help > /dev/full: exit 1, one line" "$r $e" "1 iterkit: write error: No space left on device"
e=$({ { sleep 0.5; ./iterkit status; echo "rc=$?" >&2; } | true; } 2>&1)
tap_eq "host: iterkit status | true (reader gone): exit 1, not killed by SIGPIPE, one line" "$e" \
	"iterkit: status: write error: Broken pipe
rc=1"

# -- capabilities and verifier rejections --
tap_eq "as a user: exit 1" "$(rc caps_user)" 1
tap_eq "as a user: one line, says run as root" "$(err caps_user | wc -l) $(err caps_user | grep -c 'this needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); run as root')" "1 1"
tap_eq "without CAP_PERFMON: exit 1" "$(rc caps_noperfmon)" 1
tap_contains "without CAP_PERFMON: names it" "$(err caps_noperfmon | head -n 1)" "this needs CAP_PERFMON (or CAP_SYS_ADMIN); run as root; the end of the verifier's log:"
n=$(err caps_noperfmon | tail -n +2 | grep -c '^  ')
if [ "$n" -ge 2 ] && [ "$n" -le 12 ]; then tap_ok "without CAP_PERFMON: the last $n lines of the verifier's log"; else tap_fail "without CAP_PERFMON: the end of the verifier's log ($n lines)"; tap_diag "$(err caps_noperfmon)"; fi
n=$(err caps_noperfmon_v | wc -l)
if [ "$n" -gt 14 ]; then tap_ok "with -v: the whole log ($n lines)"; else tap_fail "with -v: the whole log ($n lines)"; fi
tap_eq "without CAP_PERFMON, --json: nothing on stderr" "$(err caps_noperfmon_json)" ""
check_json caps_noperfmon_json '(keys == ["error", "verifier_log"]) and (.error | contains("this needs CAP_PERFMON")) and (.verifier_log | split("\n") | length) >= 2' "without CAP_PERFMON, --json: the error and the end of the log in one object"
check_json caps_bpf_perfmon '.count > 10' "with CAP_BPF and CAP_PERFMON, no CAP_SYS_ADMIN: tasks works"
tap_eq "root of a user namespace: exit 1" "$(rc caps_userns)" 1
tap_contains "root of a user namespace: capabilities there do not count" "$(err caps_userns)" "in the initial user namespace"
if [ "$(get lockdown_tasks)" = "no lockdown LSM" ]; then
	tap_skip "lockdown: a program the verifier rejects as root" "this kernel has no lockdown LSM"
else
	tap_eq "lockdown: exit 1" "$(rc lockdown_tasks)" 1
	tap_contains "lockdown: a rejection by the verifier, said as such" "$(err lockdown_tasks | head -n 1)" "the verifier rejected the kit_task program"
	tap_eq "lockdown: no 'run as root' for root" "$(err lockdown_tasks | grep -c 'run as root')" 0
	tap_contains "lockdown: the end of the verifier's log" "$(err lockdown_tasks)" "cannot use helper bpf_probe_read_kernel"
fi

# -- help and version --
for c in help num_help seq_help tasks_help cgroups_help; do
	tap_eq "$c exits 0" "$(rc $c)" 0
	tap_contains "$c prints usage" "$(get $c)" "usage: iterkit"
done
tap_eq "--version" "$(get version)" "iterkit $(cat VERSION)"

# -- bad input: exit 2, exactly one line on stderr, nothing on stdout --
for c in bad_json_value bad_json_value_cmd bad_short bad_short_cmd bad_tasks_pid bad_tasks_opt bad_cgroups_order bad_noargs bad_cmd bad_opt bad_num_missing bad_num_extra bad_num_text bad_num_range \
	bad_num_trailing bad_seq_text bad_seq_range bad_status_arg bad_demo_arg bad_repeat bad_interval bad_num_nine bad_interval_hex bad_pid_hex bad_lock_timeout; do
	r=$(rc $c)
	e=$(err $c)
	if [ "$r" = 2 ] && [ "$(wc -l <<<"$e")" = 1 ] && [[ $e == "iterkit: "* ]] && [ -z "$(get $c)" ]; then
		tap_ok "$c: one clear line, exit 2"
	else
		tap_fail "$c: one clear line, exit 2"
		tap_diag "exit $r; stderr: $e; stdout: $(get $c)"
	fi
done
tap_done
