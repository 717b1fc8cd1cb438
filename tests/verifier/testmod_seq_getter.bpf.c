// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_iter_testmod_seq_value() takes a live iterator as a plain argument
 * (an it__iter parameter, where the module has ITERKIT_ITER_ARGS): legal only between new() and
 * destroy().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

/* sum = 100 * 100, times value(0) = 0 + 100. */
SEC("?raw_tp")
__kit_feature(ITER_ARGS)
__kit_success __kit_retval(1000000)
int testmod_seq_getter_good(void *ctx)
{
	struct bpf_iter_testmod_seq it;
	__s64 sum = 0, *v;

	bpf_iter_testmod_seq_new(&it, 100, 100);
	while ((v = bpf_iter_testmod_seq_next(&it)))
		sum += *v;
	sum *= bpf_iter_testmod_seq_value(0, &it);
	bpf_iter_testmod_seq_destroy(&it);
	return sum;
}

SEC("?raw_tp")
__kit_feature(ITER_ARGS)
__kit_failure
__kit_msg_iter_uninit_arg2("testmod_seq")
int testmod_seq_getter_before_new(void *ctx)
{
	struct bpf_iter_testmod_seq it;

	return bpf_iter_testmod_seq_value(0, &it);
}

SEC("?raw_tp")
__kit_feature(ITER_ARGS)
__kit_failure
__kit_msg_iter_uninit_arg2("testmod_seq")
int testmod_seq_getter_after_destroy(void *ctx)
{
	struct bpf_iter_testmod_seq it;
	__s64 sum = 0, *v;

	bpf_iter_testmod_seq_new(&it, 100, 100);
	while ((v = bpf_iter_testmod_seq_next(&it)))
		sum += *v;
	bpf_iter_testmod_seq_destroy(&it);
	return sum + bpf_iter_testmod_seq_value(0, &it);
}

char LICENSE[] SEC("license") = "GPL";
