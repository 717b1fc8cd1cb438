// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime behaviour of kit_num and of the kernel's bpf_iter_num, driven by
 * the same inputs, so the test can hold both to one set of expectations.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"

#define MAX_FETCHES 32

struct {
	int start, end;
	int fetches;		/* 0: walk until NULL; else call next() this often */
	int repeat;		/* for the *_repeat programs */
} in;

struct {
	int ret;		/* what new() returned */
	__u64 count;		/* non-NULL elements */
	__s64 sum;
	__u64 after;		/* non-NULL results from 3 extra next() calls */
	__s64 first, last;
} res;

static __always_inline void record(int v)
{
	if (!res.count)
		res.first = v;
	res.last = v;
	res.count++;
	res.sum += v;
}

/* One program per iterator type, identical bodies. */
#define DEFINE_WALK(type)							\
SEC("syscall")									\
int walk_##type(void *ctx)							\
{										\
	struct bpf_iter_##type it;						\
	int *v, i;								\
										\
	res.ret = bpf_iter_##type##_new(&it, in.start, in.end);		\
	if (in.fetches) {							\
		for (i = 0; i < MAX_FETCHES && i < in.fetches; i++) {		\
			v = bpf_iter_##type##_next(&it);			\
			if (v)							\
				record(*v);					\
		}								\
	} else {								\
		while ((v = bpf_iter_##type##_next(&it)))			\
			record(*v);						\
	}									\
	for (i = 0; i < 3; i++)							\
		if (bpf_iter_##type##_next(&it))				\
			res.after++;						\
	bpf_iter_##type##_destroy(&it);						\
	return 0;								\
}

DEFINE_WALK(kit_num)
DEFINE_WALK(num)

/* The loop macros over the same inputs. */
SEC("syscall")
int for_kit_num(void *ctx)
{
	int i;

	kit_for(i, in.start, in.end)
		record(i);
	return 0;
}

SEC("syscall")
int for_num(void *ctx)
{
	int i;

	bpf_for(i, in.start, in.end)
		record(i);
	return 0;
}

SEC("syscall")
int foreach_kit_num(void *ctx)
{
	int *v;

	bpf_for_each(kit_num, v, in.start, in.end)
		record(*v);
	return 0;
}

SEC("syscall")
int foreach_num(void *ctx)
{
	int *v;

	bpf_for_each(num, v, in.start, in.end)
		record(*v);
	return 0;
}

SEC("syscall")
int repeat_kit_num(void *ctx)
{
	kit_repeat(in.repeat)
		res.count++;
	return 0;
}

SEC("syscall")
int repeat_num(void *ctx)
{
	bpf_repeat(in.repeat)
		res.count++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
