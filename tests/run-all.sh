#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: host suites (tests/host/test_*.sh) and, at the same time,
# every guest suite in one VM boot. Every suite prints TAP; this counts "ok"/"not ok" lines and
# ends with "N passed, M failed[, K skipped][, R retried]" (R: VM boots
# retried by tests/vm/run, ours and the suites'). Exit status 1 on any
# failure. A suite that exits non-zero with no "not ok" of its own, prints
# no plan or several, or whose results differ from its plan gets a
# "not ok - SUITE: why" (tests/guest/run-all.sh does the same in the VM).
#   tests/run-all.sh [--guest|--pkg|--fleet] [SUITE...]   (default: all; names as
#       printed "# suite: X"; an unknown name: exit 2; --guest: no host
#       suites; --pkg: the package suites of tests/pkg/ instead,
#       `make check-pkg`; --fleet: tests/fleet/, `make check-fleet`)
# Before that line it prints how long each phase took (also kept in
# build/check-phases.txt, or check-pkg-phases.txt); `make check` passes its
# own phases (dependencies, build) in ITERKIT_PHASES as "NAME MS ...".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
log=build/check.log
guest=
hostdir=tests/host
case ${1:-} in
--guest) guest=1; shift ;;
--pkg) hostdir=tests/pkg; log=build/check-pkg.log; shift ;;
--fleet) hostdir=tests/fleet; log=build/check-fleet.log; shift ;;
esac
only="$*"
# suite_list, suite_verdict (shared with the guest's runner)
. tests/guest/tap.sh

selected() { [ -z "$only" ] || [[ " $only " == *" $1 "* ]]; }

# The guest suites as tests/guest/run-all.sh finds them in the VM's
# /iterkit/tests, which tests/vm/run fills with build/tests and then
# tests/guest/*.sh (suite_list, tap.sh).
guest_suites() { suite_list build/tests tests/guest; }
host_suites() {
	local t
	for t in "$hostdir"/test_*.sh; do
		[ -f "$t" ] && basename "$t" .sh
	done
}
known=$( { [ -n "$guest" ] || host_suites; [ "$hostdir" = tests/pkg ] || guest_suites; } | tr '\n' ' ')
for s in $only; do
	if [[ " $known " != *" $s "* ]]; then
		echo "run-all: unknown suite: $s (known: ${known% })" >&2
		exit 2
	fi
done

mkdir -p build
: > "$log"

now_ms() { date +%s%3N; }
t_start=$(now_ms)
phases=()	# "NAME MS"
add_phase() { phases+=("$1 $2"); }
if [ -n "${ITERKIT_PHASES:-}" ]; then
	set -- $ITERKIT_PHASES
	while [ $# -ge 2 ]; do add_phase "$1" "$2"; shift 2; done
fi

guest_only=()
for s in $only; do [ -z "$guest" ] && [ -f "$hostdir/$s.sh" ] || guest_only+=("$s"); done
run_guest=
if [ "$hostdir" = tests/host ] && { [ -z "$only" ] || [ ${#guest_only[@]} -gt 0 ]; }; then
	run_guest=1
fi

# The VM runs while the host suites do (its output is shown after theirs).
guest_out=${log%.log}-guest.out
if [ -n "$run_guest" ]; then
	t0_vm=$(now_ms)
	# The guest stamps its uptime before each suite and at the end ("# @t=S").
	{
		tests/vm/run --timeout "${ITERKIT_VM_TIMEOUT:-2400}" --mem 2048 -- \
			"set -o pipefail; sh /iterkit/tests/run-all.sh ${guest_only[*]} 2>&1 | awk '
				function t() { getline u < \"/proc/uptime\"; close(\"/proc/uptime\"); split(u, a, \" \"); return a[1] }
				/^# suite: / { print \"# @t=\" t() } { print } END { print \"# @t=\" t() }'" > "$guest_out" 2>&1
		echo $? > "$guest_out.rc"
		echo $(( $(now_ms) - t0_vm )) > "$guest_out.ms"
	} &
	vm_job=$!
fi

# The arm64 build root (tests/pkg/test_trixie_arm64.sh --root) is made while
# the package suites before it run; its suite waits for it, then reports
# anything that failed there as its own.
arm64_root_job=
if [ "$hostdir" = tests/pkg ] && [ -z "$guest" ] && [ -f tests/pkg/test_trixie_arm64.sh ] &&
	selected test_trixie_arm64; then
	bash tests/pkg/test_trixie_arm64.sh --root > build/check-pkg-arm64-root.log 2>&1 &
	arm64_root_job=$!
fi

for t in "$hostdir"/test_*.sh; do
	[ -f "$t" ] && [ -z "$guest" ] || continue
	name=$(basename "$t" .sh)
	selected "$name" || continue
	if [ "$name" = test_trixie_arm64 ] && [ -n "$arm64_root_job" ]; then
		wait "$arm64_root_job"
		arm64_root_job=
	fi
	t0=$(now_ms)
	{
		echo "# suite: $name"
		out=$(bash "$t" 2>&1)
		rc=$?
		echo "$out"
		printf '%s\n' "$out" > "$log.suite"
		why=$(suite_verdict "$log.suite" "$rc")
		rm -f "$log.suite"
		[ -z "$why" ] || echo "not ok - $name: $why"
	} | tee -a "$log"
	add_phase "host:$name" $(( $(now_ms) - t0 ))
done


if [ -n "$run_guest" ]; then
	wait "$vm_job"
	tee -a "$log" < "$guest_out"
	# (the kernel log's tail after a failed boot may end mid-line)
	[ -z "$(tail -c 1 "$guest_out")" ] || echo | tee -a "$log"
	rc=$(cat "$guest_out.rc")
	if [ "$rc" -ne 0 ]; then
		echo "not ok - guest suites: the VM run failed (status $rc)" | tee -a "$log"
	fi
	vm_ms=$(cat "$guest_out.ms")
	# Boot (until the first suite), each guest suite, and the rest (shutdown, copying).
	while read -r name ms; do add_phase "$name" "$ms"; done < <(awk -v total="$vm_ms" '
		/^# @t=/ { t = substr($0, 6) * 1000; if (n++) printf "guest:%s %d\n", s, t - p; else boot = t; p = t; next }
		/^# suite: / && n { s = $3 }
		END { if (n) { printf "vm:boot %d\n", boot; printf "vm:other %d\n", total - p } }' "$guest_out")
	add_phase "vm:total" "$vm_ms"
fi

{
	echo "# phases (seconds; the VM runs alongside the host suites):"
	total=$(( $(now_ms) - t_start ))
	for p in "${phases[@]}"; do
		set -- $p
		printf '#   %-28s %7.1f\n' "$1" "$(awk -v m="$2" 'BEGIN { print m / 1000 }')"
		case $1 in host:* | vm:* | guest:*) ;; *) total=$((total + $2)) ;; esac
	done
	printf '#   %-28s %7.1f\n' "total (wall clock)" "$(awk -v m="$total" 'BEGIN { print m / 1000 }')"
} | tee "${log%.log}-phases.txt"

pass=$(grep -E '^ok ' "$log" | grep -vc '# SKIP')
skip=$(grep -E '^ok ' "$log" | grep -c '# SKIP')
fail=$(grep -cE '^not ok' "$log")
# tests/vm/run's line (on stderr: in the log as it is, or as a suite's
# diagnostic) for each guest booted again after dying during boot.
retried=$(grep -cE '^(#[[:space:]]*)?vm: retried:' "$log")
echo
echo "$pass passed, $fail failed$([ "$skip" -eq 0 ] || echo ", $skip skipped")$([ "$retried" -eq 0 ] || echo ", $retried retried")"
[ "$fail" -eq 0 ]
