// SPDX-License-Identifier: GPL-2.0
/*
 * timeit: times whole commands, interleaved. Every round runs each command
 * once, starting one further along each round (A B C, B C A, ...), its
 * output thrown away; one line per run:
 *   @@r B4 LABEL ROUND NS PEAK_RSS_KIB EXIT_STATUS
 *   timeit ROUNDS LABEL CMD [ARG...] [:: LABEL CMD [ARG...]]...
 * A warm-up run of each command comes first and is not printed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define MAX_CMDS 16

struct cmd {
	const char *label;
	char **argv;
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void run(const struct cmd *c, long long *ns, long *rss, int *status)
{
	struct rusage ru;
	long long t0 = now_ns();
	pid_t pid = fork();

	if (pid < 0) {
		perror("timeit: fork");
		exit(1);
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execvp(c->argv[0], c->argv);
		_exit(127);
	}
	if (wait4(pid, status, 0, &ru) < 0) {
		perror("timeit: wait4");
		exit(1);
	}
	*ns = now_ns() - t0;
	*rss = ru.ru_maxrss;
}

int main(int argc, char **argv)
{
	struct cmd cmds[MAX_CMDS];
	int rounds, ncmds = 0, i, r;

	if (argc < 4 || (rounds = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: timeit ROUNDS LABEL CMD [ARG...] [:: LABEL CMD...]...\n");
		return 2;
	}
	for (i = 2; i < argc && ncmds < MAX_CMDS;) {
		cmds[ncmds].label = argv[i++];
		cmds[ncmds].argv = &argv[i];
		while (i < argc && strcmp(argv[i], "::"))
			i++;
		if (i < argc)
			argv[i++] = NULL;
		ncmds++;
	}
	for (i = 0; i < ncmds; i++) {
		long long ns;
		long rss;
		int st;

		run(&cmds[i], &ns, &rss, &st);
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < ncmds; i++) {
			const struct cmd *c = &cmds[(i + r) % ncmds];
			long long ns;
			long rss;
			int st;

			run(c, &ns, &rss, &st);
			printf("@@r B4 %s %d %lld %ld %d\n", c->label, r, ns, rss,
			       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			fflush(stdout);
		}
	}
	return 0;
}
