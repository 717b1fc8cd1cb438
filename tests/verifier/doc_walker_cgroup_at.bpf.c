// SPDX-License-Identifier: GPL-2.0
/*
 * docs/walker-cgroup.md, kit_cgroup_at: the program as the page shows it
 * (block "<!-- test: walker_cgroup_at -->"), run in the verifier runner's
 * own context, which in the test VM is the root cgroup: its own cgroup is
 * level 0 with one cgroup up to the root, itself.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

__kit_success __kit_retval(0)
__kit_global("my_level == 0")
__kit_global("my_ancestors == 1")
int own_ancestors(void *ctx);

#include "examples/walker_cgroup_at.c"

char LICENSE[] SEC("license") = "GPL";
