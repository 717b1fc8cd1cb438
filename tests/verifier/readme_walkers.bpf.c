// SPDX-License-Identifier: GPL-2.0
/* The walker examples of README.md, as written there: they must load and run. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

int nr_procs, nr_root;

SEC("syscall")
__kit_success __kit_retval(0)
int count_procs(void *ctx)
{
	struct task_struct *t;

	/* Sleepable program: the walk must sit in an RCU read-side section. */
	bpf_rcu_read_lock();
	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_PROCS) {
		nr_procs++;
		if (t->cred->uid.val == 0)
			nr_root++;
	}
	bpf_rcu_read_unlock();
	return nr_procs > 1 && nr_root > 0 ? 0 : 1;
}

__u64 total, deepest;

SEC("syscall")
__kit_success __kit_retval(0)
int count_cgroups(void *ctx)
{
	__u64 start = bpf_get_current_cgroup_id();
	struct cgroup *cg;

	/* SEC("syscall") is sleepable: open the RCU section the walk needs. */
	bpf_rcu_read_lock();
	bpf_for_each(kit_cgroup, cg, start, BPF_CGROUP_ITER_DESCENDANTS_PRE) {
		total++;
		if (cg->level > deepest)
			deepest = cg->level;
	}
	bpf_rcu_read_unlock();
	return total >= 1 ? 0 : 1;
}

char LICENSE[] SEC("license") = "GPL";
