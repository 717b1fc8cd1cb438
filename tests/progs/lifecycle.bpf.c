// SPDX-License-Identifier: GPL-2.0
/*
 * Keeps iterkit's kfuncs busy for the life-cycle test: a SEC("syscall")
 * program user space runs in a loop, and the same walks from raw_tp/sys_enter
 * on every system call, while the test tries to unload the module.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"

__u64 runs, fires, bad;
__u64 scratch;

static __noinline void walk_all(void)
{
	struct task_struct *t;
	struct cgroup *cg;
	__s64 *s;
	int *v;

	scratch = 0;
	bpf_for_each(kit_num, v, 0, 8)
		scratch += *v;
	if (scratch != 28)
		bad++;
	bpf_for_each(testmod_seq, s, 3, 4)
		scratch += *s;
	bpf_rcu_read_lock();
	scratch = 0;
	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_PROCS) {
		if (++scratch >= 4)
			break;
	}
	if (!scratch)
		bad++;
	scratch = 0;
	bpf_for_each(kit_cgroup, cg, 0, KIT_CGROUP_DESCENDANTS_PRE) {
		if (++scratch >= 4)
			break;
	}
	if (!scratch)
		bad++;
	bpf_rcu_read_unlock();
}

SEC("syscall")
int run(void *ctx)
{
	walk_all();
	runs++;
	return 0;
}

SEC("raw_tp/sys_enter")
int on_syscall(void *ctx)
{
	walk_all();
	__sync_fetch_and_add(&fires, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
