/* SPDX-License-Identifier: GPL-2.0 */
/* The one BPF_PROG_TEST_RUN of the tests and their helpers. */
#ifndef ITERKIT_KSFT_PROG_RUN_H
#define ITERKIT_KSFT_PROG_RUN_H

#include <errno.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/*
 * Runs @prog once, with no input, on CPU @cpu (BPF_F_TEST_RUN_ON_CPU: a
 * raw_tp program runs there with preemption off), or where the caller runs
 * for a negative @cpu. Returns the program's return value, or -errno when
 * the run itself failed.
 */
static inline int kit_prog_run_on(struct bpf_program *prog, int cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (cpu >= 0) {
		opts.flags = BPF_F_TEST_RUN_ON_CPU;
		opts.cpu = cpu;
	}
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts))
		return -errno;
	return (int)opts.retval;
}

static inline int kit_prog_run(struct bpf_program *prog)
{
	return kit_prog_run_on(prog, -1);
}

#endif /* ITERKIT_KSFT_PROG_RUN_H */
