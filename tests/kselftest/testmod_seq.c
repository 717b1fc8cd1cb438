// SPDX-License-Identifier: GPL-2.0
/* testmod_seq at run time: the seed's empty, full, truncated and negative cases. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kit_features.h"
#include "harness.h"
#include "prog_run.h"
#include "seq_runtime.skel.h"

FIXTURE(seq) {
	struct seq_runtime_bpf *skel;
};

FIXTURE_SETUP(seq)
{
	self->skel = seq_runtime_bpf__open_and_load();
	ASSERT_NE(NULL, self->skel) TH_LOG("loading seq_runtime.bpf.o failed: %s", strerror(errno));
}

FIXTURE_TEARDOWN(seq)
{
	seq_runtime_bpf__destroy(self->skel);
}

static int run(struct seq_runtime_bpf *skel, struct bpf_program *prog, int64_t value, int cnt,
	       int stop_after)
{
	memset(&skel->bss->res, 0, sizeof(skel->bss->res));
	skel->bss->in.value = value;
	skel->bss->in.cnt = cnt;
	skel->bss->in.stop_after = stop_after;
	return kit_prog_run(prog);
}

TEST_F(seq, empty)
{
	ASSERT_EQ(0, run(self->skel, self->skel->progs.seq_walk, 5, 0, 0));
	EXPECT_EQ(0, self->skel->bss->res.ret);
	EXPECT_EQ(0, self->skel->bss->res.count);
	EXPECT_EQ(0, self->skel->bss->res.after);
}

TEST_F(seq, full)
{
	ASSERT_EQ(0, run(self->skel, self->skel->progs.seq_walk, 1000, 1000, 0));
	EXPECT_EQ(0, self->skel->bss->res.ret);
	EXPECT_EQ(1000, self->skel->bss->res.count);
	EXPECT_EQ(1000 * 1000, self->skel->bss->res.sum);
	EXPECT_EQ(0, self->skel->bss->res.mismatched);
	EXPECT_EQ(0, self->skel->bss->res.after);
}

TEST_F(seq, truncated)
{
	/* 10 x 1000000, leaving after 10: the rest is dropped by destroy(). */
	ASSERT_EQ(0, run(self->skel, self->skel->progs.seq_walk, 10, 1000000, 10));
	EXPECT_EQ(0, self->skel->bss->res.ret);
	EXPECT_EQ(10, self->skel->bss->res.count);
	EXPECT_EQ(100, self->skel->bss->res.sum);
	/* The iterator is still live after break: the 3 extra next() get elements. */
	EXPECT_EQ(3, self->skel->bss->res.after);
}

TEST_F(seq, negative_count)
{
	ASSERT_EQ(0, run(self->skel, self->skel->progs.seq_walk, 7, -1, 0));
	EXPECT_EQ(-EINVAL, self->skel->bss->res.ret);
	EXPECT_EQ(0, self->skel->bss->res.count);
	EXPECT_EQ(0, self->skel->bss->res.after);
}

TEST_F(seq, int_min_count)
{
	ASSERT_EQ(0, run(self->skel, self->skel->progs.seq_walk, 7, INT32_MIN, 0));
	EXPECT_EQ(-EINVAL, self->skel->bss->res.ret);
	EXPECT_EQ(0, self->skel->bss->res.count);
}

TEST_F(seq, extreme_values)
{
	ASSERT_EQ(0, run(self->skel, self->skel->progs.seq_walk, INT64_MIN, 3, 0));
	EXPECT_EQ(3, self->skel->bss->res.count);
	EXPECT_EQ(0, self->skel->bss->res.mismatched);
	EXPECT_EQ((uint64_t)INT64_MIN * 3, self->skel->bss->res.sum);
}

/* bpf_iter_testmod_seq_value() takes a live iterator as an __iter argument (ITERKIT_ITER_ARGS). */
TEST_F(seq, getter)
{
	self->skel->bss->in.getter_arg = 1000;
	ASSERT_EQ(0, run(self->skel, self->skel->progs.seq_getter, 7, 5, 0));
	ASSERT_LE(0, kit_feature("ITER_ARGS")) TH_LOG("no features file next to the tests");
	if (!kit_feature("ITER_ARGS")) {
		EXPECT_EQ(0, self->skel->bss->res.have_getter);
		SKIP(return, "the module was built without __iter arguments (no ITERKIT_ITER_ARGS)");
	}
	ASSERT_EQ(1, self->skel->bss->res.have_getter);
	EXPECT_EQ(1007, self->skel->bss->res.getter);
	/*
	 * As bpf_testmod: a failed new() keeps the negative count, so the
	 * getter reads no value (0), not getter_arg + value.
	 */
	ASSERT_EQ(0, run(self->skel, self->skel->progs.seq_getter, 7, -1, 0));
	EXPECT_EQ(-EINVAL, self->skel->bss->res.ret);
	EXPECT_EQ(0, self->skel->bss->res.getter);
	ASSERT_EQ(0, run(self->skel, self->skel->progs.seq_getter, 7, 0, 0));
	EXPECT_EQ(0, self->skel->bss->res.ret);
	EXPECT_EQ(1007, self->skel->bss->res.getter) TH_LOG("an empty but valid iterator has its value");
}

TEST_HARNESS_MAIN
