// SPDX-License-Identifier: GPL-2.0
/*
 * The churn test's exec churner: starts EXEC_THREADS threads, and one of
 * them (never the leader) execs this program again, so the kernel's
 * de_thread() kills the others and makes the exec'ing thread the leader,
 * for ever. The process id stays the same throughout.
 *   exec_churn COUNTERS_FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "churn_counters.h"

#define EXEC_THREADS 4

static struct churn_counters *cnt;
static char **args;

static void *thread(void *arg)
{
	if ((long)arg == EXEC_THREADS - 1) {
		usleep(1000 + rand() % 2000);
		churn_count(cnt, execs, 1);
		execv("/proc/self/exe", args);
		perror("exec_churn: execv");
		exit(1);
	}
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	long i;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: exec_churn COUNTERS_FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror("exec_churn: open");
		return 1;
	}
	cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (cnt == MAP_FAILED) {
		perror("exec_churn: mmap");
		return 1;
	}
	args = argv;
	srand(getpid() ^ (unsigned int)churn_read(cnt, execs));
	for (i = 0; i < EXEC_THREADS; i++) {
		churn_count(cnt, clones, 1);
		if (pthread_create(&th, NULL, thread, (void *)i))
			return 1;
	}
	for (;;)
		pause();
}
