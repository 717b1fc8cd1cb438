// SPDX-License-Identifier: GPL-2.0
/*
 * B1 runner: for each N, ROUNDS rounds; in each round every loop form runs
 * (in an order that rotates from round to round) K times, and the fastest
 * of the K is kept: what the loop costs when nothing else interrupts it.
 * Prints one line per form, N and round:
 *   @@r B1 FORM N ROUND NS       (ns measured inside the program)
 *   loops ROUNDS N...             (N = 0 measures the loop's fixed cost)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "loops.skel.h"

#define FOR_MAX 4000	/* as in loops.bpf.c */

static struct loops_bpf *skel;

static const char *const forms[] = { "kit_num", "bpf_iter_num", "bpf_loop", "for" };
#define NFORMS 4

static struct bpf_program *form_prog(int f)
{
	switch (f) {
	case 0: return skel->progs.loop_kit_num;
	case 1: return skel->progs.loop_num;
	case 2: return skel->progs.loop_bpf_loop;
	default: return skel->progs.loop_for;
	}
}

/* One run: the ns the program measured around its loop. */
static unsigned long long run(int f, unsigned int n)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	long long want = (long long)n * (n - 1) / 2;

	skel->bss->n = n;
	skel->bss->sum = -1;
	if (bpf_prog_test_run_opts(bpf_program__fd(form_prog(f)), &opts)) {
		fprintf(stderr, "loops: running %s failed: %s\n", forms[f], strerror(errno));
		exit(1);
	}
	if (skel->bss->sum != (n ? want : 0)) {
		fprintf(stderr, "loops: %s over [0, %u) summed %lld, not %lld\n", forms[f], n,
			(long long)skel->bss->sum, want);
		exit(1);
	}
	return skel->bss->elapsed;
}

int main(int argc, char **argv)
{
	int rounds, a, r, i, k, f;

	if (argc < 3 || (rounds = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: loops ROUNDS N...\n");
		return 2;
	}
	skel = loops_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "loops: loading failed: %s (is iterkit.ko loaded?)\n", strerror(errno));
		return 1;
	}
	for (a = 2; a < argc; a++) {
		unsigned int n = strtoul(argv[a], NULL, 0);
		/* the longest runs are the likeliest to be interrupted: more tries */
		int reps = n >= 1000000 ? 9 : 7;

		for (f = 0; f < NFORMS; f++)
			if (f != 3 || n <= FOR_MAX)
				run(f, n);	/* warm-up */
		for (r = 0; r < rounds; r++) {
			for (i = 0; i < NFORMS; i++) {
				unsigned long long best = ~0ULL;

				f = (i + r) % NFORMS;
				if (f == 3 && n > FOR_MAX)
					continue;
				for (k = 0; k < reps; k++) {
					unsigned long long t = run(f, n);

					if (t < best)
						best = t;
				}
				printf("@@r B1 %s %u %d %llu\n", forms[f], n, r, best);
			}
		}
		fflush(stdout);
	}
	loops_bpf__destroy(skel);
	return 0;
}
