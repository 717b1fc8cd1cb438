// SPDX-License-Identifier: GPL-2.0
/*
 * kit_num against the kernel's bpf_iter_num: the same BPF loop over
 * [0, N) with each, run alternately, timed from userspace around
 * BPF_PROG_TEST_RUN. Prints the median ns per element and the ratio.
 *   num_bench [N] [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "num_parity.skel.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double run(struct num_parity_bpf *skel, struct bpf_program *prog, int n)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	double t;

	memset(&skel->bss->res, 0, sizeof(skel->bss->res));
	skel->bss->in.start = 0;
	skel->bss->in.end = n;
	skel->bss->in.fetches = 0;
	t = now_ns();
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts) || skel->bss->res.count != (unsigned)n) {
		fprintf(stderr, "num_bench: run failed (count %llu)\n", skel->bss->res.count);
		exit(1);
	}
	return (now_ns() - t) / n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 9;
	double kit[64], num[64], ratio[64];
	struct num_parity_bpf *skel;
	int i;

	if (rounds < 1 || rounds > 64 || n < 1) {
		fprintf(stderr, "usage: num_bench [N] [ROUNDS<=64]\n");
		return 2;
	}
	skel = num_parity_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "num_bench: loading failed\n");
		return 1;
	}
	run(skel, skel->progs.walk_kit_num, n);	/* warm-up */
	run(skel, skel->progs.walk_num, n);
	for (i = 0; i < rounds; i++) {
		kit[i] = run(skel, skel->progs.walk_kit_num, n);
		num[i] = run(skel, skel->progs.walk_num, n);
		ratio[i] = kit[i] / num[i];
	}
	qsort(kit, rounds, sizeof(double), cmp);
	qsort(num, rounds, sizeof(double), cmp);
	qsort(ratio, rounds, sizeof(double), cmp);
	printf("elements per run: %d, rounds: %d\n", n, rounds);
	printf("kit_num (module kfuncs):        %.2f ns/element (median)\n", kit[rounds / 2]);
	printf("bpf_iter_num (kernel kfuncs):   %.2f ns/element (median)\n", num[rounds / 2]);
	printf("ratio kit_num / bpf_iter_num:   %.3f (median of pairs; min %.3f, max %.3f)\n",
	       ratio[rounds / 2], ratio[0], ratio[rounds - 1]);
	num_parity_bpf__destroy(skel);
	return 0;
}
