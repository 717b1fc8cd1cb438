// SPDX-License-Identifier: GPL-2.0
/* testmod_seq end to end: take COUNT elements of VALUE from the kernel. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "shared.h"

__s64 value;			/* in */
int cnt;			/* in */
int ret;			/* out: bpf_iter_testmod_seq_new()'s result */
__u64 count;			/* out: elements produced */
__u64 sum;			/* out: their sum, modulo 2^64 */
__s64 values[KIT_MAX_SHOWN];	/* out: the first KIT_MAX_SHOWN of them */

SEC("syscall")
int testmod_seq_walk(void *ctx)
{
	struct bpf_iter_testmod_seq it;
	__s64 *v;

	/* Outputs start from zero on every run: a resident program is run many times. */
	count = 0;
	sum = 0;
	ret = bpf_iter_testmod_seq_new(&it, value, cnt);
	while ((v = bpf_iter_testmod_seq_next(&it))) {
		__u64 n = count;

		if (n < KIT_MAX_SHOWN)
			values[n] = *v;
		count = n + 1;
		sum += *v;
	}
	bpf_iter_testmod_seq_destroy(&it);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
