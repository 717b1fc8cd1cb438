// SPDX-License-Identifier: GPL-2.0
/*
 * kit_cgroup under test: walks compared with the kernel's bpf_iter_css in
 * the same RCU section, error paths counted in the kernel, and a walk that
 * keeps its start cgroup while someone removes it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "iterkit.bpf.h"

#define MAX_IDS 1024

extern int bpf_iter_css_new(struct bpf_iter_css *it, struct cgroup_subsys_state *start,
			    unsigned int flags) __ksym __weak;
extern struct cgroup_subsys_state *bpf_iter_css_next(struct bpf_iter_css *it) __ksym __weak;
extern void bpf_iter_css_destroy(struct bpf_iter_css *it) __ksym __weak;
extern struct cgroup *bpf_cgroup_from_id(u64 cgid) __ksym __weak;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym __weak;

__u64 kit_start;		/* in: id for kit_cgroup (0 = root) */
__u64 css_start;		/* in: the same cgroup's real id, for bpf_iter_css */
__u32 order;			/* in */
__u32 spins;			/* in: hold: how long to keep the walk open */

int kit_ret, css_ret;		/* out: the two new() results */
__u64 kit_n, css_n;		/* out: elements yielded */
__u64 kit_ids[MAX_IDS], css_ids[MAX_IDS];
__u32 kit_flags[MAX_IDS];	/* out: errors/errors_irq: each cgroup's self css flags */
__u64 after_drain;		/* out: non-NULL next() results after the first NULL */
__u32 held_level;		/* out: hold: start's level read at the end */
__u64 held_id;			/* out: hold: start's id read at the end */
__u32 hold_open;		/* out: hold: its walk is open (a remover waits for it) */

static void note(__u64 *ids, __u64 *n, __u64 id)
{
	__u64 i = *n;

	if (i < MAX_IDS)
		ids[i] = id;
	*n = i + 1;
}

SEC("syscall")
int diff(void *ctx)
{
	struct cgroup_subsys_state *css;
	struct bpf_iter_kit_cgroup kit;
	struct cgroup *cg, *start;

	bpf_rcu_read_lock();
	kit_ret = bpf_iter_kit_cgroup_new(&kit, kit_start, order);
	while ((cg = bpf_iter_kit_cgroup_next(&kit)))
		note(kit_ids, &kit_n, BPF_CORE_READ(cg, kn, id));
	bpf_iter_kit_cgroup_destroy(&kit);

	start = bpf_cgroup_from_id(css_start);
	if (start) {
		struct bpf_iter_css it;

		css_ret = bpf_iter_css_new(&it, &start->self, order);
		while ((css = bpf_iter_css_next(&it)))
			note(css_ids, &css_n, BPF_CORE_READ(css, cgroup, kn, id));
		bpf_iter_css_destroy(&it);
		bpf_cgroup_release(start);
	} else {
		css_ret = -2;
	}
	bpf_rcu_read_unlock();
	return 0;
}

/*
 * kit_cgroup_at from the cgroup bpf_cgroup_from_id(css_start) returns,
 * against kit_cgroup from kit_start: kit_ids/kit_ret from kit_cgroup,
 * css_ids/css_ret from kit_cgroup_at.
 */
SEC("syscall")
int diff_at(void *ctx)
{
	struct bpf_iter_kit_cgroup_at at;
	struct bpf_iter_kit_cgroup kit;
	struct cgroup *cg, *start;

	bpf_rcu_read_lock();
	kit_ret = bpf_iter_kit_cgroup_new(&kit, kit_start, order);
	while ((cg = bpf_iter_kit_cgroup_next(&kit)))
		note(kit_ids, &kit_n, BPF_CORE_READ(cg, kn, id));
	bpf_iter_kit_cgroup_destroy(&kit);

	start = bpf_cgroup_from_id(css_start);
	if (start) {
		css_ret = bpf_iter_kit_cgroup_at_new(&at, start, order);
		while ((cg = bpf_iter_kit_cgroup_at_next(&at)))
			note(css_ids, &css_n, BPF_CORE_READ(cg, kn, id));
		if (bpf_iter_kit_cgroup_at_next(&at))
			after_drain++;
		bpf_iter_kit_cgroup_at_destroy(&at);
		bpf_cgroup_release(start);
	} else {
		css_ret = -2;
	}
	bpf_rcu_read_unlock();
	return 0;
}

/*
 * Run in the caller's context, not preemptible: kit_cgroup_at from the
 * caller's own cgroup pointer (css_ids) and kit_cgroup from its id
 * (kit_ids), in the given order.
 */
SEC("raw_tp")
int own_at(void *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct bpf_iter_kit_cgroup_at at;
	struct bpf_iter_kit_cgroup kit;
	struct cgroup *cg, *own;

	kit_ret = bpf_iter_kit_cgroup_new(&kit, bpf_get_current_cgroup_id(), order);
	while ((cg = bpf_iter_kit_cgroup_next(&kit)))
		note(kit_ids, &kit_n, BPF_CORE_READ(cg, kn, id));
	bpf_iter_kit_cgroup_destroy(&kit);

	own = task->cgroups->dfl_cgrp;
	if (!own)
		return 1;
	css_ret = bpf_iter_kit_cgroup_at_new(&at, own, order);
	while ((cg = bpf_iter_kit_cgroup_at_next(&at)))
		note(css_ids, &css_n, BPF_CORE_READ(cg, kn, id));
	bpf_iter_kit_cgroup_at_destroy(&at);
	return 0;
}

__u32 ran_cpu;			/* out: errors/errors_irq: where it ran */

/* new() with the given arguments, then everything next() still yields. */
static __always_inline int errors_body(void)
{
	struct bpf_iter_kit_cgroup it;
	struct cgroup *cg;

	ran_cpu = bpf_get_smp_processor_id();
	bpf_rcu_read_lock();
	kit_ret = bpf_iter_kit_cgroup_new(&it, kit_start, order);
	while ((cg = bpf_iter_kit_cgroup_next(&it))) {
		__u64 n = kit_n;

		if (n < MAX_IDS)
			kit_flags[n] = cg->self.flags;
		note(kit_ids, &kit_n, BPF_CORE_READ(cg, kn, id));
	}
	/* Drained is final: more calls must keep returning NULL. */
	if (bpf_iter_kit_cgroup_next(&it))
		after_drain++;
	if (bpf_iter_kit_cgroup_next(&it))
		after_drain++;
	bpf_iter_kit_cgroup_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

/* Preemptible: new() looks the id up with cgroup_get_from_id(). */
SEC("syscall")
int errors(void *ctx)
{
	return errors_body();
}

/*
 * Not preemptible: in an IPI on another CPU (hard IRQ), or in the caller's
 * context (a raw_tp test run disables preemption): new() finds the id
 * without the kernel's id table.
 */
SEC("raw_tp")
int errors_irq(void *ctx)
{
	return errors_body();
}

/*
 * Opens a walk on kit_start and keeps it open for a while (another thread
 * removes that cgroup meanwhile), then reads the start cgroup again.
 */
SEC("syscall")
int hold(void *ctx)
{
	struct bpf_iter_kit_cgroup it;
	struct cgroup *cg;

	bpf_rcu_read_lock();
	kit_ret = bpf_iter_kit_cgroup_new(&it, kit_start, KIT_CGROUP_SELF_ONLY);
	cg = bpf_iter_kit_cgroup_next(&it);
	if (cg) {
		*(volatile __u32 *)&hold_open = 1;
		kit_repeat(spins)
			kit_n++;
		held_level = BPF_CORE_READ(cg, level);
		held_id = BPF_CORE_READ(cg, kn, id);
	}
	bpf_iter_kit_cgroup_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

/* Calls of the kernel's id-table lookup made by the process counted_tgid. */
__u32 counted_tgid;		/* in */
__u64 id_table_calls;		/* out */

SEC("fentry/cgroup_get_from_id")
int BPF_PROG(count_id_table, u64 id)
{
	if (bpf_get_current_pid_tgid() >> 32 == counted_tgid)
		__sync_fetch_and_add(&id_table_calls, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
