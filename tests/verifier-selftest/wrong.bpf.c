// SPDX-License-Identifier: GPL-2.0
/*
 * Expectations for the verifier-runner's own test: programs named wrong_*
 * carry an expectation the kernel does not meet and must be reported as
 * "not ok"; programs named right_* are correct and must be "ok". Not part
 * of the verifier suite (it lives outside tests/verifier on purpose).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

/* Loads fine, but claims it is rejected. */
SEC("?raw_tp")
__kit_failure
int wrong_verdict_success(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 10);
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

/* Leaks the iterator (rejected), with no tags: the default is success. */
SEC("?raw_tp")
int wrong_verdict_default(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 10);
	return 0;
}

/* Rejected as expected, but for another reason than the one claimed. */
SEC("?raw_tp")
__kit_failure __kit_msg("R0 invalid mem access 'scalar'")
int wrong_message(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 10);
	return 0;
}

/*
 * Both lines are in the log, but not in this order: "processed N insns" ends
 * every verifier log, and the call is only ever printed before it (7.3
 * repeats instructions after its error lines, so an expectation ordered on
 * the error line alone would still find the call after it).
 */
SEC("?raw_tp")
__kit_failure
__kit_msg("processed ")
__kit_msg("call bpf_iter_kit_num_new")
int wrong_message_order(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 10);
	return 0;
}

/* A line that applies to every kernel from 6.0 on and never appears. */
SEC("?raw_tp")
__kit_success __kit_msg_kver("6.0", "", "no verifier prints this")
int wrong_message_kver(void *ctx)
{
	return 0;
}

/* The sum is 45, not 46. */
SEC("?raw_tp")
__kit_success __kit_retval(46)
int wrong_retval(void *ctx)
{
	int *v, sum = 0;

	bpf_for_each(kit_num, v, 0, 10)
		sum += *v;
	return sum;
}

/* The same program with the right value. */
SEC("?raw_tp")
__kit_success __kit_retval(45)
int right_retval(void *ctx)
{
	int *v, sum = 0;

	bpf_for_each(kit_num, v, 0, 10)
		sum += *v;
	return sum;
}

/* A message for a kernel range that excludes every kernel we run is ignored. */
SEC("?raw_tp")
__kit_failure
__kit_msg("call bpf_iter_kit_num_new")
__kit_msg("Unreleased reference id=1")
__kit_msg_kver("2.0", "3.0", "no verifier prints this")
int right_failure(void *ctx)
{
	struct bpf_iter_kit_num it;

	bpf_iter_kit_num_new(&it, 0, 10);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
