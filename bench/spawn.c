// SPDX-License-Identifier: GPL-2.0
/*
 * spawn N: starts N processes that sleep until their process group is
 * killed, prints "ready" once all exist, and sleeps too. The benchmarks'
 * task populations: kill -TERM -PID (the group) ends them.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc == 2 ? atol(argv[1]) : -1, i;

	if (n < 0) {
		fprintf(stderr, "usage: spawn N\n");
		return 2;
	}
	setpgid(0, 0);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("spawn: fork");
			return 1;
		}
		if (!pid) {
			for (;;)
				pause();
		}
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	fclose(stdout);
	for (;;)
		pause();
}
