// SPDX-License-Identifier: GPL-2.0
/*
 * testmod_seq as the verifier sees it at log level 2: the iterator's stack
 * slot is active after new(), drained on the exit path of the loop, and
 * destroy() is what releases it. Empty, full and truncated sequences.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

#define SLOT_ACTIVE(fp)							\
	__kit_msg_kver("", KIT_KVER_NO_LIVENESS,			\
		       fp "_w=iter_testmod_seq(ref_id=1,state=active,depth=0)") \
	__kit_msg_kver(KIT_KVER_NO_LIVENESS, KIT_KVER_REG_NAMES,	\
		       fp "=iter_testmod_seq(ref_id=1,state=active,depth=0)") \
	__kit_msg_kver(KIT_KVER_REG_NAMES, "",				\
		       fp "=iter_testmod_seq(id=1,state=active,depth=0)")
#define SLOT_DRAINED(fp)						\
	__kit_msg_kver("", KIT_KVER_REG_NAMES,				\
		       fp "=iter_testmod_seq(ref_id=1,state=drained,depth=0)") \
	__kit_msg_kver(KIT_KVER_REG_NAMES, "",				\
		       fp "=iter_testmod_seq(id=1,state=drained,depth=0)")

int seen;

/* 1 + nothing: the body never runs. */
SEC("?raw_tp")
__kit_success __kit_log_level(2) __kit_retval(1)
SLOT_ACTIVE("fp-16") SLOT_DRAINED("fp-16")
__kit_msg("call bpf_iter_testmod_seq_destroy")
int testmod_seq_empty(void *ctx)
{
	__s64 sum = 0, *v;

	bpf_for_each(testmod_seq, v, 1000, 0)
		sum += *v;
	return 1 + sum;
}

/* 1000 times 1000. */
SEC("?raw_tp")
__kit_success __kit_log_level(2) __kit_retval(1000000)
SLOT_ACTIVE("fp-16") SLOT_DRAINED("fp-16")
__kit_msg("call bpf_iter_testmod_seq_destroy")
int testmod_seq_full(void *ctx)
{
	__s64 sum = 0, *v;

	bpf_for_each(testmod_seq, v, 1000, 1000)
		sum += *v;
	return sum;
}

/* Stops after ten of a million elements; destroy() runs on break too. */
SEC("?raw_tp")
__kit_success __kit_log_level(2) __kit_retval(10000)
SLOT_ACTIVE("fp-16") SLOT_DRAINED("fp-16")
__kit_msg("call bpf_iter_testmod_seq_destroy")
int testmod_seq_truncated(void *ctx)
{
	__s64 sum = 0, *v;
	int n = 0;

	bpf_for_each(testmod_seq, v, 1000, 1000000) {
		if (++n > 10)
			break;
		sum += *v;
	}
	return sum;
}

/* A negative count fails new() with an empty iterator that still needs destroy(). */
SEC("?raw_tp")
__kit_success __kit_retval(-22)
int testmod_seq_negative_count(void *ctx)
{
	struct bpf_iter_testmod_seq it;
	int err;

	/* Counted in memory: a register counter would keep the loop states apart. */
	seen = 0;
	err = bpf_iter_testmod_seq_new(&it, 1, -1);
	while (bpf_iter_testmod_seq_next(&it))
		seen++;
	bpf_iter_testmod_seq_destroy(&it);
	return seen ? 1 : err;
}

/* A testmod_seq iterator is not a kit_num iterator. */
SEC("?raw_tp")
__kit_failure
__kit_msg_iter_uninit_arg1("kit_num")
int testmod_seq_to_kit_num_kfunc(void *ctx)
{
	struct bpf_iter_testmod_seq it;

	bpf_iter_testmod_seq_new(&it, 1, 10);
	bpf_iter_kit_num_destroy((struct bpf_iter_kit_num *)&it);
	bpf_iter_testmod_seq_destroy(&it);
	return 0;
}

SEC("?raw_tp")
__kit_failure
__kit_msg("Unreleased reference id=1")
int testmod_seq_forget_to_destroy(void *ctx)
{
	struct bpf_iter_testmod_seq it;

	bpf_iter_testmod_seq_new(&it, 1, 10);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
