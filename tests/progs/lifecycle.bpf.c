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
__u64 bad_kind[4];	/* kit_num, testmod_seq, kit_task, kit_cgroup */

static __always_inline void walk_bad(int kind)
{
	__sync_fetch_and_add(&bad, 1);
	__sync_fetch_and_add(&bad_kind[kind & 3], 1);
}

/*
 * Runs on both CPUs at once (the test-run loop and every system call), so
 * what a walk counts is local; only the totals above are shared.
 */
static __noinline void walk_all(void)
{
	struct task_struct *t;
	struct cgroup *cg;
	__u64 n = 0;
	__s64 *s;
	int *v;

	bpf_for_each(kit_num, v, 0, 8)
		n += *v;
	if (n != 28)
		walk_bad(0);
	n = 0;
	bpf_for_each(testmod_seq, s, 3, 4)
		n += *s;
	if (n != 12)
		walk_bad(1);
	bpf_rcu_read_lock();
	n = 0;
	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_PROCS) {
		if (++n >= 4)
			break;
	}
	if (!n)
		walk_bad(2);
	n = 0;
	bpf_for_each(kit_cgroup, cg, 0, KIT_CGROUP_DESCENDANTS_PRE) {
		if (++n >= 4)
			break;
	}
	if (!n)
		walk_bad(3);
	bpf_rcu_read_unlock();
}

SEC("syscall")
int run(void *ctx)
{
	walk_all();
	__sync_fetch_and_add(&runs, 1);
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
