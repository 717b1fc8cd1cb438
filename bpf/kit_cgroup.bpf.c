// SPDX-License-Identifier: GPL-2.0
/*
 * kit_cgroup end to end: one walk of the cgroup v2 hierarchy inside one RCU
 * read-side section, one ring buffer record per cgroup.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iterkit.bpf.h"
#include "shared.h"
#include "kit_cgroup.h"

/* The kernel's own css_task iterator, to count member processes. */
extern int bpf_iter_css_task_new(struct bpf_iter_css_task *it,
				 struct cgroup_subsys_state *css, unsigned int flags) __ksym __weak;
extern struct task_struct *bpf_iter_css_task_next(struct bpf_iter_css_task *it) __ksym __weak;
extern void bpf_iter_css_task_destroy(struct bpf_iter_css_task *it) __ksym __weak;

extern struct cgroup *bpf_cgroup_acquire(struct cgroup *cgrp) __ksym __weak;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym __weak;

#define CSS_TASK_ITER_PROCS 1

__u64 root_id;			/* in: start cgroup id, 0 for the root */
__u32 order;			/* in: KIT_CGROUP_* order */
int ret;			/* out: bpf_iter_kit_cgroup_new()'s result */
__u64 count;			/* out: cgroups the walk yielded */
__u64 dropped;			/* out: records the ring buffer had no room for */
__u64 nprocs;			/* scratch: processes of the current cgroup */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} records SEC(".maps");

static void emit(struct cgroup *cg, __u32 kind, bool with_procs)
{
	struct kit_cgroup_rec *r;
	struct cgroup *parent;

	r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
	if (!r) {
		dropped++;
		return;
	}
	r->id = BPF_CORE_READ(cg, kn, id);
	parent = BPF_CORE_READ(cg, self.parent, cgroup);
	r->parent_id = parent ? BPF_CORE_READ(parent, kn, id) : 0;
	r->level = BPF_CORE_READ(cg, level);
	r->kind = kind;
	r->pad = 0;
	r->nr_procs = -1;
	if (bpf_probe_read_kernel_str(r->name, sizeof(r->name), BPF_CORE_READ(cg, kn, name)) < 0)
		r->name[0] = 0;
	/* css_task wants a trusted css: a walked cgroup is only RCU-protected. */
	if (with_procs && bpf_ksym_exists(bpf_iter_css_task_new) &&
	    bpf_ksym_exists(bpf_cgroup_acquire)) {
		struct cgroup *held = bpf_cgroup_acquire(cg);
		struct task_struct *t;

		if (held) {
			nprocs = 0;
			bpf_for_each(css_task, t, &held->self, CSS_TASK_ITER_PROCS)
				nprocs++;
			r->nr_procs = nprocs;
			bpf_cgroup_release(held);
		}
	}
	bpf_ringbuf_submit(r, 0);
}

SEC("syscall")
int kit_cgroup_walk(void *ctx)
{
	struct cgroup *cg;

	if (!bpf_ksym_exists(bpf_iter_kit_cgroup_new))
		return KIT_ERR_NO_KFUNC;

	bpf_rcu_read_lock();
	bpf_for_each(kit_cgroup, cg, root_id, KIT_CGROUP_ANCESTORS_UP)
		emit(cg, KIT_CGROUP_REC_ANCESTOR, false);

	{
		struct bpf_iter_kit_cgroup it;

		ret = bpf_iter_kit_cgroup_new(&it, root_id, order);
		while ((cg = bpf_iter_kit_cgroup_next(&it))) {
			count++;
			emit(cg, KIT_CGROUP_REC_WALK, true);
		}
		bpf_iter_kit_cgroup_destroy(&it);
	}
	bpf_rcu_read_unlock();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
