#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark: kit_num (a module's kfuncs) against the kernel's bpf_iter_num
# over the same loop, in the test VM. The VM runs under TCG, so absolute
# nanoseconds mean little; the ratio is the figure to read.
#   bench/num.sh [N] [ROUNDS]
cd "$(dirname "$0")/.." || exit 1
make -s tests >/dev/null || exit 1
tests/vm/run -- "insmod iterkit.ko && tests/helpers/num_bench ${1:-1000000} ${2:-9}"
