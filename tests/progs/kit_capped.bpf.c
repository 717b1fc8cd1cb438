// SPDX-License-Identifier: GPL-2.0
/* Walks that report how they ended: how many elements the walkers yielded
 * and what bpf_iter_kit_*_capped() says during and after the walk.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"

extern struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym __weak;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym __weak;

/* in */
int pid;
unsigned int flags;		/* kit_task's flags */
__u64 cgroup_id;		/* kit_cgroup: id (0 = root); kit_cgroup_at: the start's id */
unsigned int order;
/* out */
int have;			/* the capped() kfunc exists */
int ret;			/* new()'s result */
__u64 count;			/* elements yielded */
int capped_running;		/* capped() was non-zero before next() returned NULL */
int capped;			/* capped() after the first NULL */
int capped_again;		/* capped() after one more next() */
int after_drain;		/* next() yielded after the first NULL */

static void reset(void)
{
	ret = 12345;
	count = 0;
	capped_running = 0;
	capped = capped_again = -1;
	after_drain = 0;
}

SEC("syscall")
int task_walk(void *ctx)
{
	struct bpf_iter_kit_task it;

	reset();
	have = bpf_ksym_exists(bpf_iter_kit_task_capped);
	if (!have)
		return 0;
	bpf_rcu_read_lock();
	ret = bpf_iter_kit_task_new(&it, pid, flags);
	if (bpf_iter_kit_task_capped(&it))
		capped_running = 1;
	while (bpf_iter_kit_task_next(&it)) {
		count = count + 1;
		if (bpf_iter_kit_task_capped(&it))
			capped_running = 1;
	}
	capped = bpf_iter_kit_task_capped(&it);
	after_drain = bpf_iter_kit_task_next(&it) != NULL;
	capped_again = bpf_iter_kit_task_capped(&it);
	bpf_iter_kit_task_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

SEC("syscall")
int cgroup_walk(void *ctx)
{
	struct bpf_iter_kit_cgroup it;

	reset();
	have = bpf_ksym_exists(bpf_iter_kit_cgroup_capped);
	if (!have)
		return 0;
	bpf_rcu_read_lock();
	ret = bpf_iter_kit_cgroup_new(&it, cgroup_id, order);
	if (bpf_iter_kit_cgroup_capped(&it))
		capped_running = 1;
	while (bpf_iter_kit_cgroup_next(&it)) {
		count = count + 1;
		if (bpf_iter_kit_cgroup_capped(&it))
			capped_running = 1;
	}
	capped = bpf_iter_kit_cgroup_capped(&it);
	after_drain = bpf_iter_kit_cgroup_next(&it) != NULL;
	capped_again = bpf_iter_kit_cgroup_capped(&it);
	bpf_iter_kit_cgroup_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

SEC("syscall")
int cgroup_at_walk(void *ctx)
{
	struct bpf_iter_kit_cgroup_at it;
	struct cgroup *start;

	reset();
	have = bpf_ksym_exists(bpf_iter_kit_cgroup_at_capped);
	if (!have)
		return 0;
	start = bpf_cgroup_from_id(cgroup_id);
	if (!start)
		return 2;
	bpf_rcu_read_lock();
	ret = bpf_iter_kit_cgroup_at_new(&it, start, order);
	if (bpf_iter_kit_cgroup_at_capped(&it))
		capped_running = 1;
	while (bpf_iter_kit_cgroup_at_next(&it)) {
		count = count + 1;
		if (bpf_iter_kit_cgroup_at_capped(&it))
			capped_running = 1;
	}
	capped = bpf_iter_kit_cgroup_at_capped(&it);
	after_drain = bpf_iter_kit_cgroup_at_next(&it) != NULL;
	capped_again = bpf_iter_kit_cgroup_at_capped(&it);
	bpf_iter_kit_cgroup_at_destroy(&it);
	bpf_rcu_read_unlock();
	bpf_cgroup_release(start);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
