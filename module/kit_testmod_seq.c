// SPDX-License-Identifier: GPL-2.0
/*
 * testmod_seq: the selftests' module iterator (bpf_testmod), same name and
 * layout, so upstream programs written for it run unchanged. It hands out
 * a pointer to the same value cnt times.
 */
#include <linux/bpf.h>
#include <linux/errno.h>
#include "iterkit_compat.h"
#include "iterkit_defs.h"

struct bpf_iter_testmod_seq {
	s64 value;
	int cnt;
};

__bpf_kfunc_start_defs();

__bpf_kfunc int bpf_iter_testmod_seq_new(struct bpf_iter_testmod_seq *it, s64 value, int cnt)
{
	BUILD_BUG_ON(sizeof(struct bpf_iter_testmod_seq) != KIT_TESTMOD_SEQ_ITER_WORDS * 8);

	/*
	 * As bpf_testmod: a negative count stays in the iterator, so next()
	 * yields nothing and bpf_iter_testmod_seq_value() returns 0.
	 */
	it->value = 0;
	it->cnt = cnt;
	if (cnt < 0)
		return -EINVAL;
	it->value = value;
	return 0;
}

__bpf_kfunc s64 *bpf_iter_testmod_seq_next(struct bpf_iter_testmod_seq *it)
{
	if (it->cnt <= 0)
		return NULL;
	it->cnt--;
	return &it->value;
}

__bpf_kfunc void bpf_iter_testmod_seq_destroy(struct bpf_iter_testmod_seq *it)
{
	it->cnt = 0;
}

#ifdef ITERKIT_ITER_ARGS
/* A plain kfunc that reads a live iterator (the "__iter" suffix, 6.12+). */
__bpf_kfunc s64 bpf_iter_testmod_seq_value(int val, struct bpf_iter_testmod_seq *it__iter)
{
	if (it__iter->cnt < 0)
		return 0;
	return val + it__iter->value;
}
#endif

__bpf_kfunc_end_defs();
