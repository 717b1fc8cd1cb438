// SPDX-License-Identifier: GPL-2.0
/* kit_cgroup: PLACEHOLDER, always empty; the real walker lands with issue 3. */
#include <linux/bpf.h>
#include <linux/cgroup.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include "iterkit_compat.h"

struct bpf_iter_kit_cgroup {
	__u64 __opaque[3];
} __aligned(8);

__bpf_kfunc_start_defs();

__bpf_kfunc int bpf_iter_kit_cgroup_new(struct bpf_iter_kit_cgroup *it, u64 cgroup_id, unsigned int order)
{
	return -EOPNOTSUPP;
}

__bpf_kfunc struct cgroup *bpf_iter_kit_cgroup_next(struct bpf_iter_kit_cgroup *it)
{
	return NULL;
}

__bpf_kfunc void bpf_iter_kit_cgroup_destroy(struct bpf_iter_kit_cgroup *it)
{
}

__bpf_kfunc_end_defs();
