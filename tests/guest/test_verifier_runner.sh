#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The verifier-expectation runner must be able to fail: every wrong_*
# program of verifier-selftest/wrong.bpf.o carries an expectation the
# kernel does not meet and must come out "not ok", every right_* "ok",
# and the runner must exit non-zero.
. ./tap.sh

obj=verifier-selftest/wrong.bpf.o
out=$(./verifier-runner "$obj" 2>&1)
rc=$?

tap_check "runner exits non-zero when an expectation fails" [ "$rc" -ne 0 ]
tap_check "runner prints a TAP plan" sh -c 'echo "$1" | grep -q "^1\.\.[0-9]"' _ "$out"

# name: the expected result line prefix
for want in \
	"not ok:wrong_verdict_success" \
	"not ok:wrong_verdict_default" \
	"not ok:wrong_message" \
	"not ok:wrong_message_order" \
	"not ok:wrong_message_kver" \
	"not ok:wrong_retval" \
	"ok:right_retval" \
	"ok:right_failure"; do
	verdict=${want%%:*}
	prog=${want#*:}
	line=$(echo "$out" | grep -E "^(ok|not ok) [0-9]+ wrong\.bpf\.o:$prog\$")
	got=$(echo "$line" | sed -E 's/ [0-9]+ .*//')
	tap_eq "runner reports $verdict for $prog" "$got" "$verdict"
done

# The diagnostics must say what went wrong.
tap_contains "diagnostic for a wrong verdict" "$out" "# expected load failure, got success"
tap_contains "diagnostic for a missing message" "$out" "# MISSING: R0 invalid mem access 'scalar'"
tap_contains "diagnostic for a wrong retval" "$out" "# retval: expected 46, got 45"

if [ "$TAP_FAILED" -ne 0 ]; then
	tap_diag "$out"
fi
tap_done
