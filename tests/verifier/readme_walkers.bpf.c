// SPDX-License-Identifier: GPL-2.0
/*
 * docs/iterators.md, "The walkers": the two example programs as the page
 * shows them (block "<!-- test: readme_walkers -->", taken from the page at
 * build time). The page leaves out the includes and the license; they are
 * added around it. What they count is checked after a run: more than one
 * process, some of them root's (the test VM runs as root), and at least the
 * runner's own cgroup.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

__kit_success __kit_retval(0)
__kit_global("nr_procs > 1")
__kit_global("nr_root > 0")
int count_procs(void *ctx);

__kit_success __kit_retval(0)
__kit_global("total >= 1")
__kit_global("deepest >= 0")
int count_cgroups(void *ctx);

#include "examples/readme_walkers.c"

char LICENSE[] SEC("license") = "GPL";
