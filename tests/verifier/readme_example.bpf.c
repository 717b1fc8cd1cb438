// SPDX-License-Identifier: GPL-2.0
/*
 * The example program of the README ("Writing a BPF program with iterkit"),
 * body unchanged, so the documented example is proven to pass the verifier.
 * Only the include uses the bpf/ form the README mentions, and the
 * expectation tag is added.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"      /* README: <iterkit/iterkit.bpf.h> once installed */
#include "verifier.h"

int values[16];
long sum;

SEC("raw_tp/sys_enter")
__kit_success
int walk(void *ctx)
{
	int *v, i;

	if (!bpf_ksym_exists(bpf_iter_kit_num_new))   /* module not loaded: skip */
		return 0;

	/* bpf_for_each: v points at each element in turn; the iterator is
	 * destroyed when the loop ends, including on break. */
	bpf_for_each(kit_num, v, 0, 10)
		sum += *v;

	/* kit_for: like bpf_for(), over kit_num. The verifier knows
	 * 0 <= i < 16 inside the body, so the array index needs no check. */
	kit_for(i, 0, 16)
		values[i] = i * i;

	/* kit_repeat: run the body N times. */
	kit_repeat(3)
		sum++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
