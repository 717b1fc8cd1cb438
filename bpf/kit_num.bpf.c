// SPDX-License-Identifier: GPL-2.0
/* kit_num end to end: walk [start, end) in the kernel, report what came out. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "shared.h"

int start, end;			/* in */
int ret;			/* out: bpf_iter_kit_num_new()'s result */
__u64 count;			/* out: elements produced */
__s64 sum;			/* out: their sum */
int values[KIT_MAX_SHOWN];	/* out: the first KIT_MAX_SHOWN of them */

SEC("syscall")
int kit_num_walk(void *ctx)
{
	struct bpf_iter_kit_num it;
	int *v;

	/* Outputs start from zero on every run: a resident program is run many times. */
	count = 0;
	sum = 0;
	ret = bpf_iter_kit_num_new(&it, start, end);
	while ((v = bpf_iter_kit_num_next(&it))) {
		/* A counter read back from memory keeps the loop states converging. */
		__u64 n = count;

		if (n < KIT_MAX_SHOWN)
			values[n] = *v;
		count = n + 1;
		sum += *v;
	}
	bpf_iter_kit_num_destroy(&it);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
