// SPDX-License-Identifier: GPL-2.0
/* Walks for the kit_task suite: kit_task against the kernel's bpf_iter_task,
 * error paths, and plain counting walks for the churn test.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "task_rec.h"

/* The kernel's own task walker (6.7+); vmlinux BTF has no kfunc prototypes. */
extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task__nullable,
			     unsigned int flags) __ksym __weak;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym __weak;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym __weak;
extern struct task_struct *bpf_task_from_pid(s32 pid) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

#define MAX_SEQ 16384

/* diff: in */
int pid;
unsigned int flags;
/* diff: out. Tids, or -1 once a walker has ended while the other goes on. */
int kit_tids[MAX_SEQ], ker_tids[MAX_SEQ];
int kit_tgids[MAX_SEQ];
int kit_ret, ker_ret;
__u32 steps;		/* pairs recorded */
__u32 ker_extra;	/* tasks only the kernel's walker yielded, at the end */
int overflow;

SEC("syscall")
int diff(void *ctx)
{
	struct task_struct *task = NULL, *a, *b;
	struct bpf_iter_kit_task kit;
	struct bpf_iter_task ker;

	if (flags == KIT_TASK_PROC_THREADS) {
		task = bpf_task_from_pid(pid);
		if (!task)
			return 2;
	}
	bpf_rcu_read_lock();
	kit_ret = bpf_iter_kit_task_new(&kit, pid, flags);
	ker_ret = bpf_iter_task_new(&ker, task, flags);
	/*
	 * Lock-step, so both walkers see the task lists at the same moments:
	 * kit_task drives, the kernel's walker follows (-1 once it has ended).
	 */
	while ((a = bpf_iter_kit_task_next(&kit))) {
		__u32 n = steps;

		b = bpf_iter_task_next(&ker);
		if (n >= MAX_SEQ) {
			overflow = 1;
			break;
		}
		kit_tids[n] = a->pid;
		kit_tgids[n] = a->tgid;
		ker_tids[n] = b ? b->pid : -1;
		steps = n + 1;
	}
	/* Whatever the kernel's walker has beyond kit_task's end. */
	while (bpf_iter_task_next(&ker))
		ker_extra = ker_extra + 1;
	bpf_iter_task_destroy(&ker);
	bpf_iter_kit_task_destroy(&kit);
	bpf_rcu_read_unlock();
	if (task)
		bpf_task_release(task);
	return 0;
}

/* probe: in pid, flags; out probe_ret, the number of tasks the iterator
 * still yields, and whether next() stays NULL once it returned NULL.
 */
int probe_ret;
__u64 probe_count;
int probe_after;

SEC("syscall")
int probe(void *ctx)
{
	struct bpf_iter_kit_task it;

	bpf_rcu_read_lock();
	probe_ret = bpf_iter_kit_task_new(&it, pid, flags);
	while (bpf_iter_kit_task_next(&it))
		probe_count = probe_count + 1;
	probe_after = bpf_iter_kit_task_next(&it) != NULL;
	bpf_iter_kit_task_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

/* record: what a walk in mode `flags` (pid `pid`) yields, task by task. */
struct task_rec recs[MAX_SEQ];
__u32 nrecs;

SEC("syscall")
int record(void *ctx)
{
	struct task_struct *t;

	nrecs = 0;
	bpf_rcu_read_lock();
	bpf_for_each(kit_task, t, pid, flags) {
		__u32 n = nrecs;

		if (n >= MAX_SEQ) {
			overflow = 1;
			break;
		}
		recs[n].tid = t->pid;
		recs[n].tgid = t->tgid;
		recs[n].ppid = t->real_parent->tgid;
		bpf_probe_read_kernel(recs[n].comm, sizeof(recs[n].comm), t->comm);
		nrecs = n + 1;
	}
	bpf_rcu_read_unlock();
	return 0;
}

/* count: how many threads one ALL_THREADS walk yields (churn test). */
__u64 count_tasks;

SEC("syscall")
int count(void *ctx)
{
	struct task_struct *t;

	count_tasks = 0;
	bpf_rcu_read_lock();
	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_THREADS)
		count_tasks = count_tasks + 1;
	bpf_rcu_read_unlock();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
