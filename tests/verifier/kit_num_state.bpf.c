// SPDX-License-Identifier: GPL-2.0
/*
 * kit_num iterator state safety: the verifier must track the iterator's
 * stack slot from new() to destroy() and refuse every misuse of it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

SEC("?raw_tp")
__kit_success __kit_log_level(2)
__kit_msg("call bpf_iter_kit_num_new")
__kit_msg_kver("", KIT_KVER_NO_LIVENESS, "fp-8_w=iter_kit_num(ref_id=1,state=active,depth=0)")
__kit_msg_kver(KIT_KVER_NO_LIVENESS, KIT_KVER_REG_NAMES, "fp-8=iter_kit_num(ref_id=1,state=active,depth=0)")
__kit_msg_kver(KIT_KVER_REG_NAMES, "", "fp-8=iter_kit_num(id=1,state=active,depth=0)")
__kit_msg("call bpf_iter_kit_num_destroy")
int create_and_destroy(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 100);
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

SEC("?raw_tp")
__kit_failure
__kit_msg("Unreleased reference id=1")
int create_and_forget_to_destroy(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 100);
	return 0;
}

SEC("?raw_tp")
__kit_failure
__kit_msg_iter_uninit_arg1("kit_num")
int destroy_without_creating(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_destroy(&it);
	return 0;
}

SEC("?raw_tp")
__kit_failure
__kit_msg_iter_uninit_arg1("kit_num")
int next_without_creating(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_next(&it);
	return 0;
}

SEC("?raw_tp")
__kit_failure
__kit_msg("call bpf_iter_kit_num_destroy")
__kit_msg_iter_uninit_arg1("kit_num")
int double_destroy(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 100);
	bpf_iter_kit_num_destroy(&it);
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

SEC("?raw_tp")
__kit_failure
__kit_msg_iter_uninit_arg1("kit_num")
int next_after_destroy(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 100);
	bpf_iter_kit_num_destroy(&it);
	bpf_iter_kit_num_next(&it);
	return 0;
}

SEC("?raw_tp")
__kit_failure
__kit_msg_kver("", KIT_KVER_ARG0, "expected uninitialized iter_kit_num as arg #1")
__kit_msg_kver(KIT_KVER_ARG0, KIT_KVER_REG_NAMES, "expected uninitialized iter_kit_num as arg #0")
__kit_msg_kver(KIT_KVER_REG_NAMES, "", "expected uninitialized iter_kit_num as R1")
int double_create(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 100);
	bpf_iter_kit_num_new(&it, 0, 100);
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

/* Overwriting the state with a plain store kills the iterator. */
SEC("?raw_tp")
__kit_failure
__kit_msg_iter_uninit_arg1("kit_num")
int direct_write_over_slot(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 100);
	*(volatile __u64 *)&it = 0xdeadbeef;
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

/* The same write, with no destroy afterwards: the reference still leaks. */
SEC("?raw_tp")
__kit_failure
__kit_msg("Unreleased reference id=1")
int direct_write_and_skip_destroy(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 100);
	*(volatile __u64 *)&it = 0xdeadbeef;
	return 0;
}

/* A helper writing into the slot is a direct write too. */
SEC("?raw_tp")
__kit_failure
__kit_msg_iter_uninit_arg1("kit_num")
int helper_write_over_slot(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 100);
	bpf_probe_read_kernel(&it, sizeof(it), NULL);
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

/* The state is opaque: a program may not read it. */
SEC("?raw_tp")
__kit_failure
__kit_msg("invalid read from stack off -8+0 size 8")
int read_slot(void *ctx)
{
	struct bpf_iter_kit_num it;
	__u64 peek;

	bpf_iter_kit_num_new(&it, 0, 100);
	peek = *(volatile __u64 *)&it;
	bpf_iter_kit_num_destroy(&it);
	return peek;
}

SEC("?raw_tp")
__kit_failure
__kit_msg("R0 invalid mem access 'scalar'")
int missing_null_check(void *ctx)
{
	struct bpf_iter_kit_num it;
	int *v, sum;

	bpf_iter_kit_num_new(&it, 0, 10);
	v = bpf_iter_kit_num_next(&it);
	sum = *v;
	bpf_iter_kit_num_destroy(&it);
	return sum;
}

SEC("?raw_tp")
__kit_failure
__kit_msg("invalid access to memory, mem_size=4 off=0 size=8")
__kit_msg("R0 min value is outside of the allowed memory range")
int wrong_sized_read(void *ctx)
{
	struct bpf_iter_kit_num it;
	__s64 *v, sum = 0;

	bpf_iter_kit_num_new(&it, 0, 10);
	v = (__s64 *)bpf_iter_kit_num_next(&it);
	if (v)
		sum = *v;
	bpf_iter_kit_num_destroy(&it);
	return sum;
}

/* A kit_num iterator is not a testmod_seq iterator. */
SEC("?raw_tp")
__kit_failure
__kit_msg_iter_uninit_arg1("testmod_seq")
int kit_num_to_testmod_seq_kfunc(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 10);
	bpf_iter_testmod_seq_next((struct bpf_iter_testmod_seq *)&it);
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

static __noinline void leak_iter(struct bpf_iter_kit_num *it)
{
	bpf_iter_kit_num_new(it, 0, 10);
}

/* A subprogram may create an iterator for its caller, who must destroy it. */
SEC("?raw_tp")
__kit_failure
__kit_msg("returning from callee:")
__kit_msg("Unreleased reference id=1")
int leak_iter_from_subprog(void *ctx)
{
	struct bpf_iter_kit_num it;

	leak_iter(&it);
	return 0;
}

/* After destroy() the slot is ordinary stack again, fit for a new iterator. */
SEC("?raw_tp")
__kit_success __kit_log_level(2)
__kit_msg_kver("", KIT_KVER_NO_LIVENESS, "fp-8_w=iter_kit_num(ref_id=1,state=active,depth=0)")
__kit_msg_kver(KIT_KVER_NO_LIVENESS, KIT_KVER_REG_NAMES, "fp-8=iter_kit_num(ref_id=1,state=active,depth=0)")
__kit_msg_kver(KIT_KVER_REG_NAMES, "", "fp-8=iter_kit_num(id=1,state=active,depth=0)")
__kit_msg_kver("", KIT_KVER_NO_LIVENESS, "fp-8_w=iter_kit_num(ref_id=2,state=active,depth=0)")
__kit_msg_kver(KIT_KVER_NO_LIVENESS, KIT_KVER_REG_NAMES, "fp-8=iter_kit_num(ref_id=2,state=active,depth=0)")
__kit_msg_kver(KIT_KVER_REG_NAMES, "", "fp-8=iter_kit_num(id=2,state=active,depth=0)")
int valid_stack_reuse(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 10);
	bpf_iter_kit_num_destroy(&it);
	bpf_iter_kit_num_new(&it, 0, 10);
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
