// SPDX-License-Identifier: GPL-2.0
/*
 * kit_cgroup: walks the cgroup v2 hierarchy from the cgroup with a given
 * id; kit_cgroup_at: the same walks from a struct cgroup pointer.
 *
 * Orders (enum bpf_cgroup_iter_order values, plus CHILDREN):
 *   SELF_ONLY (1)         the start cgroup alone
 *   DESCENDANTS_PRE (2)   start, then its subtree, parents before children
 *   DESCENDANTS_POST (3)  start's subtree, children before parents, start last
 *   ANCESTORS_UP (4)      start, its parent, ..., the root
 *   CHILDREN (5)          the direct children of start, start excluded
 * 0 behaves as DESCENDANTS_PRE. PRE, POST and ANCESTORS_UP yield what the
 * kernel's bpf_iter_css yields from the same start.
 *
 * The kfuncs are KF_RCU_PROTECTED, so the verifier keeps the whole walk
 * (new() to destroy()) inside one RCU read-side section. That section keeps
 * every cgroup the walk reaches from being freed, the start included, so
 * no reference is held: a removed cgroup is freed only after an RCU grace
 * period. Nothing here sleeps, and outside preemptible context nothing
 * takes a lock or drops a reference either, so the kfuncs are safe in
 * every program type: interrupts, NMIs, and programs attached to code that
 * holds cgroup, kernfs or workqueue locks.
 */
#include <linux/bpf.h>
#include <linux/build_bug.h>
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/nsproxy.h>
#include <linux/preempt.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include "iterkit_compat.h"
#include "iterkit_defs.h"
#include "iterkit_main.h"

/* Kernels without KF_RCU_PROTECTED get no walkers (scripts/build-module.sh). */
#ifdef ITERKIT_WALKERS

/*
 * KIT_CGROUP_MAX_STEPS (iterkit_defs.h) is the most next() calls that can
 * return a cgroup in one walk. Cgroups created during a walk are appended to
 * their parent's children, so a walk racing with fast creation could
 * otherwise chase new siblings for ever; the cap still bounds one RCU
 * read-side section.
 *
 * The orders are enum bpf_cgroup_iter_order's, so that a program can pass
 * either; CHILDREN comes after them.
 */
static_assert(KIT_CGROUP_UNSPEC == BPF_CGROUP_ITER_ORDER_UNSPEC);
static_assert(KIT_CGROUP_SELF_ONLY == BPF_CGROUP_ITER_SELF_ONLY);
static_assert(KIT_CGROUP_DESCENDANTS_PRE == BPF_CGROUP_ITER_DESCENDANTS_PRE);
static_assert(KIT_CGROUP_DESCENDANTS_POST == BPF_CGROUP_ITER_DESCENDANTS_POST);
static_assert(KIT_CGROUP_ANCESTORS_UP == BPF_CGROUP_ITER_ANCESTORS_UP);
static_assert(KIT_CGROUP_CHILDREN > KIT_CGROUP_ANCESTORS_UP);

/* What BPF programs see: opaque bytes on their stack, for either iterator. */
struct bpf_iter_kit_cgroup {
	__u64 __opaque[KIT_CGROUP_ITER_WORDS];
} __aligned(8);

struct bpf_iter_kit_cgroup_at {
	__u64 __opaque[KIT_CGROUP_ITER_WORDS];
} __aligned(8);

struct kit_cgroup_state {
	struct cgroup_subsys_state *start;	/* NULL: empty iterator */
	struct cgroup_subsys_state *pos;	/* last one handed out, or NULL */
	u8 order;				/* 0: drained, capped or empty */
	u8 capped;				/* stopped at the cap, cgroups left */
	u32 steps_left;				/* cgroups next() may still yield */
};

/*
 * The walk steps below are inlined into next(): one call per element, as
 * the kernel's own iterator makes. Out-of-line, a post-order step cost two
 * more calls and returns per element (measured in docs/performance.md).
 */

/*
 * The child of @parent after @pos (the first one when @pos is NULL), or
 * NULL. Children are kept in ascending serial_nr order and new ones are
 * appended. A removed cgroup's sibling link stops being updated once it is
 * released, so from a released @pos look for the first child with a higher
 * serial number instead of following the stale link.
 */
static __always_inline struct cgroup_subsys_state *
kit_cgroup_next_child(struct cgroup_subsys_state *pos,
		      struct cgroup_subsys_state *parent)
{
	struct cgroup_subsys_state *child;

	if (!pos) {
		child = list_entry_rcu(parent->children.next,
				       struct cgroup_subsys_state, sibling);
	} else if (!(READ_ONCE(pos->flags) & CSS_RELEASED)) {
		child = list_entry_rcu(pos->sibling.next,
				       struct cgroup_subsys_state, sibling);
	} else {
		list_for_each_entry_rcu(child, &parent->children, sibling) {
			if (child->serial_nr > pos->serial_nr)
				break;
		}
	}
	return &child->sibling == &parent->children ? NULL : child;
}

/* The first cgroup of @css's subtree in post-order: its deepest first child. */
static __always_inline struct cgroup_subsys_state *
kit_cgroup_first_leaf(struct cgroup_subsys_state *css)
{
	struct cgroup_subsys_state *child;

	while ((child = kit_cgroup_next_child(NULL, css)))
		css = child;
	return css;
}

/*
 * Pre-order successor of @pos within @start's subtree (@start itself when
 * @pos is NULL): the first child, else the next sibling of the nearest
 * ancestor below @start that has one. The order css_next_descendant_pre()
 * yields.
 */
static __always_inline struct cgroup_subsys_state *
kit_cgroup_next_pre(struct cgroup_subsys_state *pos,
		    struct cgroup_subsys_state *start)
{
	struct cgroup_subsys_state *next;

	if (!pos)
		return start;
	next = kit_cgroup_next_child(NULL, pos);
	if (next)
		return next;
	for (; pos != start; pos = pos->parent) {
		next = kit_cgroup_next_child(pos, pos->parent);
		if (next)
			return next;
	}
	return NULL;
}

/*
 * Post-order successor of @pos within @start's subtree: the first leaf of
 * the next sibling's subtree, or the parent once all siblings are done.
 */
static __always_inline struct cgroup_subsys_state *
kit_cgroup_next_post(struct cgroup_subsys_state *pos,
		     struct cgroup_subsys_state *start)
{
	struct cgroup_subsys_state *sibling;

	if (!pos)
		return kit_cgroup_first_leaf(start);
	if (pos == start)
		return NULL;
	sibling = kit_cgroup_next_child(pos, pos->parent);
	if (sibling)
		return kit_cgroup_first_leaf(sibling);
	return pos->parent;
}

/* The root of the caller's cgroup namespace: where ids are looked up. */
static struct cgroup *kit_cgroup_ns_root(void)
{
	struct nsproxy *ns = READ_ONCE(current->nsproxy);

	/* An exiting task has none; like cgroup_get_from_id(), use the root. */
	return ns ? ns->cgroup_ns->root_cset->dfl_cgrp : &cgrp_dfl_root.cgrp;
}

static __always_inline bool kit_cgroup_online(struct cgroup *cgrp)
{
	return READ_ONCE(cgrp->self.flags) & CSS_ONLINE;
}

/*
 * @id among the caller's own cgroup and its ancestors up to @root, read
 * from the ancestors array: O(depth), no list walk. The common case of
 * programs that start from bpf_get_current_cgroup_id() in hot paths.
 */
static struct cgroup *kit_cgroup_find_up(struct cgroup *root, u64 id)
{
	struct cgroup *cgrp = task_dfl_cgroup(current);
	int level;

	if (!cgroup_is_descendant(cgrp, root))
		return NULL;
	for (level = cgrp->level; level >= root->level; level--) {
		if (cgroup_id(cgrp->ancestors[level]) == id)
			return cgrp->ancestors[level];
	}
	return NULL;
}

static __always_inline bool kit_cgroup_not_after(struct cgroup_subsys_state *css, u64 id)
{
	return css && cgroup_id(css->cgroup) <= id;
}

/*
 * Cgroups the lock-free lookup below may visit before it gives up with
 * -E2BIG. In hard interrupt and NMI context the budget is small: a step is
 * a few dependent loads (about 10-20 ns when cached), so 4096 steps bound
 * the lookup to tens of microseconds there; elsewhere it is the walk's own
 * bound.
 */
#define KIT_CGROUP_LOOKUP_STEPS KIT_CGROUP_MAX_STEPS

/*
 * @id at or below @root, found without a lock or a reference: a pre-order
 * walk that skips what cannot hold @id. Cgroup ids are kernfs node ids,
 * which only grow (the low 32 bits wrap into a generation count kept in the
 * high 32), and a new cgroup is appended to its parent's children. So a
 * cgroup's descendants all have higher ids than it, and so do its later
 * siblings: a child or sibling above @id ends that branch. The walk visits
 * the cgroups created before @id, at most @steps of them: NULL when @id is
 * not there, ERR_PTR(-E2BIG) when the budget ran out first (@id may exist).
 */
static struct cgroup *kit_cgroup_find_down(struct cgroup *root, u64 id, u32 steps)
{
	struct cgroup_subsys_state *pos = &root->self, *next;

	while (steps--) {
		if (cgroup_id(pos->cgroup) == id)
			return pos->cgroup;
		next = kit_cgroup_next_child(NULL, pos);
		while (!kit_cgroup_not_after(next, id)) {
			if (pos == &root->self)
				return NULL;
			next = kit_cgroup_next_child(pos, pos->parent);
			pos = pos->parent;
		}
		pos = next;
	}
	return ERR_PTR(-E2BIG);
}

/*
 * Whether the lookup may go through the kernel's id table. cgroup_get_from_id()
 * may take kernfs_idr_lock (older kernels look ids up under it) and may drop
 * the last reference to a kernfs node or cgroup being removed, which takes
 * that lock, calls call_rcu() or queues work: safe only where no spinlock is
 * held, interrupts are on and this is not an interrupt, which preemptible()
 * tells on most kernels. On PREEMPT_RT it does not: a spinlock_t there is a
 * sleeping lock that leaves the preempt count alone, so a program attached
 * inside kernfs_idr_lock's section would take that lock again. There the
 * lock-free walk serves every lookup.
 */
static bool kit_cgroup_may_lock(void)
{
	return !IS_ENABLED(CONFIG_PREEMPT_RT) && preemptible();
}

/*
 * Looks @id up in the caller's cgroup namespace: the online cgroup, NULL
 * when there is none (removed ones are not found), or ERR_PTR(-E2BIG) when
 * the lock-free walk gave up before finding it. The caller's own cgroup and
 * its ancestors are read directly. Any other id goes through the kernel's
 * id table where that is safe (kit_cgroup_may_lock()), else
 * kit_cgroup_find_down() walks the hierarchy.
 *
 * Either way the caller's RCU read-side section keeps the result alive,
 * so no reference is kept. The context is read before anything here could
 * change it.
 */
static struct cgroup *kit_cgroup_lookup(u64 id)
{
	bool may_lock = kit_cgroup_may_lock();
	u32 steps = in_hardirq() || in_nmi() ? KIT_CGROUP_LOOKUP_STEPS_IRQ :
					       KIT_CGROUP_LOOKUP_STEPS;
	struct cgroup *root, *cgrp;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "kit_cgroup lookup outside RCU");
	root = kit_cgroup_ns_root();
	cgrp = kit_cgroup_find_up(root, id);
	if (!cgrp && !may_lock)
		cgrp = kit_cgroup_find_down(root, id, steps);
	if (!cgrp && may_lock) {
		cgrp = cgroup_get_from_id(id);
		if (IS_ERR(cgrp))
			return NULL;
		cgroup_put(cgrp);
	}
	if (IS_ERR_OR_NULL(cgrp))
		return cgrp;
	/* Both paths agree on removed cgroups: what the walks mark dying is not found. */
	return kit_cgroup_online(cgrp) ? cgrp : NULL;
}

static void kit_cgroup_empty(struct kit_cgroup_state *s)
{
	s->start = NULL;
	s->pos = NULL;
	s->order = 0;
	s->capped = 0;
	s->steps_left = 0;
}

/* The order new() accepts (0 is DESCENDANTS_PRE), or 0 when it is unknown. */
static unsigned int kit_cgroup_order(unsigned int order)
{
	if (order == KIT_CGROUP_UNSPEC)
		return KIT_CGROUP_DESCENDANTS_PRE;
	return order <= KIT_CGROUP_CHILDREN ? order : 0;
}

static void kit_cgroup_start(struct kit_cgroup_state *s, struct cgroup *start,
			     unsigned int order)
{
	s->start = &start->self;
	s->order = order;
	s->steps_left = iterkit_walk_cap(KIT_CGROUP_MAX_STEPS);
}

/* One step of a walk; both iterators' next() inline it. */
static __always_inline struct cgroup *kit_cgroup_step(struct kit_cgroup_state *s)
{
	struct cgroup_subsys_state *next = NULL;

	if (!s->order)
		return NULL;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "kit_cgroup walk outside RCU");

	switch (s->order) {
	case KIT_CGROUP_SELF_ONLY:
		next = s->pos ? NULL : s->start;
		break;
	case KIT_CGROUP_DESCENDANTS_PRE:
		next = kit_cgroup_next_pre(s->pos, s->start);
		break;
	case KIT_CGROUP_DESCENDANTS_POST:
		next = kit_cgroup_next_post(s->pos, s->start);
		break;
	case KIT_CGROUP_ANCESTORS_UP:
		next = s->pos ? s->pos->parent : s->start;
		break;
	case KIT_CGROUP_CHILDREN:
		next = kit_cgroup_next_child(s->pos, s->start);
		break;
	}

	/*
	 * Once drained, stay drained: never restart from a NULL position.
	 * At the cap, the step above tells a truncated walk from one that
	 * ends here anyway.
	 */
	if (!next || !s->steps_left) {
		s->capped = !!next;
		s->order = 0;
		return NULL;
	}
	s->steps_left--;
	s->pos = next;
	return next->cgroup;
}

__bpf_kfunc_start_defs();

/*
 * Starts a walk from the cgroup v2 cgroup whose id is @cgroup_id (0: the
 * root). Returns -EINVAL for an unknown order, -ENOENT when no such cgroup
 * is visible from the current cgroup namespace, and -E2BIG when a lookup
 * that could not use the kernel's id table (see kit_cgroup_may_lock()) gave
 * up after its step budget: the cgroup may exist. Each leaves an empty
 * iterator. No iterator holds a reference.
 */
__bpf_kfunc int bpf_iter_kit_cgroup_new(struct bpf_iter_kit_cgroup *it,
					u64 cgroup_id, unsigned int order)
{
	struct kit_cgroup_state *s = (void *)it;
	struct cgroup *start;

	/* A 32-bit kernel's state is smaller than what programs reserve. */
	BUILD_BUG_ON(sizeof(struct kit_cgroup_state) > sizeof(struct bpf_iter_kit_cgroup));
	BUILD_BUG_ON(__alignof__(struct kit_cgroup_state) >
		     __alignof__(struct bpf_iter_kit_cgroup));

	kit_cgroup_empty(s);
	order = kit_cgroup_order(order);
	if (!order)
		return -EINVAL;

	start = cgroup_id ? kit_cgroup_lookup(cgroup_id) : &cgrp_dfl_root.cgrp;
	if (IS_ERR(start))
		return PTR_ERR(start);
	if (!start)
		return -ENOENT;
	kit_cgroup_start(s, start, order);
	return 0;
}

__bpf_kfunc struct cgroup *bpf_iter_kit_cgroup_next(struct bpf_iter_kit_cgroup *it)
{
	return kit_cgroup_step((struct kit_cgroup_state *)it);
}

__bpf_kfunc void bpf_iter_kit_cgroup_destroy(struct bpf_iter_kit_cgroup *it)
{
	kit_cgroup_empty((struct kit_cgroup_state *)it);
}

/*
 * kit_cgroup_at: the same walks from a cgroup the program already holds
 * (trusted, or RCU-protected such as current->cgroups->dfl_cgrp), with no
 * lookup at all. Like bpf_iter_css, it walks from removed cgroups too.
 * -EINVAL for an unknown order. The verifier refuses a program that may
 * pass NULL (KF_RCU), so the NULL check only guards against a verifier bug.
 */
__bpf_kfunc int bpf_iter_kit_cgroup_at_new(struct bpf_iter_kit_cgroup_at *it,
					   struct cgroup *start, unsigned int order)
{
	struct kit_cgroup_state *s = (void *)it;

	BUILD_BUG_ON(sizeof(struct kit_cgroup_state) > sizeof(struct bpf_iter_kit_cgroup_at));
	BUILD_BUG_ON(__alignof__(struct kit_cgroup_state) >
		     __alignof__(struct bpf_iter_kit_cgroup_at));

	kit_cgroup_empty(s);
	order = kit_cgroup_order(order);
	if (!order || !start)
		return -EINVAL;
	kit_cgroup_start(s, start, order);
	return 0;
}

__bpf_kfunc struct cgroup *bpf_iter_kit_cgroup_at_next(struct bpf_iter_kit_cgroup_at *it)
{
	return kit_cgroup_step((struct kit_cgroup_state *)it);
}

__bpf_kfunc void bpf_iter_kit_cgroup_at_destroy(struct bpf_iter_kit_cgroup_at *it)
{
	kit_cgroup_empty((struct kit_cgroup_state *)it);
}

#ifdef ITERKIT_ITER_ARGS
/*
 * 1 once next() has returned NULL because the walk reached its cap
 * (KIT_CGROUP_MAX_STEPS or max_steps) with cgroups left; 0 while it runs,
 * after a complete walk, and for an iterator whose new() failed.
 */
__bpf_kfunc int bpf_iter_kit_cgroup_capped(struct bpf_iter_kit_cgroup *it__iter)
{
	return ((struct kit_cgroup_state *)it__iter)->capped;
}

__bpf_kfunc int bpf_iter_kit_cgroup_at_capped(struct bpf_iter_kit_cgroup_at *it__iter)
{
	return ((struct kit_cgroup_state *)it__iter)->capped;
}
#endif

__bpf_kfunc_end_defs();

#endif /* ITERKIT_WALKERS */
