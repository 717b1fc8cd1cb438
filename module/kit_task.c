// SPDX-License-Identifier: GPL-2.0
/*
 * kit_task: walks processes or threads, in the order of the kernel's own
 * bpf_iter_task (6.7+): the idle task (pid 0) first in the ALL_* modes, then
 * the task list; threads of one process in thread-list order.
 *
 * No references are taken. new() is KF_RCU_PROTECTED, so the verifier keeps
 * new(), every next() and the use of every returned pointer inside one RCU
 * read-side section, and RCU keeps each task_struct we stand on alive.
 */
#include <linux/bpf.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/threads.h>
#include "iterkit_compat.h"
#include "iterkit_defs.h"
#include "iterkit_main.h"

/* Kernels without KF_RCU_PROTECTED get no walkers (scripts/build-module.sh). */
#ifdef ITERKIT_WALKERS

/*
 * KIT_TASK_MAX_STEPS (iterkit_defs.h) is the most tasks one walk hands out.
 * Live tasks each own a distinct pid, so no more than PID_MAX_LIMIT exist at
 * any instant. A walk under RCU sees every task that was there when it
 * started, plus tasks forked while it runs (they are appended to the lists
 * it follows), so only a walk that keeps chasing new forks can exceed this;
 * stopping it there loses no task that existed at the start, and guarantees
 * next() returns NULL after at most KIT_TASK_MAX_STEPS + 1 calls however
 * tasks come and go.
 */
static_assert(KIT_TASK_MAX_STEPS == PID_MAX_LIMIT);

/* What BPF programs see: opaque bytes on their stack. */
struct bpf_iter_kit_task {
	__u64 __opaque[KIT_TASK_ITER_WORDS];
} __aligned(8);

struct kit_task_state {
	struct task_struct *proc;	/* process being walked (its leader) */
	struct task_struct *pos;	/* next task to hand out; NULL: done */
	u8 flags;
	u8 capped;			/* next() stopped at the cap, tasks left */
	u32 steps_left;			/* tasks next() may still hand out */
};

__bpf_kfunc_start_defs();

/*
 * pid: 0 for the ALL_* modes; for PROC_THREADS the tgid of a process in the
 * initial pid namespace. -EINVAL for unknown flags or a pid that does not
 * fit the mode, -ESRCH when no such process exists (negative pids
 * included). On error the iterator is empty.
 */
__bpf_kfunc int bpf_iter_kit_task_new(struct bpf_iter_kit_task *it, int pid,
				      unsigned int flags)
{
	struct kit_task_state *s = (void *)it;
	struct task_struct *leader = NULL;

	/* A 32-bit kernel's state is smaller than what programs reserve. */
	BUILD_BUG_ON(sizeof(struct kit_task_state) > sizeof(struct bpf_iter_kit_task));
	BUILD_BUG_ON(__alignof__(struct kit_task_state) >
		     __alignof__(struct bpf_iter_kit_task));

	s->proc = NULL;
	s->pos = NULL;
	s->flags = 0;
	s->capped = 0;
	s->steps_left = 0;

	switch (flags) {
	case KIT_TASK_ALL_PROCS:
	case KIT_TASK_ALL_THREADS:
		if (pid)
			return -EINVAL;
		leader = &init_task;
		break;
	case KIT_TASK_PROC_THREADS:
		if (!pid)
			return -EINVAL;
		if (pid < 0)
			return -ESRCH;
		/*
		 * The caller is in an RCU read-side section (KF_RCU_PROTECTED),
		 * but maybe only a bh- or sched-flavoured one (TC, timer
		 * callbacks); pid_task() asserts rcu_read_lock().
		 */
		rcu_read_lock();
		leader = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_TGID);
		rcu_read_unlock();
		if (!leader)
			return -ESRCH;
		break;
	default:
		return -EINVAL;
	}

	s->proc = leader;
	s->pos = leader;
	s->flags = flags;
	s->steps_left = iterkit_walk_cap(KIT_TASK_MAX_STEPS);
	return 0;
}

__bpf_kfunc struct task_struct *bpf_iter_kit_task_next(struct bpf_iter_kit_task *it)
{
	struct kit_task_state *s = (void *)it;
	struct task_struct *cur = s->pos;

	if (!cur)
		return NULL;
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "kit_task walk outside RCU");
	/* pos is set: the walk has more, so stopping here is a truncation. */
	if (!s->steps_left) {
		s->pos = NULL;
		s->capped = 1;
		return NULL;
	}
	s->steps_left--;

	if (s->flags != KIT_TASK_ALL_PROCS) {
		s->pos = __next_thread(cur);
		if (s->pos || s->flags == KIT_TASK_PROC_THREADS)
			return cur;
	}

	/* Next process; the task list is circular through init_task. */
	s->proc = next_task(s->proc);
	s->pos = s->proc == &init_task ? NULL : s->proc;
	return cur;
}

__bpf_kfunc void bpf_iter_kit_task_destroy(struct bpf_iter_kit_task *it)
{
	struct kit_task_state *s = (void *)it;

	s->pos = NULL;
}

#ifdef ITERKIT_ITER_ARGS
/*
 * 1 once next() has returned NULL because the walk reached its cap
 * (KIT_TASK_MAX_STEPS or max_steps) with tasks left; 0 while it runs,
 * after a complete walk, and for an iterator whose new() failed.
 */
__bpf_kfunc int bpf_iter_kit_task_capped(struct bpf_iter_kit_task *it__iter)
{
	return ((struct kit_task_state *)it__iter)->capped;
}
#endif

__bpf_kfunc_end_defs();

#endif /* ITERKIT_WALKERS */
