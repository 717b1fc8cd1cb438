// SPDX-License-Identifier: GPL-2.0
/*
 * Walks of every kind from every kind of program the UNSPEC kfunc set
 * reaches, each attached where the kernel runs it in a context of its own:
 * an fentry on a hot path (vfs_read), a kprobe, raw and BTF-less
 * tracepoints, perf_event (cpu-clock: hard IRQ; a hardware event: NMI),
 * an fentry and a tracepoint in NMI (the sysrq-l backtrace handler), an
 * fentry in softirq (an RCU callback), and programs that run while the
 * kernel holds the locks a walker could trip over: the runqueue lock
 * (sched_switch), tasklist_lock (do_notify_parent), cgroup_mutex
 * (cgroup_mkdir, cgroup_attach_task), css_set_lock
 * (cgroup_notify_populated), kernfs_rwsem (kernfs_activate_one); and
 * readers the verifier accepts without rcu_read_lock(): a TC program on
 * egress (rcu_read_lock_bh()) and a bpf_timer callback (softirq).
 * Every walk's result is checked here against the contract; user space
 * (tests/kselftest/contexts.c) reads the counters.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "iterkit.bpf.h"
#include "contexts.h"

/*
 * Where this CPU's preempt count lives: x86 pcpu_hot up to 6.14, then
 * __preempt_count (an int; an unsigned long from 7.3, whose low half holds
 * the count). Reading 4 bytes fits both.
 */
struct pcpu_hot___kit {
	int preempt_count;
} __attribute__((preserve_access_index));
extern const struct pcpu_hot___kit pcpu_hot __ksym __weak;
extern const int __preempt_count __ksym __weak;
/*
 * 7.3 added 8 HARDIRQ_DISABLE bits above the softirq count (the series that
 * also brought this per-CPU variable), moving the hard IRQ and NMI counts up.
 */
extern const unsigned long local_interrupt_disable_state __ksym __weak;

/*
 * PREEMPT_RT keeps the softirq count per task, not in the preempt count: a
 * softirq (run by a thread there) and local_bh_disable() show only in
 * current->softirq_disable_cnt, a field other kernels do not have.
 */
struct task_struct___rt {
	int softirq_disable_cnt;
} __attribute__((preserve_access_index));

#define SOFTIRQ_MASK	0x0000ff00
#define SOFTIRQ_OFFSET	0x00000100
#define HARDIRQ_MASK	(bpf_ksym_exists(&local_interrupt_disable_state) ? 0x0f000000 : 0x000f0000)
#define NMI_MASK	(bpf_ksym_exists(&local_interrupt_disable_state) ? 0x10000000 : 0x00f00000)

/* The current task's softirq count on PREEMPT_RT, 0 elsewhere. */
static __always_inline int task_softirq_count(void)
{
	struct task_struct___rt *t = (void *)bpf_get_current_task_btf();

	if (!bpf_core_field_exists(t->softirq_disable_cnt))
		return 0;
	return BPF_CORE_READ(t, softirq_disable_cnt) & SOFTIRQ_MASK;
}

/*
 * What a walk carries from one element to the next lives here, not in
 * registers, so the verifier's iterator loops converge: one slot per
 * nesting level on each CPU (an NMI program can interrupt another one).
 */
#define MAX_NEST 4

struct scratch {
	__s64 n, expect, level;
};

struct nest {
	__u64 depth;
	struct scratch slot[MAX_NEST];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nest);
} nests SEC(".maps");

__u32 enabled;			/* walks only while user space says so */
__u32 full_every = 64;		/* one fire in this many walks everything to the end */
struct ctx_stats stats[CTX_NR];

/* This CPU's preempt count, or -1 when the kernel does not say where it is. */
#if defined(__TARGET_ARCH_arm64)
/*
 * arm64 keeps it in the current task's thread_info (the first member of
 * task_struct): a u64 whose low half is the count and whose high half is
 * the need-resched flag. In an interrupt or NMI the current task is the
 * interrupted one, and its count carries the interrupt's offsets.
 */
static __always_inline int preempt_count(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return t->thread_info.preempt.count & 0x7fffffff;
}
#else
static __always_inline int preempt_count(void)
{
	int pc;

	if (bpf_ksym_exists(&pcpu_hot))
		pc = ((struct pcpu_hot___kit *)bpf_this_cpu_ptr(&pcpu_hot))->preempt_count;
	else if (bpf_ksym_exists(&__preempt_count))
		pc = *(int *)bpf_this_cpu_ptr(&__preempt_count);
	else
		return -1;
	/* Up to 7.2, x86 keeps an inverted need-resched flag in bit 31. */
	return pc & 0x7fffffff;
}
#endif

static __noinline void bad(struct ctx_stats *st, __u32 what, int got)
{
	__sync_fetch_and_add(&st->bad, 1);
	st->last_bad_what = what;
	st->last_bad_got = got;
}

static __noinline void walk_num(struct ctx_stats *st, struct scratch *sc)
{
	struct bpf_iter_kit_num it;
	int *v;

	sc->n = 0;
	sc->expect = -5;
	if (bpf_iter_kit_num_new(&it, -5, 11))
		bad(st, CTX_BAD_NUM, 0);
	while ((v = bpf_iter_kit_num_next(&it))) {
		if (*v != sc->expect)
			bad(st, CTX_BAD_NUM, *v);
		sc->expect++;
		sc->n++;
	}
	bpf_iter_kit_num_destroy(&it);
	if (sc->n != 16)
		bad(st, CTX_BAD_NUM, sc->n);
	__sync_fetch_and_add(&st->elements, sc->n);
}

static __noinline void walk_seq(struct ctx_stats *st, struct scratch *sc)
{
	struct bpf_iter_testmod_seq it;
	__s64 *v;

	sc->n = 0;
	if (bpf_iter_testmod_seq_new(&it, 42, 5))
		bad(st, CTX_BAD_SEQ, 0);
	while ((v = bpf_iter_testmod_seq_next(&it))) {
		if (*v != 42)
			bad(st, CTX_BAD_SEQ, *v);
		sc->n++;
	}
	bpf_iter_testmod_seq_destroy(&it);
	if (sc->n != 5)
		bad(st, CTX_BAD_SEQ, sc->n);
	__sync_fetch_and_add(&st->elements, sc->n);
}

/* All processes (or threads): the idle task first; abandoned after 8 unless full. */
static __noinline void walk_tasks(struct ctx_stats *st, struct scratch *sc,
				  unsigned int flags, int full)
{
	struct bpf_iter_kit_task it;
	struct task_struct *t;
	int ret;

	sc->n = 0;
	ret = bpf_iter_kit_task_new(&it, 0, flags);
	if (ret)
		bad(st, CTX_BAD_TASK, ret);
	while ((t = bpf_iter_kit_task_next(&it))) {
		if (!sc->n && t->pid)
			bad(st, CTX_BAD_TASK, t->pid);
		sc->n++;
		if (!full && sc->n >= 8)
			break;
	}
	bpf_iter_kit_task_destroy(&it);
	if (sc->n < 2)
		bad(st, CTX_BAD_TASK, sc->n);
	if (full)
		__sync_fetch_and_add(&st->full_walks, 1);
	__sync_fetch_and_add(&st->elements, sc->n);
}

/* The current process's threads: it may be the idle task or on its way out. */
static __noinline void walk_own_threads(struct ctx_stats *st, struct scratch *sc)
{
	int tgid = bpf_get_current_pid_tgid() >> 32;
	struct bpf_iter_kit_task it;
	struct task_struct *t;
	int ret;

	sc->n = 0;
	ret = bpf_iter_kit_task_new(&it, tgid, KIT_TASK_PROC_THREADS);
	while ((t = bpf_iter_kit_task_next(&it))) {
		if (t->tgid != tgid)
			bad(st, CTX_BAD_OWN, t->tgid);
		sc->n++;
	}
	bpf_iter_kit_task_destroy(&it);
	if (!tgid ? ret != -22 : ret && ret != -3)
		bad(st, CTX_BAD_OWN, ret);
	if (!ret && sc->n < 1)
		bad(st, CTX_BAD_OWN, sc->n);
	__sync_fetch_and_add(&st->elements, sc->n);
}

/* From the root (abandoned after 8 unless full), and up from the current cgroup. */
static __noinline void walk_cgroups(struct ctx_stats *st, struct scratch *sc, int full)
{
	__u64 cgid = bpf_get_current_cgroup_id(), id;
	struct bpf_iter_kit_cgroup it;
	struct cgroup *cg;
	int ret;

	sc->n = 0;
	ret = bpf_iter_kit_cgroup_new(&it, 0, KIT_CGROUP_DESCENDANTS_PRE);
	if (ret)
		bad(st, CTX_BAD_CGROUP, ret);
	while ((cg = bpf_iter_kit_cgroup_next(&it))) {
		if (!sc->n && cg->level)
			bad(st, CTX_BAD_CGROUP, cg->level);
		sc->n++;
		if (!full && sc->n >= 8)
			break;
	}
	bpf_iter_kit_cgroup_destroy(&it);
	if (sc->n < 1)
		bad(st, CTX_BAD_CGROUP, sc->n);
	if (full)
		__sync_fetch_and_add(&st->full_walks, 1);
	__sync_fetch_and_add(&st->elements, sc->n);

	/* A task on its way out may be in a cgroup that is being removed. */
	sc->n = 0;
	sc->level = -1;
	ret = bpf_iter_kit_cgroup_new(&it, cgid, KIT_CGROUP_ANCESTORS_UP);
	while ((cg = bpf_iter_kit_cgroup_next(&it))) {
		id = BPF_CORE_READ(cg, kn, id);
		if (!sc->n && id != cgid)
			bad(st, CTX_BAD_UP, 0);
		if (sc->n && cg->level != sc->level - 1)
			bad(st, CTX_BAD_UP, cg->level);
		sc->level = cg->level;
		sc->n++;
	}
	bpf_iter_kit_cgroup_destroy(&it);
	if (ret && ret != -2)
		bad(st, CTX_BAD_UP, ret);
	if (!ret && sc->level != 0)
		bad(st, CTX_BAD_UP, sc->level);
	if (ret)
		__sync_fetch_and_add(&st->enoent, 1);
	__sync_fetch_and_add(&st->elements, sc->n);
}

/* kit_cgroup_at up from the current task's cgroup pointer: no lookup at all. */
static __noinline void walk_cgroups_at(struct ctx_stats *st, struct scratch *sc)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_kit_cgroup_at it;
	struct cgroup *cg, *own;
	int ret;

	own = task->cgroups->dfl_cgrp;
	if (!own)
		return;
	sc->n = 0;
	sc->level = -1;
	ret = bpf_iter_kit_cgroup_at_new(&it, own, KIT_CGROUP_ANCESTORS_UP);
	if (ret)
		bad(st, CTX_BAD_AT, ret);
	while ((cg = bpf_iter_kit_cgroup_at_next(&it))) {
		if (sc->n && cg->level != sc->level - 1)
			bad(st, CTX_BAD_AT, cg->level);
		sc->level = cg->level;
		sc->n++;
	}
	bpf_iter_kit_cgroup_at_destroy(&it);
	if (sc->level != 0)
		bad(st, CTX_BAD_AT, sc->level);
	__sync_fetch_and_add(&st->elements, sc->n);
}

static __always_inline void walk_everything(__u32 where)
{
	struct scratch *sc;
	struct ctx_stats *st;
	struct nest *nest;
	__u32 zero = 0;
	__u64 depth;
	__u64 fire;
	int pc, full;

	if (!enabled || where >= CTX_NR)
		return;
	nest = bpf_map_lookup_elem(&nests, &zero);
	if (!nest)
		return;
	depth = __sync_fetch_and_add(&nest->depth, 1);
	if (depth >= MAX_NEST)
		goto out;
	sc = &nest->slot[depth];
	st = &stats[where];
	fire = __sync_fetch_and_add(&st->fires, 1);
	full = full_every && !(fire % full_every);
	pc = preempt_count();
	if (pc < 0)
		__sync_fetch_and_add(&st->ctx_unknown, 1);
	else if (pc & NMI_MASK)
		__sync_fetch_and_add(&st->in_nmi, 1);
	else if (pc & HARDIRQ_MASK)
		__sync_fetch_and_add(&st->in_hardirq, 1);
	else if (pc & SOFTIRQ_OFFSET)
		__sync_fetch_and_add(&st->in_softirq, 1);
	else
		__sync_fetch_and_add(&st->in_task, 1);
	if (pc > 0)
		__sync_fetch_and_add(&st->non_preemptible, 1);
	else if (task_softirq_count() > 0)
		__sync_fetch_and_add(&st->task_bh_off, 1);

	walk_num(st, sc);
	walk_seq(st, sc);
	walk_tasks(st, sc, fire & 1 ? KIT_TASK_ALL_THREADS : KIT_TASK_ALL_PROCS, full);
	walk_own_threads(st, sc);
	walk_cgroups(st, sc, full);
	walk_cgroups_at(st, sc);
	__sync_fetch_and_add(&st->walks, 7);
out:
	__sync_fetch_and_add(&nest->depth, -1);
}

SEC("fentry/vfs_read")
int BPF_PROG(hot_vfs_read)
{
	walk_everything(CTX_FENTRY_HOT);
	return 0;
}

SEC("kprobe/do_nanosleep")
int kprobe_nanosleep(struct pt_regs *regs)
{
	walk_everything(CTX_KPROBE);
	return 0;
}

SEC("raw_tp/sys_enter")
int raw_tp_sys_enter(void *ctx)
{
	walk_everything(CTX_RAW_TP);
	return 0;
}

SEC("tp/sched/sched_switch")
int tp_sched_switch(void *ctx)
{
	walk_everything(CTX_SCHED_SWITCH);
	return 0;
}

SEC("fentry/do_notify_parent")
int BPF_PROG(tasklist_locked)
{
	walk_everything(CTX_TASKLIST_LOCK);
	return 0;
}

SEC("tp/cgroup/cgroup_mkdir")
int tp_cgroup_mkdir(void *ctx)
{
	walk_everything(CTX_CGROUP_MUTEX);
	return 0;
}

SEC("tp/cgroup/cgroup_attach_task")
int tp_cgroup_attach(void *ctx)
{
	walk_everything(CTX_CGROUP_ATTACH);
	return 0;
}

SEC("tp/cgroup/cgroup_notify_populated")
int tp_cgroup_populated(void *ctx)
{
	walk_everything(CTX_CSS_SET_LOCK);
	return 0;
}

SEC("fentry/kernfs_activate_one")
int BPF_PROG(kernfs_rwsem_held)
{
	walk_everything(CTX_KERNFS_RWSEM);
	return 0;
}

SEC("fentry/kernfs_free_rcu")
int BPF_PROG(rcu_callback)
{
	walk_everything(CTX_SOFTIRQ);
	return 0;
}

SEC("perf_event")
int perf_sample(void *ctx)
{
	walk_everything(CTX_PERF_EVENT);
	return 0;
}

SEC("perf_event")
int perf_sample_hw(void *ctx)
{
	walk_everything(CTX_PERF_HW);
	return 0;
}

#if defined(__TARGET_ARCH_arm64)
/*
 * arm64 has no NMI handler of its own: sysrq-l's backtrace request reaches
 * the other CPUs as an IPI, an NMI only where the kernel has pseudo-NMIs
 * (CONFIG_ARM64_PSEUDO_NMI and irqchip.gicv3_pseudo_nmi=1 on a GICv3). Its
 * handler, nmi_cpu_backtrace(), cannot be traced there; cpu_in_idle() is
 * what it calls with the interrupted registers, only in that IPI. The
 * ipi_entry tracepoint leaves the backtrace IPI out (it stops below
 * IPI_CPU_BACKTRACE), irq_handler_entry sees every IPI.
 */
SEC("fentry/cpu_in_idle")
int BPF_PROG(nmi_backtrace)
{
	walk_everything(CTX_NMI);
	return 0;
}

SEC("tp/irq/irq_handler_entry")
int tp_nmi_handler(struct trace_event_raw_irq_handler_entry *ctx)
{
	char name[4] = {};

	bpf_probe_read_kernel_str(name, sizeof(name), (void *)ctx + (ctx->__data_loc_name & 0xffff));
	if (bpf_strncmp(name, sizeof(name), "IPI"))
		return 0;
	walk_everything(CTX_NMI_TP);
	return 0;
}
#else
SEC("fentry/nmi_cpu_backtrace_handler")
int BPF_PROG(nmi_backtrace)
{
	walk_everything(CTX_NMI);
	return 0;
}

SEC("tp/nmi/nmi_handler")
int tp_nmi_handler(void *ctx)
{
	walk_everything(CTX_NMI_TP);
	return 0;
}
#endif

struct timer_elem {
	struct bpf_timer timer;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct timer_elem);
} timers SEC(".maps");

/* Cleared where the verifier refuses bpf_timer (PREEMPT_RT up to some 6.x). */
const volatile bool timers_allowed = true;
__u64 timer_period_ns = 2000000;
__u32 timer_armed;
int timer_err;			/* the first error arming it, if any */

/* Fires every timer_period_ns while walking is enabled. */
static int timer_fired(void *map, int *key, struct timer_elem *elem)
{
	walk_everything(CTX_TIMER);
	if (enabled)
		bpf_timer_start(&elem->timer, timer_period_ns, 0);
	return 0;
}

/*
 * Tracing programs may not use bpf_timer, and a sleepable program's
 * callbacks would need bpf_rcu_read_lock(): TC arms it, so its callback
 * runs as a plain softirq reader.
 */
static __noinline void arm_timer(void)
{
	struct timer_elem *elem;
	int key = 0, err;

	timer_armed = 1;
	elem = bpf_map_lookup_elem(&timers, &key);
	if (!elem)
		return;
	err = bpf_timer_init(&elem->timer, &timers, 1 /* CLOCK_MONOTONIC */);
	if (err == -16)		/* -EBUSY: the other CPU armed it at the same time */
		return;
	if (!err)
		err = bpf_timer_set_callback(&elem->timer, timer_fired);
	if (!err)
		err = bpf_timer_start(&elem->timer, timer_period_ns, 0);
	if (err)
		timer_err = err;
}

SEC("tcx/egress")
int tc_egress(struct __sk_buff *skb)
{
	if (timers_allowed && enabled && !timer_armed)
		arm_timer();	/* once */
	walk_everything(CTX_TC_EGRESS);
	return 0;	/* TC_ACT_OK */
}

char LICENSE[] SEC("license") = "GPL";
