/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads parked in this process, for the kselftests that need a live
 * multi-threaded process to walk (PROC_THREADS, a thread id to look up).
 */
#ifndef ITERKIT_KSFT_PARK_H
#define ITERKIT_KSFT_PARK_H

#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define PARK_MAX 16

static pthread_t parked[PARK_MAX];
static pid_t parked_tid[PARK_MAX];
static int nparked;
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cond = PTHREAD_COND_INITIALIZER;
static int park_release;

static void *park(void *arg)
{
	long i = (long)arg;

	pthread_mutex_lock(&park_lock);
	parked_tid[i] = syscall(SYS_gettid);
	pthread_cond_broadcast(&park_cond);
	while (!park_release)
		pthread_cond_wait(&park_cond, &park_lock);
	pthread_mutex_unlock(&park_lock);
	return NULL;
}

/* Makes this process have n threads in all (n <= PARK_MAX + 1). */
static inline int park_threads(int n)
{
	long i;

	park_release = 0;
	for (i = 0; i < n - 1; i++) {
		parked_tid[i] = 0;
		if (pthread_create(&parked[i], NULL, park, (void *)i))
			return -1;
	}
	nparked = n - 1;
	pthread_mutex_lock(&park_lock);
	for (i = 0; i < nparked; i++)
		while (!parked_tid[i])
			pthread_cond_wait(&park_cond, &park_lock);
	pthread_mutex_unlock(&park_lock);
	return 0;
}

static inline void unpark_threads(void)
{
	int i;

	pthread_mutex_lock(&park_lock);
	park_release = 1;
	pthread_cond_broadcast(&park_cond);
	pthread_mutex_unlock(&park_lock);
	for (i = 0; i < nparked; i++)
		pthread_join(parked[i], NULL);
	nparked = 0;
}

#endif
