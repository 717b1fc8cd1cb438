// SPDX-License-Identifier: GPL-2.0
/*
 * hold_threads N: a process with N threads besides its main one, all
 * blocked until it is killed. Prints "ready" once every thread runs, so a
 * test can count them (the examples' test: cgtop's and threads' counts).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t started;

static void *hold(void *arg)
{
	pthread_barrier_wait(&started);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc == 2 ? atoi(argv[1]) : -1, i;
	pthread_t t;

	if (n < 1 || n > 1000) {
		fprintf(stderr, "usage: hold_threads N (1 to 1000)\n");
		return 2;
	}
	pthread_barrier_init(&started, NULL, n + 1);
	for (i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, hold, NULL)) {
			perror("hold_threads: pthread_create");
			return 1;
		}
	}
	pthread_barrier_wait(&started);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
