// SPDX-License-Identifier: GPL-2.0
/*
 * B5 runner: the cost of kit_cgroup's new() for one cgroup, from a syscall
 * program and from a raw_tp (not preemptible), in rounds whose order
 * alternates; the fastest of K runs is kept per round. Prints
 *   @@r B5 CASE CONTEXT POPULATION ROUND NS-PER-CALL
 *   lookups ROUNDS CASE POPULATION CGROUP-DIR [JOIN-DIR]
 * With JOIN-DIR the runner first moves itself into that cgroup (its own
 * cgroup is then the one new() finds without a walk).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lookups.skel.h"

#define REPS 5

static struct lookups_bpf *skel;

static double run(struct bpf_program *prog)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts) || opts.retval || skel->bss->ret) {
		fprintf(stderr, "lookups: %s failed: %s (retval %d, new() %d)\n",
			bpf_program__name(prog), strerror(errno), opts.retval, skel->bss->ret);
		exit(1);
	}
	return (double)skel->bss->elapsed / skel->bss->reps;
}

int main(int argc, char **argv)
{
	struct bpf_program *progs[2];
	const char *names[2] = { "syscall", "raw_tp" };
	struct stat st;
	int rounds, r, i, k;

	if (argc < 5 || (rounds = atoi(argv[1])) < 1 || stat(argv[4], &st)) {
		fprintf(stderr, "usage: lookups ROUNDS CASE POPULATION CGROUP-DIR [JOIN-DIR]\n");
		return 2;
	}
	if (argc > 5) {
		char path[512];
		int fd;

		snprintf(path, sizeof(path), "%s/cgroup.procs", argv[5]);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, "0", 1) != 1) {
			fprintf(stderr, "lookups: joining %s: %s\n", argv[5], strerror(errno));
			return 1;
		}
		close(fd);
	}
	skel = lookups_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "lookups: loading failed: %s\n", strerror(errno));
		return 1;
	}
	progs[0] = skel->progs.lookup_syscall;
	progs[1] = skel->progs.lookup_raw_tp;
	skel->bss->id = st.st_ino;
	/* About a millisecond per run however long one call takes. */
	skel->bss->reps = 1;
	run(progs[1]);
	skel->bss->reps = 1000000 / (skel->bss->elapsed + 1) + 1;
	if (skel->bss->reps > 10000)
		skel->bss->reps = 10000;
	run(progs[0]);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 2; i++) {
			int p = (i + r) % 2;
			double best = 1e30, ns;

			for (k = 0; k < REPS; k++) {
				ns = run(progs[p]);
				if (ns < best)
					best = ns;
			}
			printf("@@r B5 %s %s %s %d %.1f\n", argv[2], names[p], argv[3], r, best);
		}
	}
	fflush(stdout);
	lookups_bpf__destroy(skel);
	return 0;
}
