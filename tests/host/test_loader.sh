#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The iterkit loader, as a user runs it: one VM boot runs every subcommand
# (text, --json, --help, bad input, module missing), then the host checks
# the values the kernel produced, the JSON and the exit codes.
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh

# Each case: NAME|COMMAND. The guest prints "@@case NAME rc=N" after its output.
cases='
nomod_status|iterkit status
nomod_num|iterkit num 0 3
nomod_demo|iterkit demo
LOAD|insmod iterkit.ko
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
'
script=$(mktemp)
while IFS='|' read -r name cmd; do
	[ -n "$name" ] || continue
	printf '%s > /tmp/out.%s 2> /tmp/err.%s; echo "@@case %s rc=$?"; cat /tmp/out.%s; echo "@@stderr"; cat /tmp/err.%s; echo "@@end"\n' \
		"$cmd" "$name" "$name" "$name" "$name" "$name" >> "$script"
done <<<"$cases"
out=$(tests/vm/run --timeout 300 -- "$(cat "$script")")
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
tap_eq "demo without the module exits 1" "$(rc nomod_demo)" 1

# -- status --
tap_eq "status exits 0 with the module" "$(rc status)" 0
tap_contains "status: kit_num available" "$(get status)" "kit_num        available"
tap_contains "status: testmod_seq available" "$(get status)" "testmod_seq    available"
check_json status_json '.module_loaded and .module_btf and .usable and .kernel_supported' "loaded, BTF, usable"
check_json status_json '[.iterators[] | select(.name=="kit_num") | .kfuncs[]] == ["bpf_iter_kit_num_new","bpf_iter_kit_num_next","bpf_iter_kit_num_destroy"]' "kit_num kfuncs listed"
check_json status_json '[.iterators[] | select(.name=="testmod_seq") | .available] == [true]' "testmod_seq available"
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
check_json num_einval '.ret == -22 and .error == "EINVAL" and .count == 0' "start > end gives EINVAL, empty"
tap_eq "num 5 0 still exits 0 (the kernel's answer is shown)" "$(rc num_einval)" 0
tap_contains "num 5 0 text names the errno" "$(get num_einval_text)" "EINVAL"
check_json num_e2big '.ret == -7 and .error == "E2BIG" and .count == 0' "range > 8M gives E2BIG, empty"
check_json num_max '.ret == 0 and .count == 8388608 and .sum == 35184367894528' "8M range walked fully"
check_json num_hex '.values == [16,17,18,19]' "hex arguments"

# -- seq --
tap_eq "seq 7 3 text" "$(get seq)" "testmod_seq value 7 x 3: 3 values, sum 21
7 7 7"
check_json seq_json '.ret == 0 and .count == 1000 and .sum == -5000 and (.values | length) == 64 and (.values | unique) == [-5]' "1000 x -5"
check_json seq_neg '.ret == -22 and .error == "EINVAL" and .count == 0' "negative count gives EINVAL, empty"

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

# -- help and version --
for c in help num_help seq_help tasks_help cgroups_help; do
	tap_eq "$c exits 0" "$(rc $c)" 0
	tap_contains "$c prints usage" "$(get $c)" "usage: iterkit"
done
tap_eq "--version" "$(get version)" "iterkit $(cat VERSION)"

# -- bad input: exit 2, exactly one line on stderr, nothing on stdout --
for c in bad_tasks_pid bad_tasks_opt bad_cgroups_order bad_noargs bad_cmd bad_opt bad_num_missing bad_num_extra bad_num_text bad_num_range \
	bad_num_trailing bad_seq_text bad_seq_range bad_status_arg bad_demo_arg; do
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
