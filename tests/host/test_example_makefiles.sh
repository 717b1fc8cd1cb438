#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every example under examples/ is built by the same Makefile, byte for
# byte: a fix to one is a fix to all (users copy any of them).
cd "$(dirname "$0")/../.." || exit 1
. tests/guest/tap.sh
n=0
for mk in examples/*/Makefile; do
	n=$((n + 1))
	tap_check "$mk is examples/minimal/Makefile" cmp -s "$mk" examples/minimal/Makefile
done
tap_check "three examples or more ($n)" test "$n" -ge 3
tap_done
