// SPDX-License-Identifier: GPL-2.0
/*
 * kit_cgroup end to end: one walk of the cgroup v2 hierarchy inside one RCU
 * read-side section, one record per cgroup in a memory-mapped array that
 * the loader sized before loading.
 *
 * The walk yields dying cgroups too (removed, still held: page cache
 * charged to them), as bpf_iter_css does; each record says whether its
 * cgroup is online. Unless the host view is asked for, the caller's
 * cgroup namespace bounds what is shown: its root is where the walk starts
 * by default, and a start outside it does not exist.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iterkit.bpf.h"
#include "shared.h"
#include "kit_cgroup.h"

/* The kernel's own css_task iterator (6.7+, like the walkers), to count member processes. */
extern int bpf_iter_css_task_new(struct bpf_iter_css_task *it,
				 struct cgroup_subsys_state *css, unsigned int flags) __ksym;
extern struct task_struct *bpf_iter_css_task_next(struct bpf_iter_css_task *it) __ksym;
extern void bpf_iter_css_task_destroy(struct bpf_iter_css_task *it) __ksym;

extern struct cgroup *bpf_cgroup_acquire(struct cgroup *cgrp) __ksym;
extern void bpf_cgroup_release(struct cgroup *cgrp) __ksym;

#define CSS_TASK_ITER_PROCS 1
/* include/linux/cgroup-defs.h: a cgroup's own css loses it at rmdir (cgroup_destroy_locked()). */
#define CSS_ONLINE (1 << 1)
#define ENOENT 2

/*
 * How many css_sets with tasks a cgroup has: struct cgroup's own field until
 * 7.x moved it into the css (cgroup->self). CO-RE flavours of both, so that
 * either compiles against any vmlinux.h; the load keeps the one that exists.
 */
struct cgroup___v6 {
	int nr_populated_csets;
} __attribute__((preserve_access_index));

struct cgroup_subsys_state___v7 {
	int nr_populated_csets;
} __attribute__((preserve_access_index));

/* The number of populated css_sets of cg (a read-only cast), -1 if unknown. */
static int populated_csets(struct cgroup *cg)
{
	struct cgroup___v6 *v6 = (void *)cg;
	struct cgroup_subsys_state___v7 *v7 = (void *)&cg->self;

	if (bpf_core_field_exists(v6->nr_populated_csets))
		return v6->nr_populated_csets;
	if (bpf_core_field_exists(v7->nr_populated_csets))
		return v7->nr_populated_csets;
	return -1;
}

__u64 root_id;			/* in: start cgroup id, 0 for the root (of the namespace) */
__u32 order;			/* in: KIT_CGROUP_* order */
__u32 host;			/* in: 1 to ignore the caller's cgroup namespace */
__u32 up_only;			/* in: 1 for the start's ancestors alone (no walk) */
int ret;			/* out: bpf_iter_kit_cgroup_new()'s result */
__u64 ns_root;			/* out: the id of the caller's cgroup namespace root */
__u32 ns_level;			/* out: its level */
__u64 count;			/* out: cgroups the walk yielded (records beyond the array are not kept) */
__u32 nr_ancestors;		/* out: the start and its ancestors kept, nearest first */
__u32 nr_levels;		/* out: the start and its ancestors up to the root, kept or not */
__u64 nprocs;			/* scratch: processes of the current cgroup */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct kit_cgroup_rec);
	__uint(max_entries, 1);		/* the loader sizes it before loading */
} records SEC(".maps");

/* The start's ancestor chain, so the loader can name paths above the start. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct kit_cgroup_rec);
	__uint(max_entries, KIT_CGROUP_MAX_ANCESTORS);
} ancestors SEC(".maps");

static void fill(struct kit_cgroup_rec *r, struct cgroup *cg, bool with_procs)
{
	/* Read-only cast: pointer fields become plain loads (see kit_task.bpf.c). */
	struct cgroup *u = bpf_core_cast(cg, struct cgroup);
	struct cgroup_subsys_state *parent = u->self.parent;

	r->id = u->kn->id;
	r->parent_id = parent ? parent->cgroup->kn->id : 0;
	r->level = u->level;
	r->online = !!(u->self.flags & CSS_ONLINE);
	r->nr_procs = -1;
	if (bpf_probe_read_kernel_str(r->name, sizeof(r->name), u->kn->name) < 0)
		r->name[0] = 0;
	if (!with_procs)
		return;
	/* No populated css_set, no member: most cgroups, and no iteration needed. */
	if (!populated_csets(u)) {
		r->nr_procs = 0;
		return;
	}
	{
		/* css_task wants a trusted css: a walked cgroup is only RCU-protected. */
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
}

SEC("syscall")
int kit_cgroup_walk(void *ctx)
{
	struct cgroup *cg;

	struct task_struct *me = bpf_core_cast((void *)bpf_get_current_task(), struct task_struct);
	struct cgroup *nsroot = me->nsproxy->cgroup_ns->root_cset->dfl_cgrp;
	__u64 start = root_id;
	bool visible = host;

	/* Outputs start from zero on every run: a resident program is run many times. */
	count = 0;
	nr_ancestors = 0;
	nr_levels = 0;
	ns_root = host ? 0 : nsroot->kn->id;
	ns_level = host ? 0 : nsroot->level;
	if (!start)
		start = ns_root;
	bpf_rcu_read_lock();
	/*
	 * The start and its ancestors up to the namespace's root: the nearest
	 * ones kept (paths are built from them; the loader asks again from the
	 * last one kept for a deeper start), every level counted, and whether
	 * the namespace's root is among them decided at any depth.
	 */
	bpf_for_each(kit_cgroup, cg, start, KIT_CGROUP_ANCESTORS_UP) {
		__u32 slot = nr_levels;
		struct kit_cgroup_rec *r;

		if (cg->level < ns_level)
			break;
		nr_levels = slot + 1;
		if (!ns_root || bpf_core_cast(cg, struct cgroup)->kn->id == ns_root)
			visible = true;
		r = bpf_map_lookup_elem(&ancestors, &slot);
		if (!r)
			continue;
		nr_ancestors = slot + 1;
		fill(r, cg, false);
	}
	if (!visible || up_only) {
		/* A start outside the caller's namespace does not exist there. */
		ret = visible ? 0 : -ENOENT;
		bpf_rcu_read_unlock();
		return 0;
	}

	{
		struct bpf_iter_kit_cgroup it;

		ret = bpf_iter_kit_cgroup_new(&it, start, order);
		while ((cg = bpf_iter_kit_cgroup_next(&it))) {
			__u32 slot = count;
			struct kit_cgroup_rec *r;

			if (cg->level < ns_level)
				continue;	/* an ancestor above the namespace's root */
			count = slot + 1;
			r = bpf_map_lookup_elem(&records, &slot);
			if (r)
				fill(r, cg, true);
		}
		bpf_iter_kit_cgroup_destroy(&it);
	}
	bpf_rcu_read_unlock();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
