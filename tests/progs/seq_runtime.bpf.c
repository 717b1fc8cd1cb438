// SPDX-License-Identifier: GPL-2.0
/* testmod_seq at run time: what comes out for a given value and count. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"

struct {
	__s64 value;
	int cnt;
	int stop_after;		/* break out of the loop after this many; 0: never */
	int getter_arg;
} in;

struct {
	int ret;
	__u64 count;
	__u64 sum;
	__u64 mismatched;	/* elements that were not `value` */
	__u64 after;		/* non-NULL results from 3 next() calls after the loop */
	__s64 getter;		/* bpf_iter_testmod_seq_value() on the live iterator */
	int have_getter;
} res;

SEC("syscall")
int seq_walk(void *ctx)
{
	struct bpf_iter_testmod_seq it;
	__s64 *v;
	int i;

	res.ret = bpf_iter_testmod_seq_new(&it, in.value, in.cnt);
	while ((v = bpf_iter_testmod_seq_next(&it))) {
		__u64 n = res.count + 1;

		res.count = n;
		res.sum += *v;
		if (*v != in.value)
			res.mismatched++;
		if (in.stop_after && n >= (__u64)in.stop_after)
			break;
	}
	for (i = 0; i < 3; i++)
		if (bpf_iter_testmod_seq_next(&it))
			res.after++;
	bpf_iter_testmod_seq_destroy(&it);
	return 0;
}

SEC("syscall")
int seq_getter(void *ctx)
{
	struct bpf_iter_testmod_seq it;

	res.have_getter = bpf_ksym_exists(bpf_iter_testmod_seq_value);
	res.ret = bpf_iter_testmod_seq_new(&it, in.value, in.cnt);
	if (res.have_getter)
		res.getter = bpf_iter_testmod_seq_value(in.getter_arg, &it);
	bpf_iter_testmod_seq_destroy(&it);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
