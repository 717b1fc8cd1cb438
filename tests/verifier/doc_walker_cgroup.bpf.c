// SPDX-License-Identifier: GPL-2.0
/*
 * docs/walker-cgroup.md, "Example": the program as the page shows it (block
 * "<!-- test: walker_cgroup -->", taken from the page at build time), and
 * what it counts after a run.
 */
#include "verifier.h"

__kit_success __kit_retval(0)
__kit_global("total >= 1")
int count_cgroups(void *ctx);

#include "examples/walker_cgroup.c"
