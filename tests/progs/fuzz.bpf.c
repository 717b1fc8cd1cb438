// SPDX-License-Identifier: GPL-2.0
/*
 * The kfunc fuzzer's BPF side: for each case user space put in cases[],
 * call the constructor with its arguments, walk (to the end, or abandon the
 * walk after `take` elements), call next() `after` more times once it
 * returned NULL, destroy, and check everything against what the case says
 * the contract demands. The same body runs as a sleepable SEC("syscall")
 * program and as a SEC("raw_tp") program (which user space also runs on the
 * other CPU, in the IPI that BPF_F_TEST_RUN_ON_CPU sends: hard IRQ context).
 *
 * Everything a walk carries from one element to the next lives in global
 * variables, not registers, so the verifier's iterator loops converge.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iterkit.bpf.h"
#include "fuzz.h"

#define MAX_AFTER 8

struct fuzz_case cases[FUZZ_MAX_CASES];
__u32 nr_cases;
struct fuzz_stats stats;
__u32 last_cpu;			/* the CPU the last run ran on */

/* The walk in progress. */
__s64 cur_n;			/* elements yielded */
__s64 cur_val;			/* kit_num: the next value expected */
__u64 cur_last_id;		/* cgroup: last element's id */
__s64 cur_last_level;		/* cgroup: last element's level */
__u64 cur_shape_bad;		/* elements that broke the walk's shape */

static __noinline void bad(__u32 i, __u32 what, __s64 got, __s64 n)
{
	__u64 k = stats.nr_bad;

	if (k < FUZZ_MAX_BAD) {
		stats.bad[k].index = i;
		stats.bad[k].what = what;
		stats.bad[k].got = got;
		stats.bad[k].n = n;
	}
	stats.nr_bad = k + 1;
}

/* The checks every kind shares, once the walk has ended or been abandoned. */
static __noinline void check_result(__u32 i, struct fuzz_case *c, int ret, int ended)
{
	__u32 kind = c->kind;

	if (kind >= FUZZ_KINDS)
		return;
	stats.calls[kind]++;
	if (ret)
		stats.errors[kind]++;
	stats.elements[kind] += cur_n;
	if (ret != c->want && ret != c->want_alt)
		bad(i, FUZZ_BAD_RET, ret, cur_n);
	if (ret && cur_n)
		bad(i, FUZZ_BAD_NOT_EMPTY, ret, cur_n);
	if (!ended) {
		stats.abandoned++;
		if (cur_n > c->take)
			bad(i, FUZZ_BAD_ABANDON, ret, cur_n);
	} else if (!ret && (cur_n < c->min_n || cur_n > c->max_n)) {
		bad(i, FUZZ_BAD_COUNT, cur_n, cur_n);
	}
	if (cur_shape_bad)
		bad(i, FUZZ_BAD_SHAPE, cur_shape_bad, cur_n);
}

static __noinline void fuzz_num(__u32 i, struct fuzz_case *c)
{
	struct bpf_iter_kit_num it;
	int ret, ended = 0, k;
	int *v;

	cur_n = 0;
	cur_val = c->a;
	cur_shape_bad = 0;
	ret = bpf_iter_kit_num_new(&it, (int)c->a, (int)c->b);
	while (!c->take || cur_n < c->take) {
		v = bpf_iter_kit_num_next(&it);
		if (!v) {
			ended = 1;
			break;
		}
		if (*v != (int)cur_val)
			bad(i, FUZZ_BAD_VALUE, *v, cur_n);
		cur_val++;
		cur_n++;
	}
	for (k = 0; ended && k < MAX_AFTER && k < c->after; k++) {
		stats.after_end++;
		if (bpf_iter_kit_num_next(&it))
			bad(i, FUZZ_BAD_AFTER_END, ret, cur_n);
	}
	bpf_iter_kit_num_destroy(&it);
	check_result(i, c, ret, ended);
}

static __noinline void fuzz_seq(__u32 i, struct fuzz_case *c)
{
	struct bpf_iter_testmod_seq it;
	int ret, ended = 0, k;
	__s64 *v;

	cur_n = 0;
	cur_shape_bad = 0;
	ret = bpf_iter_testmod_seq_new(&it, c->a, (int)c->b);
	while (!c->take || cur_n < c->take) {
		v = bpf_iter_testmod_seq_next(&it);
		if (!v) {
			ended = 1;
			break;
		}
		if (*v != c->a)
			bad(i, FUZZ_BAD_VALUE, *v, cur_n);
		cur_n++;
	}
	for (k = 0; ended && k < MAX_AFTER && k < c->after; k++) {
		stats.after_end++;
		if (bpf_iter_testmod_seq_next(&it))
			bad(i, FUZZ_BAD_AFTER_END, ret, cur_n);
	}
	bpf_iter_testmod_seq_destroy(&it);
	check_result(i, c, ret, ended);
}

static __noinline void fuzz_task(__u32 i, struct fuzz_case *c)
{
	struct bpf_iter_kit_task it;
	struct task_struct *t;
	int ret, ended = 0, k;

	cur_n = 0;
	cur_shape_bad = 0;
	bpf_rcu_read_lock();
	ret = bpf_iter_kit_task_new(&it, (int)c->a, c->flags);
	while (!c->take || cur_n < c->take) {
		t = bpf_iter_kit_task_next(&it);
		if (!t) {
			ended = 1;
			break;
		}
		/* ALL_*: the idle task first; PROC_THREADS: that process only. */
		if (c->flags == KIT_TASK_PROC_THREADS) {
			if (t->tgid != (int)c->a || (!cur_n && t->pid != (int)c->a))
				cur_shape_bad++;
		} else if (!cur_n && t->pid) {
			cur_shape_bad++;
		} else if (c->flags == KIT_TASK_ALL_PROCS && t->pid != t->tgid) {
			cur_shape_bad++;
		}
		cur_n++;
	}
	for (k = 0; ended && k < MAX_AFTER && k < c->after; k++) {
		stats.after_end++;
		if (bpf_iter_kit_task_next(&it))
			bad(i, FUZZ_BAD_AFTER_END, ret, cur_n);
	}
	bpf_iter_kit_task_destroy(&it);
	bpf_rcu_read_unlock();
	check_result(i, c, ret, ended);
}

/*
 * The walk and its checks, for kit_cgroup and kit_cgroup_at alike: @next is
 * the iterator's next(), @it the iterator, after new() returned ret.
 */
#define FUZZ_CGROUP_WALK(next, it)						\
	do {									\
		while (!c->take || cur_n < c->take) {				\
			cg = next(it);						\
			if (!cg) {						\
				ended = 1;					\
				break;						\
			}							\
			id = BPF_CORE_READ(cg, kn, id);				\
			level = BPF_CORE_READ(cg, level);			\
			/* SELF, PRE, UP start with the start; POST ends with it. */ \
			if (!cur_n && order != KIT_CGROUP_DESCENDANTS_POST &&	\
			    order != KIT_CGROUP_CHILDREN && id != c->start_id)	\
				cur_shape_bad++;				\
			/* UP climbs one level at a time. */			\
			if (cur_n && order == KIT_CGROUP_ANCESTORS_UP &&	\
			    level != cur_last_level - 1)			\
				cur_shape_bad++;				\
			/* CHILDREN are children of the start. */		\
			if (order == KIT_CGROUP_CHILDREN &&			\
			    BPF_CORE_READ(cg, self.parent, cgroup, kn, id) != c->start_id) \
				cur_shape_bad++;				\
			cur_last_id = id;					\
			cur_last_level = level;					\
			cur_n++;						\
		}								\
		if (ended && !ret && cur_n) {					\
			if (order == KIT_CGROUP_DESCENDANTS_POST && cur_last_id != c->start_id) \
				cur_shape_bad++;				\
			if (order == KIT_CGROUP_ANCESTORS_UP && cur_last_level != 0) \
				cur_shape_bad++;				\
		}								\
		for (k = 0; ended && k < MAX_AFTER && k < c->after; k++) {	\
			stats.after_end++;					\
			if (next(it))						\
				bad(i, FUZZ_BAD_AFTER_END, ret, cur_n);		\
		}								\
	} while (0)

static __noinline void fuzz_cgroup(__u32 i, struct fuzz_case *c)
{
	struct bpf_iter_kit_cgroup it;
	__u32 order = c->flags ?: KIT_CGROUP_DESCENDANTS_PRE;
	struct cgroup *cg;
	int ret, ended = 0, k;
	__u64 id;
	__s64 level;

	cur_n = 0;
	cur_shape_bad = 0;
	cur_last_id = 0;
	cur_last_level = -1;
	bpf_rcu_read_lock();
	ret = bpf_iter_kit_cgroup_new(&it, c->a, c->flags);
	FUZZ_CGROUP_WALK(bpf_iter_kit_cgroup_next, &it);
	bpf_iter_kit_cgroup_destroy(&it);
	bpf_rcu_read_unlock();
	check_result(i, c, ret, ended);
}

/*
 * kit_cgroup_at from the pointer a kit_cgroup SELF_ONLY walk of the case's
 * id yields; where that id names no cgroup, the case is a kit_cgroup case.
 */
static __noinline void fuzz_cgroup_at(__u32 i, struct fuzz_case *c)
{
	struct bpf_iter_kit_cgroup_at it;
	struct bpf_iter_kit_cgroup src;
	__u32 order = c->flags ?: KIT_CGROUP_DESCENDANTS_PRE;
	struct cgroup *cg, *start;
	int ret, ended = 0, k;
	__u64 id;
	__s64 level;

	cur_n = 0;
	cur_shape_bad = 0;
	cur_last_id = 0;
	cur_last_level = -1;
	bpf_rcu_read_lock();
	bpf_iter_kit_cgroup_new(&src, c->a, KIT_CGROUP_SELF_ONLY);
	start = bpf_iter_kit_cgroup_next(&src);
	bpf_iter_kit_cgroup_destroy(&src);
	if (!start) {
		bpf_rcu_read_unlock();
		c->kind = FUZZ_CGROUP;
		fuzz_cgroup(i, c);
		return;
	}
	ret = bpf_iter_kit_cgroup_at_new(&it, start, c->flags);
	FUZZ_CGROUP_WALK(bpf_iter_kit_cgroup_at_next, &it);
	bpf_iter_kit_cgroup_at_destroy(&it);
	bpf_rcu_read_unlock();
	check_result(i, c, ret, ended);
}

static __always_inline int fuzz_all(void)
{
	struct fuzz_case c;
	__u32 i, n = nr_cases;

	last_cpu = bpf_get_smp_processor_id();
	bpf_for(i, 0, n) {
		if (i >= FUZZ_MAX_CASES)
			break;
		__builtin_memcpy(&c, &cases[i], sizeof(c));
		switch (c.kind) {
		case FUZZ_NUM:
			fuzz_num(i, &c);
			break;
		case FUZZ_SEQ:
			fuzz_seq(i, &c);
			break;
		case FUZZ_TASK:
			fuzz_task(i, &c);
			break;
		case FUZZ_CGROUP:
			fuzz_cgroup(i, &c);
			break;
		case FUZZ_CGROUP_AT:
			fuzz_cgroup_at(i, &c);
			break;
		}
	}
	return 0;
}

SEC("syscall")
int fuzz_syscall(void *ctx)
{
	return fuzz_all();
}

SEC("raw_tp")
int fuzz_raw_tp(void *ctx)
{
	return fuzz_all();
}

char LICENSE[] SEC("license") = "GPL";
