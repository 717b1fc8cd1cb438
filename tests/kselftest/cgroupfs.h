/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroupfs helpers the kselftests share: a directory's id (its inode
 * number), removing a tree, and waiting for removed cgroups to be released.
 */
#ifndef ITERKIT_KSFT_CGROUPFS_H
#define ITERKIT_KSFT_CGROUPFS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The cgroup id of a cgroupfs directory: its inode number (0: no such path). */
static inline unsigned long long ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

/* rmdir children first; cgroupfs only removes empty directories. */
static inline void remove_tree(const char *dir)
{
	char sub[512];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= (int)sizeof(sub))
			continue;
		remove_tree(sub);
	}
	closedir(d);
	rmdir(dir);
}

/* The value of @key in @dir's cgroup.stat, or -1. */
static inline long cgroup_stat(const char *dir, const char *key)
{
	char path[512], k[64];
	long v, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", k, &v) == 2)
		if (!strcmp(k, key))
			found = v;
	fclose(f);
	return found;
}

/* nr_dying_descendants of @dir's cgroup.stat, or -1. */
static inline long nr_dying(const char *dir)
{
	return cgroup_stat(dir, "nr_dying_descendants");
}

/*
 * Waits up to 20 s (the debug kernel releases slowly) for @dir to have no
 * dying descendants left; returns how many are still dying.
 */
static inline long wait_no_dying(const char *dir)
{
	long n = -1;
	int i;

	for (i = 0; i < 200; i++) {
		n = nr_dying(dir);
		if (n == 0)
			break;
		usleep(100000);
	}
	return n;
}

#endif
