// SPDX-License-Identifier: GPL-2.0
/*
 * B2 runner: kit_task against bpf_iter_task, kit_cgroup against
 * bpf_iter_css, in rounds (the pair's order alternates), the fastest of K
 * runs kept per round. Prints
 *   @@r B2 WALK ITERATOR POPULATION ROUND NS COUNT
 *   walkers ROUNDS POPULATION-LABEL tasks|cgroups
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "walkers.skel.h"

#define REPS 5

static struct walkers_bpf *skel;

static void run(struct bpf_program *prog, unsigned int mode, unsigned long long *ns,
		unsigned long long *count)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	skel->bss->mode = mode;
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts) || opts.retval) {
		fprintf(stderr, "walkers: running %s failed: %s (retval %d)\n",
			bpf_program__name(prog), strerror(errno), opts.retval);
		exit(1);
	}
	*ns = skel->bss->elapsed;
	*count = skel->bss->count;
}

static void pair(const char *walk, unsigned int mode, const char *pop, int rounds,
		 struct bpf_program *kit, const char *kit_name,
		 struct bpf_program *ker, const char *ker_name)
{
	struct bpf_program *progs[2] = { kit, ker };
	const char *names[2] = { kit_name, ker_name };
	unsigned long long ns, count;
	int r, i, k;

	run(kit, mode, &ns, &count);	/* warm-up */
	run(ker, mode, &ns, &count);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 2; i++) {
			int p = (i + r) % 2;
			unsigned long long best = ~0ULL, best_count = 0;

			for (k = 0; k < REPS; k++) {
				run(progs[p], mode, &ns, &count);
				if (ns < best) {
					best = ns;
					best_count = count;
				}
			}
			printf("@@r B2 %s %s %s %d %llu %llu\n", walk, names[p], pop, r, best,
			       best_count);
		}
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int rounds;

	if (argc != 4 || (rounds = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: walkers ROUNDS POPULATION-LABEL tasks|cgroups\n");
		return 2;
	}
	skel = walkers_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "walkers: loading failed: %s\n", strerror(errno));
		return 1;
	}
	if (!strcmp(argv[3], "tasks")) {
		pair("procs", 0, argv[2], rounds, skel->progs.walk_kit_task, "kit_task",
		     skel->progs.walk_task, "bpf_iter_task");
		pair("threads", 1, argv[2], rounds, skel->progs.walk_kit_task, "kit_task",
		     skel->progs.walk_task, "bpf_iter_task");
	} else {
		pair("pre", 2, argv[2], rounds, skel->progs.walk_kit_cgroup, "kit_cgroup",
		     skel->progs.walk_css, "bpf_iter_css");
		pair("post", 3, argv[2], rounds, skel->progs.walk_kit_cgroup, "kit_cgroup",
		     skel->progs.walk_css, "bpf_iter_css");
	}
	walkers_bpf__destroy(skel);
	return 0;
}
