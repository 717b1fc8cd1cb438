/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by tests/progs/contexts.bpf.c and tests/kselftest/contexts.c. */
#ifndef __ITERKIT_CONTEXTS_H
#define __ITERKIT_CONTEXTS_H

enum ctx_where {
	CTX_FENTRY_HOT,		/* fentry/vfs_read */
	CTX_KPROBE,		/* kprobe/do_nanosleep */
	CTX_RAW_TP,		/* raw_tp/sys_enter */
	CTX_SCHED_SWITCH,	/* tp/sched/sched_switch: runqueue lock held, IRQs off */
	CTX_TASKLIST_LOCK,	/* fentry/do_notify_parent: tasklist_lock held */
	CTX_CGROUP_MUTEX,	/* tp/cgroup/cgroup_mkdir: cgroup_mutex (and a spinlock) held */
	CTX_CGROUP_ATTACH,	/* tp/cgroup/cgroup_attach_task: cgroup_mutex, threadgroup rwsem */
	CTX_CSS_SET_LOCK,	/* tp/cgroup/cgroup_notify_populated: css_set_lock held */
	CTX_KERNFS_RWSEM,	/* fentry/kernfs_activate_one: kernfs_rwsem held, preemptible */
	CTX_SOFTIRQ,		/* fentry/kernfs_free_rcu: an RCU callback, softirq */
	CTX_PERF_EVENT,		/* perf_event, cpu-clock: hard IRQ */
	CTX_PERF_HW,		/* perf_event, hardware cycles: NMI (when there is a PMU) */
	CTX_NMI,		/* fentry/nmi_cpu_backtrace_handler: NMI */
	CTX_NMI_TP,		/* tp/nmi/nmi_handler: NMI */
	CTX_TC_EGRESS,		/* tcx egress on lo: only rcu_read_lock_bh() held */
	CTX_TIMER,		/* a bpf_timer callback: softirq, no rcu_read_lock() */
	CTX_NR,
};

enum ctx_bad {
	CTX_BAD_NUM = 1,
	CTX_BAD_SEQ,
	CTX_BAD_TASK,
	CTX_BAD_OWN,
	CTX_BAD_CGROUP,
	CTX_BAD_UP,
	CTX_BAD_AT,
};

struct ctx_stats {
	__u64 fires;		/* times the program ran with walking enabled */
	__u64 walks;		/* walks done (seven per fire) */
	__u64 full_walks;	/* walks of every task or cgroup to the end */
	__u64 elements;		/* elements yielded */
	__u64 enoent;		/* current cgroup already gone (a task on its way out) */
	__u64 bad;		/* results against the contract */
	__u64 in_nmi, in_hardirq, in_softirq, in_task, ctx_unknown;
	__u64 non_preemptible;	/* fires with a non-zero preempt count */
	__u64 task_bh_off;	/* the others with bottom halves off in the task (PREEMPT_RT) */
	__u32 last_bad_what;
	__s32 last_bad_got;
};

#endif
