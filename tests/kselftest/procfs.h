/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc helpers the tests share: a set of tasks as /proc describes them,
 * and reading one task's stat line (whose comm may hold any byte).
 */
#ifndef ITERKIT_KSFT_PROCFS_H
#define ITERKIT_KSFT_PROCFS_H

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct task_info {
	int tid, tgid, ppid;
	char comm[64];	/* /proc adds a workqueue's name to a kworker's comm */
};

struct task_set {
	struct task_info *v;
	int n, cap;
};

static inline void set_add(struct task_set *s, const struct task_info *t)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 512;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	s->v[s->n++] = *t;
}

static inline const struct task_info *set_find(const struct task_set *s, int tid)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].tid == tid)
			return &s->v[i];
	return NULL;
}

/* "tid (comm) S ppid ...": comm runs to the last ')'. */
static inline int read_stat(const char *path, struct task_info *t)
{
	char buf[512], *lp, *rp;
	ssize_t len;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	lp = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp || rp - lp - 1 > 63)
		return -1;
	memcpy(t->comm, lp + 1, rp - lp - 1);
	t->comm[rp - lp - 1] = '\0';
	t->tid = atoi(buf);
	if (sscanf(rp + 2, "%*c %d", &t->ppid) != 1)
		return -1;
	return 0;
}


/* Every process (@threads: every thread) /proc lists now, into @s. */
static inline void proc_snapshot(struct task_set *s, bool threads)
{
	DIR *procs = opendir("/proc");
	struct dirent *p, *t;
	char path[600];

	s->n = 0;
	while (procs && (p = readdir(procs))) {
		struct task_info ti;
		DIR *tasks;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		if (!threads) {
			snprintf(path, sizeof(path), "/proc/%s/stat", p->d_name);
			if (!read_stat(path, &ti)) {
				ti.tgid = ti.tid;
				set_add(s, &ti);
			}
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		while (tasks && (t = readdir(tasks))) {
			if (t->d_name[0] < '1' || t->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", p->d_name, t->d_name);
			if (!read_stat(path, &ti)) {
				ti.tgid = atoi(p->d_name);
				set_add(s, &ti);
			}
		}
		if (tasks)
			closedir(tasks);
	}
	if (procs)
		closedir(procs);
}

#endif
