// SPDX-License-Identifier: GPL-2.0
/* What the verifier accepts and rejects around kit_cgroup walks. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

__u64 sink;

/* A walk in an RCU section, reading what it yields: accepted and run. */
SEC("syscall") __kit_success __kit_retval(0)
int kit_cgroup_walk_ok(void *ctx)
{
	struct cgroup *cg;

	bpf_rcu_read_lock();
	bpf_for_each(kit_cgroup, cg, 0, KIT_CGROUP_DESCENDANTS_PRE)
		sink += cg->level;
	bpf_rcu_read_unlock();
	return 0;
}

/* Non-sleepable programs are one RCU section already. */
SEC("?raw_tp") __kit_success
int kit_cgroup_walk_nonsleepable_ok(void *ctx)
{
	struct cgroup *cg;

	bpf_for_each(kit_cgroup, cg, 0, KIT_CGROUP_DESCENDANTS_POST)
		sink += cg->level;
	return 0;
}

/* Returned cgroups are read-only. */
SEC("?raw_tp") __kit_failure
__kit_msg("only read is supported")
int kit_cgroup_write_rejected(void *ctx)
{
	struct cgroup *cg;

	bpf_for_each(kit_cgroup, cg, 0, KIT_CGROUP_CHILDREN)
		cg->level = 0;
	return 0;
}

extern struct cgroup *bpf_cgroup_acquire(struct cgroup *cgrp) __ksym __weak;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym __weak;

/* Sanity for the next test: inside the section a yielded cgroup can be pinned. */
SEC("syscall") __kit_success __kit_retval(0)
int kit_cgroup_acquire_in_rcu_ok(void *ctx)
{
	struct bpf_iter_kit_cgroup it;
	struct cgroup *cg, *held = NULL;

	bpf_rcu_read_lock();
	bpf_iter_kit_cgroup_new(&it, 0, KIT_CGROUP_SELF_ONLY);
	cg = bpf_iter_kit_cgroup_next(&it);
	if (cg)
		held = bpf_cgroup_acquire(cg);
	bpf_iter_kit_cgroup_destroy(&it);
	bpf_rcu_read_unlock();
	if (held)
		bpf_cgroup_release(held);
	return 0;
}

/*
 * A yielded pointer does not outlive the RCU section: afterwards it is
 * untrusted (plain loads turn into fault-tolerant probe reads) and no kfunc
 * that needs a live cgroup takes it.
 */
SEC("syscall") __kit_failure
__kit_msg("R1 must be a rcu pointer")
int kit_cgroup_use_after_unlock_rejected(void *ctx)
{
	struct bpf_iter_kit_cgroup it;
	struct cgroup *cg;

	bpf_rcu_read_lock();
	bpf_iter_kit_cgroup_new(&it, 0, KIT_CGROUP_SELF_ONLY);
	cg = bpf_iter_kit_cgroup_next(&it);
	bpf_iter_kit_cgroup_destroy(&it);
	bpf_rcu_read_unlock();
	if (cg) {
		cg = bpf_cgroup_acquire(cg);
		if (cg)
			bpf_cgroup_release(cg);
	}
	return 0;
}

/* A sleepable program must open an RCU section before the walk. */
SEC("syscall") __kit_failure
__kit_msg_kver("6.7", "6.18", "expected an RCU CS when using bpf_iter_kit_cgroup_next")
__kit_msg_kver("6.18", "", "kernel func bpf_iter_kit_cgroup_new requires RCU critical section protection")
int kit_cgroup_sleepable_no_rcu_rejected(void *ctx)
{
	struct cgroup *cg;

	bpf_for_each(kit_cgroup, cg, 0, KIT_CGROUP_DESCENDANTS_PRE)
		sink++;
	return 0;
}

/* Ending the RCU section before destroy() leaves the walk outside it. */
SEC("syscall") __kit_failure
__kit_msg_kver("6.7", "6.18", "expected an RCU CS when using bpf_iter_kit_cgroup_destroy")
int kit_cgroup_destroy_after_unlock_rejected(void *ctx)
{
	struct bpf_iter_kit_cgroup it;

	bpf_rcu_read_lock();
	bpf_iter_kit_cgroup_new(&it, 0, KIT_CGROUP_SELF_ONLY);
	bpf_rcu_read_unlock();
	bpf_iter_kit_cgroup_destroy(&it);
	return 0;
}

/* kit_cgroup_at from the current task's cgroup: an RCU pointer, accepted and run. */
SEC("raw_tp") __kit_success __kit_retval(0)
int kit_cgroup_at_rcu_pointer_ok(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct cgroup *own = task->cgroups->dfl_cgrp, *cg;

	if (!own)
		return 1;
	bpf_for_each(kit_cgroup_at, cg, own, BPF_CGROUP_ITER_ANCESTORS_UP)
		sink += cg->level;
	return 0;
}

extern struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym __weak;

/* From an acquired (trusted) cgroup, and nested in a kit_cgroup walk. */
SEC("syscall") __kit_success __kit_retval(0)
int kit_cgroup_at_trusted_and_nested_ok(void *ctx)
{
	struct cgroup *root, *child, *cg;

	root = bpf_cgroup_from_id(1);
	if (!root)
		return 1;
	bpf_rcu_read_lock();
	bpf_for_each(kit_cgroup_at, cg, root, BPF_CGROUP_ITER_SELF_ONLY)
		sink += cg->level;
	/* A yielded cgroup is an RCU pointer: it can start a walk of its own. */
	bpf_for_each(kit_cgroup, child, 0, KIT_CGROUP_CHILDREN) {
		bpf_for_each(kit_cgroup_at, cg, child, BPF_CGROUP_ITER_DESCENDANTS_PRE)
			sink++;
	}
	bpf_rcu_read_unlock();
	bpf_cgroup_release(root);
	return 0;
}

/* kit_cgroup_at needs a cgroup: NULL is refused at load time. */
SEC("?raw_tp") __kit_failure
__kit_msg("Possibly NULL pointer passed to trusted")
int kit_cgroup_at_null_rejected(void *ctx)
{
	struct bpf_iter_kit_cgroup_at it;

	bpf_iter_kit_cgroup_at_new(&it, NULL, KIT_CGROUP_SELF_ONLY);
	bpf_iter_kit_cgroup_at_destroy(&it);
	return 0;
}

/* A cgroup pointer kept past its RCU section is untrusted: not a start. */
SEC("syscall") __kit_failure
__kit_msg("R2 must be a rcu pointer")
int kit_cgroup_at_stale_pointer_rejected(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct cgroup *own, *cg;

	bpf_rcu_read_lock();
	own = task->cgroups->dfl_cgrp;
	bpf_rcu_read_unlock();
	if (!own)
		return 1;
	bpf_rcu_read_lock();
	bpf_for_each(kit_cgroup_at, cg, own, BPF_CGROUP_ITER_SELF_ONLY)
		sink++;
	bpf_rcu_read_unlock();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
