# SPDX-License-Identifier: GPL-2.0
# Minimal TAP output for shell tests (POSIX sh: runs under busybox in the VM
# and under bash on the host). Source it, then call tap_ok / tap_fail /
# tap_skip / tap_check; tap_done exits non-zero when anything failed.
TAP_N=0
TAP_FAILED=0

tap_ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N $*"; }
tap_fail() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N $*"; return 1; }
tap_skip() { TAP_N=$((TAP_N + 1)); name=$1; shift; echo "ok $TAP_N $name # SKIP $*"; }
tap_diag() { echo "$*" | sed 's/^/# /'; }

# tap_check NAME COMMAND...: ok when COMMAND succeeds.
tap_check() {
	name=$1
	shift
	if "$@"; then tap_ok "$name"; else tap_fail "$name"; fi
}

# tap_eq NAME GOT WANT (like every check here: status 1 when it failed,
# so that `tap_eq ... || tap_diag "$log"` adds context)
tap_eq() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
	else
		tap_fail "$1"
		tap_diag "got:  $2"
		tap_diag "want: $3"
		return 1
	fi
}

# tap_contains NAME TEXT NEEDLE
tap_contains() {
	case $2 in
	*"$3"*) tap_ok "$1" ;;
	*) tap_fail "$1"; tap_diag "missing: $3"; tap_diag "in: $2"; return 1 ;;
	esac
}

tap_done() { echo "1..$TAP_N"; [ "$TAP_FAILED" -eq 0 ]; }

# suite_verdict FILE RC: why a suite's TAP (in FILE) and exit status (RC)
# are not a clean run, or nothing; the runners (tests/run-all.sh on the
# host, tests/guest/run-all.sh in the VM) add it as a "not ok". Only
# top-level lines count (a nested subtest is indented).
suite_verdict() {
	_plans=$(grep -cE '^1\.\.[0-9]+([[:space:]]|$)' "$1")
	_results=$(grep -cE '^(ok|not ok) ' "$1")
	_why=
	case $_plans in
	0) _why="printed no plan" ;;
	1)
		_plan=$(sed -nE 's/^1\.\.([0-9]+)([[:space:]].*)?$/\1/p' "$1")
		[ "$_plan" -eq "$_results" ] || _why="plan 1..$_plan but $_results results"
		;;
	*) _why="printed $_plans plans" ;;
	esac
	# A failure it reported explains the status; a wrong plan does not.
	if [ "$2" -ne 0 ] && ! grep -q '^not ok ' "$1"; then
		_why="${_why:+$_why, }exited with status $2"
	fi
	echo "$_why"
}

# tap_relay PREFIX FILE RC: the TAP of another run (in FILE; RC its exit
# status) renumbered into this suite's, each name after PREFIX: its "#"
# lines kept, other lines as diagnostics, its plan dropped. When that run
# was not clean (suite_verdict), one more "not ok PREFIX<why>". Sets
# TAP_RELAYED to the number of results it relayed; status 1 when any of
# them failed.
tap_relay() {
	_rbad=0
	TAP_RELAYED=0
	while IFS= read -r _rl; do
		case $_rl in
		"ok "*) TAP_RELAYED=$((TAP_RELAYED + 1)); tap_ok "$1${_rl#ok [0-9]* }" ;;
		"not ok "*) TAP_RELAYED=$((TAP_RELAYED + 1)); tap_fail "$1${_rl#not ok [0-9]* }"; _rbad=1 ;;
		1..*) ;;
		"#"*) echo "$_rl" ;;
		*) tap_diag "$_rl" ;;
		esac
	done < "$2"
	_rwhy=$(suite_verdict "$2" "$3")
	[ -z "$_rwhy" ] || { tap_fail "$1$_rwhy"; _rbad=1; }
	return $_rbad
}

# suite_list DIR...: the suites of a tests directory (the VM's
# /iterkit/tests; on the host, build/tests and tests/guest, which the VM
# merges into it), in the order they run: executables that are not
# scripts, "verifier" for the verifier-expectation runner, the test_*.sh
# scripts. Both runners (tests/run-all.sh, tests/guest/run-all.sh) use it.
suite_list() {
	for _sd in "$@"; do
		for _st in "$_sd"/*; do
			[ -f "$_st" ] && [ -x "$_st" ] || continue
			case ${_st##*/} in *.sh | verifier-runner) continue ;; esac
			echo "${_st##*/}"
		done
	done | sort -u
	for _sd in "$@"; do
		[ -x "$_sd/verifier-runner" ] && echo verifier
	done | sort -u
	for _sd in "$@"; do
		for _st in "$_sd"/test_*.sh; do
			[ -f "$_st" ] && _st=${_st##*/} && echo "${_st%.sh}"
		done
	done | sort -u
}

# Kernel reports: lines that start one of the kernel's splats (WARN, BUG but
# not DEBUG, Oops, KASAN, UBSAN, lockdep, RCU stalls, list corruption,
# refcount, debug objects, lockups, kmemleak). kmsg_mark NAME writes a marker
# to the kernel log; kernel_log_since NAME prints the log from it on (status 1
# when it is gone: the log was cleared or wrapped, so nothing after it can be
# checked); kernel_reports NAME prints the reports logged after it, or a line
# saying the marker is gone, so that "no output" always means "checked, clean".
KMSG_REPORTS='WARNING:|(^|[^[:alnum:]])BUG[: ]|Oops|general protection|Kernel panic|KASAN|UBSAN:|refcount_t:|list_(add|del) corruption|ODEBUG:|INFO: rcu|rcu: INFO:|detected stall|soft lockup|blocked for more than|suspicious RCU usage|possible recursive locking|possible circular locking|inconsistent lock state|kmemleak:'
kmsg_mark() { echo "iterkit mark $1" > /dev/kmsg; }
kernel_log_since() {
	dmesg | sed -n "/iterkit mark $1\$/,\$p" | grep .
}
kernel_reports() {
	_since=$(kernel_log_since "$1") || {
		echo "kernel log: the marker 'iterkit mark $1' is gone (cleared or wrapped): nothing could be checked"
		return
	}
	printf '%s\n' "$_since" | grep -E "$KMSG_REPORTS"
}

# tap_log_clean NAME MARK: ok when the marker is still in the kernel log and
# no report follows it.
tap_log_clean() {
	_bad=$(kernel_reports "$2")
	if [ -z "$_bad" ]; then
		tap_ok "$1"
	else
		tap_fail "$1"
		tap_diag "$_bad"
		return 1
	fi
}
