// SPDX-License-Identifier: GPL-2.0
/*
 * kit_num: the numbers iterator, bpf_iter_num's contract under iterkit's name.
 * It yields start, start + 1, ..., end - 1.
 */
#include <linux/bpf.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include "iterkit_compat.h"
#include "iterkit_defs.h"

/* What BPF programs see: opaque bytes on their stack. */
struct bpf_iter_kit_num {
	__u64 __opaque[KIT_NUM_ITER_WORDS];
} __aligned(8);

static_assert(KIT_NUM_MAX_RANGE == BPF_MAX_LOOPS);

struct kit_num_state {
	int cur;	/* last value handed out (start - 1 before the first) */
	u32 left;	/* values still to hand out; 0 once drained or failed */
};

__bpf_kfunc_start_defs();

__bpf_kfunc int bpf_iter_kit_num_new(struct bpf_iter_kit_num *it, int start, int end)
{
	struct kit_num_state *s = (void *)it;
	s64 range = (s64)end - start;

	BUILD_BUG_ON(sizeof(struct kit_num_state) > sizeof(struct bpf_iter_kit_num));
	BUILD_BUG_ON(__alignof__(struct kit_num_state) > __alignof__(struct bpf_iter_kit_num));

	s->cur = 0;
	s->left = 0;
	if (range < 0)
		return -EINVAL;
	/* The longest range bpf_iter_num allows. */
	if (range > KIT_NUM_MAX_RANGE)
		return -E2BIG;

	/* Wraps to INT_MAX for start == INT_MIN; next() wraps it back. */
	s->cur = (int)((u32)start - 1);
	s->left = range;
	return 0;
}

__bpf_kfunc int *bpf_iter_kit_num_next(struct bpf_iter_kit_num *it)
{
	struct kit_num_state *s = (void *)it;

	if (!s->left)
		return NULL;
	s->left--;
	s->cur = (int)((u32)s->cur + 1);
	return &s->cur;
}

__bpf_kfunc void bpf_iter_kit_num_destroy(struct bpf_iter_kit_num *it)
{
	struct kit_num_state *s = (void *)it;

	s->left = 0;
}

__bpf_kfunc_end_defs();
