// SPDX-License-Identifier: GPL-2.0
/*
 * B1, per-element cost: one loop over [0, n) that adds each element to a
 * register, written four ways that differ only in what drives the loop:
 * kit_num (the module's kfuncs), bpf_iter_num (the kernel's), bpf_loop()
 * and a bounded for loop. Each program times its own loop with
 * bpf_ktime_get_ns() (syscall programs take no `repeat` in test runs), so
 * the syscall and the test-run set-up are not part of the figure.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"

/*
 * The verifier walks every iteration of a bounded loop, two branches each:
 * past about 4,000 it hits its limit of 8,192 jumps in one path.
 */
#define FOR_MAX 4000

__u32 n;		/* in: elements */
__u64 elapsed;		/* out: ns around the loop */
__s64 sum;		/* out: what the loop added up (the runner checks it) */

/* The loop body of every form: the barrier keeps clang from folding the sum. */
#define BODY(s, x)		\
	do {			\
		(s) += (x);	\
		barrier_var(s);	\
	} while (0)

/* One loop over an open-coded iterator; the two programs differ in its name only. */
#define LOOP_OVER(prog, iter)					\
SEC("syscall")							\
int prog(void *ctx)						\
{								\
	__u64 t0 = bpf_ktime_get_ns();				\
	__s64 s = 0;						\
	int *v;							\
								\
	bpf_for_each(iter, v, 0, n)				\
		BODY(s, *v);					\
	elapsed = bpf_ktime_get_ns() - t0;			\
	sum = s;						\
	return 0;						\
}

LOOP_OVER(loop_kit_num, kit_num)
LOOP_OVER(loop_num, num)

static long loop_cb(__u64 i, void *ctx)
{
	__s64 *s = ctx;

	BODY(*s, (__s64)i);
	return 0;
}

SEC("syscall")
int loop_bpf_loop(void *ctx)
{
	__u64 t0 = bpf_ktime_get_ns();
	__s64 s = 0;

	bpf_loop(n, loop_cb, &s, 0);
	elapsed = bpf_ktime_get_ns() - t0;
	sum = s;
	return 0;
}

SEC("syscall")
int loop_for(void *ctx)
{
	__u64 t0 = bpf_ktime_get_ns();
	__u32 i, lim = n;
	__s64 s = 0;

#pragma clang loop unroll(disable)
	for (i = 0; i < lim && i < FOR_MAX; i++)
		BODY(s, (__s64)i);
	elapsed = bpf_ktime_get_ns() - t0;
	sum = s;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
