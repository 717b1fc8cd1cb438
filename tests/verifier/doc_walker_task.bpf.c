// SPDX-License-Identifier: GPL-2.0
/*
 * docs/walker-task.md, "Example": the program as the page shows it (block
 * "<!-- test: walker_task -->", taken from the page at build time), and
 * what it counts after a run.
 */
#include "verifier.h"

__kit_success __kit_retval(0)
__kit_global("nr_procs > 1")
__kit_global("nr_root > 0")
int count_procs(void *ctx);

#include "examples/walker_task.c"
