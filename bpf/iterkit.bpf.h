/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * iterkit.bpf.h - open-coded iterators from the iterkit module, for BPF programs.
 *
 * Include after vmlinux.h and <bpf/bpf_helpers.h>:
 *
 *	#include "vmlinux.h"
 *	#include <bpf/bpf_helpers.h>
 *	#include <iterkit/iterkit.bpf.h>
 *
 *	int *v;
 *	bpf_for_each(kit_num, v, 0, 10)
 *		sum += *v;
 *
 * The kfuncs live in the iterkit module's BTF, so they are declared here
 * (the kernel's vmlinux BTF does not describe them). They are __weak: a
 * program can test bpf_ksym_exists(bpf_iter_kit_task_new) and still load
 * when the module, or one of its iterators, is missing.
 *
 * Loaders that cannot link weak kfuncs (cilium/ebpf before 0.14 stops at
 * their STB_WEAK symbols; up to 0.22 it links them but spoils
 * bpf_ksym_exists() of a module's kfunc) take programs built with
 * -DITERKIT_STRONG_KFUNCS:
 * the kfuncs are then plain externs, a program that calls one the kernel
 * lacks is refused at load, and kit_ksym_exists(), which is
 * bpf_ksym_exists() otherwise, is true in any program that loaded.
 */
#ifndef __ITERKIT_BPF_H
#define __ITERKIT_BPF_H

/*
 * The iterators' flags, orders and caps (KIT_TASK_*, KIT_CGROUP_*, ...):
 * plain C, shared with the module, so that programs that load BPF programs
 * can include this header for them too.
 */
#include "iterkit_defs.h"

/* The rest is for BPF programs (clang -target bpf defines __bpf__). */
#ifdef __bpf__

#ifndef __ksym
#error "include <bpf/bpf_helpers.h> before iterkit.bpf.h"
#endif

#ifdef ITERKIT_STRONG_KFUNCS
#define __kit_kfunc __ksym
#define kit_ksym_exists(sym) 1
#else
#define __kit_kfunc __ksym __weak
#define kit_ksym_exists(sym) bpf_ksym_exists(sym)
#endif

/* Iterator state lives on the program's stack; only its size matters here. */
struct bpf_iter_kit_num {
	__u64 __opaque[KIT_NUM_ITER_WORDS];
} __attribute__((aligned(8)));

/* As bpf_testmod's programs declare it (KIT_TESTMOD_SEQ_ITER_WORDS words). */
struct bpf_iter_testmod_seq {
	__u64 :64;
	__u64 :64;
} __attribute__((aligned(8)));

struct bpf_iter_kit_task {
	__u64 __opaque[KIT_TASK_ITER_WORDS];
} __attribute__((aligned(8)));

struct bpf_iter_kit_cgroup {
	__u64 __opaque[KIT_CGROUP_ITER_WORDS];
} __attribute__((aligned(8)));

struct bpf_iter_kit_cgroup_at {
	__u64 __opaque[KIT_CGROUP_ITER_WORDS];
} __attribute__((aligned(8)));

/* kit_num: yields start, start + 1, ..., end - 1 (at most KIT_NUM_MAX_RANGE
 * values). -EINVAL when start > end, -E2BIG when the range is longer.
 */
extern int bpf_iter_kit_num_new(struct bpf_iter_kit_num *it, int start, int end) __kit_kfunc;
extern int *bpf_iter_kit_num_next(struct bpf_iter_kit_num *it) __kit_kfunc;
extern void bpf_iter_kit_num_destroy(struct bpf_iter_kit_num *it) __kit_kfunc;

/* testmod_seq: hands out a pointer to value, cnt times; -EINVAL when cnt < 0. */
extern int bpf_iter_testmod_seq_new(struct bpf_iter_testmod_seq *it, __s64 value, int cnt) __kit_kfunc;
extern __s64 *bpf_iter_testmod_seq_next(struct bpf_iter_testmod_seq *it) __kit_kfunc;
extern void bpf_iter_testmod_seq_destroy(struct bpf_iter_testmod_seq *it) __kit_kfunc;
/* Linux 6.12+: reads a live testmod_seq iterator from outside the loop. */
extern __s64 bpf_iter_testmod_seq_value(int val, struct bpf_iter_testmod_seq *it__iter) __kit_kfunc;

/* kit_task: walks tasks inside one RCU read-side section (Linux 6.7+).
 * -EINVAL for bad flags or pid, -ESRCH when the process does not exist.
 */
extern int bpf_iter_kit_task_new(struct bpf_iter_kit_task *it, int pid, unsigned int flags) __kit_kfunc;
extern struct task_struct *bpf_iter_kit_task_next(struct bpf_iter_kit_task *it) __kit_kfunc;
extern void bpf_iter_kit_task_destroy(struct bpf_iter_kit_task *it) __kit_kfunc;

/* kit_cgroup: walks cgroup v2 from cgroup_id (0: the root), in a KIT_CGROUP_*
 * order. -ENOENT when the cgroup does not exist, -EINVAL for a bad order,
 * -E2BIG when a lock-free lookup (not preemptible, or PREEMPT_RT) used up
 * its budget before finding the id. Linux 6.7+.
 */
extern int bpf_iter_kit_cgroup_new(struct bpf_iter_kit_cgroup *it, __u64 cgroup_id, unsigned int order) __kit_kfunc;
extern struct cgroup *bpf_iter_kit_cgroup_next(struct bpf_iter_kit_cgroup *it) __kit_kfunc;
extern void bpf_iter_kit_cgroup_destroy(struct bpf_iter_kit_cgroup *it) __kit_kfunc;

/* kit_cgroup_at: the same walks from a cgroup pointer the program holds,
 * trusted or RCU-protected (e.g. bpf_get_current_task_btf()->cgroups->dfl_cgrp),
 * with no id lookup. -EINVAL for a bad order (a NULL start is refused by
 * the verifier).
 */
extern int bpf_iter_kit_cgroup_at_new(struct bpf_iter_kit_cgroup_at *it, struct cgroup *start,
				      unsigned int order) __kit_kfunc;
extern struct cgroup *bpf_iter_kit_cgroup_at_next(struct bpf_iter_kit_cgroup_at *it) __kit_kfunc;
extern void bpf_iter_kit_cgroup_at_destroy(struct bpf_iter_kit_cgroup_at *it) __kit_kfunc;

/* Linux 6.12+ (a live iterator as argument): 1 once next() has returned
 * NULL because the walk reached its cap (the built-in one, or the module's
 * max_steps parameter) with elements left: the walk was truncated. 0 while
 * the walk runs, after a complete walk, and when new() failed.
 */
extern int bpf_iter_kit_task_capped(struct bpf_iter_kit_task *it__iter) __kit_kfunc;
extern int bpf_iter_kit_cgroup_capped(struct bpf_iter_kit_cgroup *it__iter) __kit_kfunc;
extern int bpf_iter_kit_cgroup_at_capped(struct bpf_iter_kit_cgroup_at *it__iter) __kit_kfunc;

/* RCU read-side section for sleepable programs (the walkers need one). */
extern void bpf_rcu_read_lock(void) __kit_kfunc;
extern void bpf_rcu_read_unlock(void) __kit_kfunc;

/*
 * bpf_for_each(type, cur, args...): libbpf >= 1.2 has it; this is the same
 * loop for older libbpf. The iterator is destroyed when the loop scope ends,
 * and cur points at each element in turn.
 */
#ifndef bpf_for_each
#define bpf_for_each(type, cur, args...)					\
	for (struct bpf_iter_##type ___it					\
		__attribute__((aligned(8), cleanup(bpf_iter_##type##_destroy))),\
	     /* mention destroy so clang emits its BTF even when unused */	\
	     *___unused __attribute__((unused)) =				\
		(bpf_iter_##type##_new(&___it, ##args),				\
		 (void)bpf_iter_##type##_destroy, (void *)0);			\
	     (((cur) = bpf_iter_##type##_next(&___it)));			\
	)
#endif

/*
 * kit_for(i, start, end): i takes start ... end - 1, like bpf_for(), but
 * driven by kit_num. The explicit bounds check on every element is what
 * lets the verifier prove i in [start, end) inside the body, e.g. for
 * array indexing. From a start other than a constant 0, the start goes
 * through an empty asm first: knowing it, the compiler would fold the two
 * comparisons into one unsigned check of i - start in another register
 * (clang 14 does), which leaves i itself unbounded for the verifier.
 */
#define kit_for(i, start, end)							\
	for (struct bpf_iter_kit_num ___kit_it					\
		__attribute__((aligned(8), cleanup(bpf_iter_kit_num_destroy))),\
	     *___kit_unused __attribute__((unused)) =				\
		(bpf_iter_kit_num_new(&___kit_it, (start), (end)),		\
		 (void)bpf_iter_kit_num_destroy, (void *)0);			\
	     ({									\
		int *___kit_v = bpf_iter_kit_num_next(&___kit_it);		\
		int ___kit_start = (start);					\
									\
		if (!__builtin_constant_p(start) || (start))			\
			asm volatile("" : "+r"(___kit_start));			\
		___kit_v && ((i) = *___kit_v,					\
			     (i) >= ___kit_start && (i) < (end));		\
	     });								\
	)

/* kit_repeat(n): runs the body n times, driven by kit_num. */
#define kit_repeat(n)								\
	for (struct bpf_iter_kit_num ___kit_it					\
		__attribute__((aligned(8), cleanup(bpf_iter_kit_num_destroy))),\
	     *___kit_unused __attribute__((unused)) =				\
		(bpf_iter_kit_num_new(&___kit_it, 0, (n)),			\
		 (void)bpf_iter_kit_num_destroy, (void *)0);			\
	     bpf_iter_kit_num_next(&___kit_it);					\
	)

#endif /* __bpf__ */

#endif /* __ITERKIT_BPF_H */
