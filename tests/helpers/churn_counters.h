/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters the churn test's processes share through a file mapping
 * (tests/kselftest/churn.c, tests/helpers/exec_churn.c). Creations are
 * counted before they start, so a walk that reads the counters before and
 * after itself knows an upper bound of what was created meanwhile.
 */
#ifndef __ITERKIT_CHURN_COUNTERS_H
#define __ITERKIT_CHURN_COUNTERS_H

struct churn_counters {
	unsigned long long clones;	/* tasks about to be created: fork, threads */
	unsigned long long execs;	/* execve() from a non-leader thread */
	unsigned long long mkdirs;	/* cgroups about to be created */
	unsigned long long rmdirs;	/* cgroups removed */
	unsigned long long migrations;	/* processes moved to another cgroup */
	int exec_tgid;			/* the exec churner's process id */
};

#define churn_count(c, field, v) __atomic_fetch_add(&(c)->field, (v), __ATOMIC_SEQ_CST)
#define churn_read(c, field) __atomic_load_n(&(c)->field, __ATOMIC_SEQ_CST)

#endif
