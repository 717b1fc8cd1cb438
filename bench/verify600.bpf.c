// SPDX-License-Identifier: GPL-2.0
/*
 * B3, verification cost: a 600-step loop (the shape of the selftests'
 * pyperf600: per step, read a frame, look its symbol up in a map, count)
 * written as kit_for, as the kernel's bpf_for, as a bounded loop, and
 * unrolled by clang. The verifier's log says how many instructions it
 * processed for each.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"

#define STEPS 600

struct frames {
	__u64 v[64];
	__u64 acc, empty, misses;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct frames);
	__uint(max_entries, 1);
} state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1024);
} symbols SEC(".maps");

static __always_inline void step(struct frames *f, __u32 i)
{
	__u64 v = f->v[i & 63];
	__u32 sym;
	__u64 *cnt;

	if (!v) {
		f->empty++;
		return;
	}
	sym = v >> 32;
	cnt = bpf_map_lookup_elem(&symbols, &sym);
	if (cnt)
		*cnt += 1;
	else
		f->misses++;
	f->acc ^= v;
}

static __always_inline struct frames *frames(void)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&state, &key);
}

SEC("syscall")
int v600_kit_for(void *ctx)
{
	struct frames *f = frames();
	int i;

	if (!f)
		return 0;
	kit_for(i, 0, STEPS)
		step(f, i);
	return 0;
}

SEC("syscall")
int v600_bpf_for(void *ctx)
{
	struct frames *f = frames();
	int i;

	if (!f)
		return 0;
	bpf_for(i, 0, STEPS)
		step(f, i);
	return 0;
}

SEC("syscall")
int v600_bounded(void *ctx)
{
	struct frames *f = frames();
	int i;

	if (!f)
		return 0;
#pragma clang loop unroll(disable)
	for (i = 0; i < STEPS; i++)
		step(f, i);
	return 0;
}

SEC("syscall")
int v600_unrolled(void *ctx)
{
	struct frames *f = frames();
	int i;

	if (!f)
		return 0;
#pragma clang loop unroll(full)
	for (i = 0; i < STEPS; i++)
		step(f, i);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
