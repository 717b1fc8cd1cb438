// SPDX-License-Identifier: GPL-2.0
/*
 * kit_num at run time, case for case against the seed's number-iterator
 * tests, and the kernel's own bpf_iter_num through the same cases in the
 * same run: both must produce what plain C computes for the range.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iterkit_defs.h"
#include "harness.h"
#include "prog_run.h"
#include "num_parity.skel.h"

struct expect {
	int ret;
	uint64_t count;
	int64_t sum, first, last;
};

/* What [start, end) should give when walked fully (or `fetches` times). */
static struct expect expect_range(int start, int end, int fetches)
{
	struct expect e = {};
	int64_t v, range = (int64_t)end - start;

	if (range < 0) {
		e.ret = -EINVAL;
		return e;
	}
	if (range > KIT_NUM_MAX_RANGE) {
		e.ret = -E2BIG;
		return e;
	}
	for (v = start; v < end; v++) {
		if (fetches && e.count == (uint64_t)fetches)
			break;
		if (!e.count)
			e.first = v;
		e.last = v;
		e.count++;
		e.sum += v;
	}
	return e;
}

FIXTURE(num) {
	struct num_parity_bpf *skel;
};

FIXTURE_VARIANT(num) {
	const char *iter;	/* the name used for the programs: kit_num or num */
};

FIXTURE_VARIANT_ADD(num, kit_num) { .iter = "kit_num" };
FIXTURE_VARIANT_ADD(num, kernel_num) { .iter = "num" };

FIXTURE_SETUP(num)
{
	self->skel = num_parity_bpf__open_and_load();
	ASSERT_NE(NULL, self->skel) TH_LOG("loading num_parity.bpf.o failed: %s", strerror(errno));
}

FIXTURE_TEARDOWN(num)
{
	num_parity_bpf__destroy(self->skel);
}

/* Runs <kind>_<iter> (e.g. walk_kit_num) once with the given inputs. */
static int run(struct num_parity_bpf *skel, const char *kind, const char *iter,
	       int start, int end, int fetches, int repeat)
{
	struct bpf_program *prog;
	char name[64];

	snprintf(name, sizeof(name), "%s_%s", kind, iter);
	prog = bpf_object__find_program_by_name(skel->obj, name);
	if (!prog)
		return -ENOENT;
	memset(&skel->bss->res, 0, sizeof(skel->bss->res));
	skel->bss->in.start = start;
	skel->bss->in.end = end;
	skel->bss->in.fetches = fetches;
	skel->bss->in.repeat = repeat;
	return kit_prog_run(prog);
}

#define CHECK_WALK(start, end, fetches) do {					\
	struct expect e = expect_range((start), (end), (fetches));		\
	ASSERT_EQ(0, run(self->skel, "walk", variant->iter, (start), (end), (fetches), 0)); \
	EXPECT_EQ(e.ret, self->skel->bss->res.ret);				\
	EXPECT_EQ(e.count, self->skel->bss->res.count);				\
	EXPECT_EQ(e.sum, self->skel->bss->res.sum);				\
	if (e.count) {								\
		EXPECT_EQ(e.first, self->skel->bss->res.first);			\
		EXPECT_EQ(e.last, self->skel->bss->res.last);			\
	}									\
	EXPECT_EQ(0, self->skel->bss->res.after) TH_LOG("next() after the end gave an element"); \
} while (0)

TEST_F(num, empty_zero) { CHECK_WALK(0, 0, 0); }
TEST_F(num, empty_int_min) { CHECK_WALK(INT_MIN, INT_MIN, 0); }
TEST_F(num, empty_int_max) { CHECK_WALK(INT_MAX, INT_MAX, 0); }
TEST_F(num, empty_minus_one) { CHECK_WALK(-1, -1, 0); }
TEST_F(num, simple_sum) { CHECK_WALK(0, 10, 0); }
TEST_F(num, neg_sum) { CHECK_WALK(-10, 0, 0); }
TEST_F(num, very_neg_sum) { CHECK_WALK(INT_MIN, INT_MIN + 2, 0); }
TEST_F(num, very_big_sum) { CHECK_WALK(INT_MAX - 2, INT_MAX, 0); }
TEST_F(num, neg_pos_sum) { CHECK_WALK(-3, 3, 0); }
TEST_F(num, invalid_range) { CHECK_WALK(1, 0, 0); }
TEST_F(num, max_range) { CHECK_WALK(0, KIT_NUM_MAX_RANGE, 0); }
TEST_F(num, e2big_range) { CHECK_WALK(-1, KIT_NUM_MAX_RANGE, 0); }
TEST_F(num, succ_elem_cnt) { CHECK_WALK(0, 10, 10); }
TEST_F(num, overfetched_elem_cnt) { CHECK_WALK(0, 5, 10); }
TEST_F(num, fail_elem_cnt) { CHECK_WALK(20, 10, 20); }
TEST_F(num, max_range_at_int_max) { CHECK_WALK(INT_MAX - KIT_NUM_MAX_RANGE, INT_MAX, 0); }

/* The loop macros: kit_for vs bpf_for, bpf_for_each over either. */
TEST_F(num, for_macro)
{
	struct expect e = expect_range(-7, 9, 0);

	ASSERT_EQ(0, run(self->skel, "for", variant->iter, -7, 9, 0, 0));
	EXPECT_EQ(e.count, self->skel->bss->res.count);
	EXPECT_EQ(e.sum, self->skel->bss->res.sum);
	EXPECT_EQ(e.first, self->skel->bss->res.first);
	EXPECT_EQ(e.last, self->skel->bss->res.last);
}

TEST_F(num, for_macro_bad_range)
{
	ASSERT_EQ(0, run(self->skel, "for", variant->iter, 9, -7, 0, 0));
	EXPECT_EQ(0, self->skel->bss->res.count);
}

TEST_F(num, foreach_macro)
{
	struct expect e = expect_range(100, 1100, 0);

	ASSERT_EQ(0, run(self->skel, "foreach", variant->iter, 100, 1100, 0, 0));
	EXPECT_EQ(e.count, self->skel->bss->res.count);
	EXPECT_EQ(e.sum, self->skel->bss->res.sum);
}

TEST_F(num, repeat_macro)
{
	ASSERT_EQ(0, run(self->skel, "repeat", variant->iter, 0, 0, 0, 777));
	EXPECT_EQ(777, self->skel->bss->res.count);
	ASSERT_EQ(0, run(self->skel, "repeat", variant->iter, 0, 0, 0, -1));
	EXPECT_EQ(0, self->skel->bss->res.count);
}

TEST_HARNESS_MAIN
