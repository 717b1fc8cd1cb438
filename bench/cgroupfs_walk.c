// SPDX-License-Identifier: GPL-2.0
/*
 * B4 baseline: what `iterkit cgroups --json` prints (id, level, parent,
 * member processes, name, path), read from the cgroup v2 directory tree:
 * a directory's inode is the cgroup id, cgroup.procs lists its members.
 *   cgroupfs_walk [--repeat N]
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define ROOT "/sys/fs/cgroup"

static char out_buf[1 << 20];
static int n;

static int count_procs(int dirfd)
{
	char buf[65536];
	int fd = openat(dirfd, "cgroup.procs", O_RDONLY), lines = 0;
	ssize_t r, i;

	if (fd < 0)
		return -1;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < r; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

static void walk(int dirfd, const char *name, const char *path, unsigned long parent, int level)
{
	struct dirent *e;
	struct stat st;
	char sub[4096];
	DIR *d;

	if (fstat(dirfd, &st))
		return;
	printf("%s{\"id\":%lu,\"level\":%d,\"parent\":%lu,\"procs\":%d,\"name\":\"%s\",\"path\":\"%s\"}",
	       n++ ? ",\n" : "\n", (unsigned long)st.st_ino, level, parent, count_procs(dirfd), name,
	       path);
	d = fdopendir(dirfd);
	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", path, path[1] ? "/" : "", e->d_name);
		walk(fd, e->d_name, sub, st.st_ino, level + 1);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	long repeat = 1, i;

	if (argc == 3 && !strcmp(argv[1], "--repeat"))
		repeat = atol(argv[2]);
	else if (argc != 1)
		return fprintf(stderr, "usage: cgroupfs_walk [--repeat N]\n"), 2;
	setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
	for (i = 0; i < repeat; i++) {
		int fd = open(ROOT, O_RDONLY | O_DIRECTORY);

		if (fd < 0)
			return 1;
		n = 0;
		printf("{\"iterator\":\"cgroupfs\",\"cgroups\":[");
		walk(fd, "", "/", 0, 0);
		printf("\n],\"count\":%d}\n", n);
	}
	return 0;
}
