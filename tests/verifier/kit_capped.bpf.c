// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_iter_kit_{task,cgroup,cgroup_at}_capped() take a live iterator (an
 * it__iter parameter, where the module has ITERKIT_ITER_ARGS): accepted
 * inside the loop and after it, refused before new() and after destroy().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

SEC("?syscall")
__kit_feature(ITER_ARGS)
__kit_success __kit_retval(0)
int kit_task_capped_good(void *ctx)
{
	struct bpf_iter_kit_task it;
	int capped = 0;

	bpf_rcu_read_lock();
	bpf_iter_kit_task_new(&it, 0, KIT_TASK_ALL_PROCS);
	while (bpf_iter_kit_task_next(&it))
		capped |= bpf_iter_kit_task_capped(&it);
	capped |= bpf_iter_kit_task_capped(&it);
	bpf_iter_kit_task_destroy(&it);
	bpf_rcu_read_unlock();
	return capped;
}

SEC("?syscall")
__kit_feature(ITER_ARGS)
__kit_success __kit_retval(0)
int kit_cgroup_capped_good(void *ctx)
{
	struct bpf_iter_kit_cgroup it;
	int capped = 0;

	bpf_rcu_read_lock();
	bpf_iter_kit_cgroup_new(&it, 0, KIT_CGROUP_DESCENDANTS_PRE);
	while (bpf_iter_kit_cgroup_next(&it))
		capped |= bpf_iter_kit_cgroup_capped(&it);
	capped |= bpf_iter_kit_cgroup_capped(&it);
	bpf_iter_kit_cgroup_destroy(&it);
	bpf_rcu_read_unlock();
	return capped;
}

SEC("?raw_tp")
__kit_feature(ITER_ARGS)
__kit_success __kit_retval(0)
int kit_cgroup_at_capped_good(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_kit_cgroup_at it;
	struct cgroup *own = task->cgroups->dfl_cgrp;
	int capped = 0;

	if (!own)
		return 1;
	bpf_iter_kit_cgroup_at_new(&it, own, KIT_CGROUP_ANCESTORS_UP);
	while (bpf_iter_kit_cgroup_at_next(&it))
		capped |= bpf_iter_kit_cgroup_at_capped(&it);
	capped |= bpf_iter_kit_cgroup_at_capped(&it);
	bpf_iter_kit_cgroup_at_destroy(&it);
	return capped;
}

SEC("?syscall")
__kit_feature(ITER_ARGS)
__kit_failure
__kit_msg_iter_uninit_arg1("kit_task")
int kit_task_capped_before_new(void *ctx)
{
	struct bpf_iter_kit_task it;

	return bpf_iter_kit_task_capped(&it);
}

SEC("?syscall")
__kit_feature(ITER_ARGS)
__kit_failure
__kit_msg_iter_uninit_arg1("kit_cgroup")
int kit_cgroup_capped_after_destroy(void *ctx)
{
	struct bpf_iter_kit_cgroup it;

	bpf_rcu_read_lock();
	bpf_iter_kit_cgroup_new(&it, 0, KIT_CGROUP_SELF_ONLY);
	bpf_iter_kit_cgroup_destroy(&it);
	bpf_rcu_read_unlock();
	return bpf_iter_kit_cgroup_capped(&it);
}

char LICENSE[] SEC("license") = "GPL";
