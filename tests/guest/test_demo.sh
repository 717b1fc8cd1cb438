#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `iterkit demo`, the main job, as a suite: every verdict line it prints
# becomes a TAP line, and the command must exit 0, with no kernel report.
. ./tap.sh
kmsg_mark test_demo
out=$(iterkit demo 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
n=0
while read -r verdict iter detail; do
	case $verdict in
	PASS) tap_ok "demo: $iter"; n=$((n + 1)) ;;
	FAIL) tap_fail "demo: $iter: $detail"; n=$((n + 1)) ;;
	esac
done <<EOT
$out
EOT
tap_check "demo printed a verdict for kit_num and testmod_seq" [ "$n" -ge 2 ]
tap_eq "iterkit demo exits 0" "$rc" 0
tap_log_clean "kernel log clean" test_demo
tap_done
