// SPDX-License-Identifier: GPL-2.0
/*
 * B2, the walkers against the kernel's own: kit_task against bpf_iter_task
 * and kit_cgroup against bpf_iter_css, the same loop (count the elements)
 * timed inside the program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"

extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task__nullable,
			     unsigned int flags) __ksym __weak;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym __weak;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym __weak;
extern int bpf_iter_css_new(struct bpf_iter_css *it, struct cgroup_subsys_state *start,
			    unsigned int flags) __ksym __weak;
extern struct cgroup_subsys_state *bpf_iter_css_next(struct bpf_iter_css *it) __ksym __weak;
extern void bpf_iter_css_destroy(struct bpf_iter_css *it) __ksym __weak;
extern struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym __weak;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym __weak;

unsigned int mode;	/* in: task flags (KIT_TASK_*) or cgroup order (KIT_CGROUP_*) */
__u64 elapsed;		/* out: ns around the walk */
__u64 count;		/* out: elements */

/* One timed walk counting the elements; ARGS... after the iterator's state. */
#define TIMED_WALK(iter, cur, args...)					\
	({								\
		__u64 t0, c = 0;					\
									\
		bpf_rcu_read_lock();					\
		t0 = bpf_ktime_get_ns();				\
		bpf_for_each(iter, cur, args) {				\
			c++;						\
			barrier_var(c);					\
		}							\
		elapsed = bpf_ktime_get_ns() - t0;			\
		bpf_rcu_read_unlock();					\
		count = c;						\
	})

SEC("syscall")
int walk_kit_task(void *ctx)
{
	struct task_struct *t;

	TIMED_WALK(kit_task, t, 0, mode);
	return 0;
}

SEC("syscall")
int walk_task(void *ctx)
{
	struct task_struct *t;

	TIMED_WALK(task, t, NULL, mode);
	return 0;
}

SEC("syscall")
int walk_kit_cgroup(void *ctx)
{
	struct cgroup *cg;

	TIMED_WALK(kit_cgroup, cg, 0, mode);
	return 0;
}

SEC("syscall")
int walk_css(void *ctx)
{
	struct cgroup *root = bpf_cgroup_from_id(1);	/* the v2 root */
	struct cgroup_subsys_state *pos;

	if (!root)
		return 1;
	TIMED_WALK(css, pos, &root->self, mode);
	bpf_cgroup_release(root);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
