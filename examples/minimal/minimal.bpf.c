// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * minimal: the two value iterators of iterkit, kit_num and testmod_seq,
 * run once in the kernel with BPF_PROG_TEST_RUN. The loader next to this
 * file runs the SEC("syscall") program; `bpftool prog run` runs the
 * SEC("xdp") one, because bpftool always passes an output buffer and a
 * repeat count, which the kernel refuses for a syscall program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <iterkit/iterkit.bpf.h>

/*
 * Inputs, all in .data (num_start too, though it is 0): the loader sets them
 * before the run; bpftool runs with these.
 */
int num_start SEC(".data") = 0;
int num_end = 10;
__s64 seq_value = 7;
int seq_count = 3;

/* Outputs, in .bss: what the iterators yielded in the last run. */
__u32 num_values;
__s64 num_sum;
__u32 seq_values;
__s64 seq_sum;

static __always_inline void walk(void)
{
	__s64 *s;
	int *v;

	num_values = 0;
	num_sum = 0;
	seq_values = 0;
	seq_sum = 0;

	/* v points at each value of [num_start, num_end) in turn. */
	bpf_for_each(kit_num, v, num_start, num_end) {
		num_values++;
		num_sum += *v;
	}

	/* s points at seq_value, seq_count times. */
	bpf_for_each(testmod_seq, s, seq_value, seq_count) {
		seq_values++;
		seq_sum += *s;
	}
}

SEC("syscall")
int minimal(void *ctx)
{
	walk();
	return 0;
}

/* The same walk for `bpftool prog run`, which needs a packet to run it with. */
SEC("xdp")
int minimal_xdp(struct xdp_md *ctx)
{
	walk();
	return XDP_PASS;
}

/* kfuncs are for GPL-compatible programs only. */
char LICENSE[] SEC("license") = "Dual BSD/GPL";
