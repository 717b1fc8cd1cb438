// SPDX-License-Identifier: GPL-2.0
/*
 * B4 baseline: what `iterkit tasks --json` prints (pid, tid, ppid, uid,
 * state, threads, kthread, comm), read from /proc/PID/stat and
 * /proc/PID/status the way procfs readers do, --repeat N times.
 *   procfs_tasks [--repeat N]
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000

static char out_buf[1 << 20];

static int slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static void put_comm(const char *s, size_t n)
{
	size_t i;

	putchar('"');
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void walk(void)
{
	char path[300], stat[1024], status[4096];
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		exit(1);
	printf("{\"tasks\":[\n");
	while ((e = readdir(d))) {
		unsigned int uid = 0, flags = 0;
		int pid, ppid, threads = 0;
		char state, *lp, *rp, *u, *th;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (slurp(path, stat, sizeof(stat)))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		if (slurp(path, status, sizeof(status)))
			continue;
		lp = strchr(stat, '(');
		rp = strrchr(stat, ')');
		if (!lp || !rp)
			continue;
		pid = atoi(stat);
		/* state ppid pgrp session tty_nr tpgid flags */
		if (sscanf(rp + 2, "%c %d %*d %*d %*d %*d %u", &state, &ppid, &flags) != 3)
			continue;
		u = strstr(status, "\nUid:");
		th = strstr(status, "\nThreads:");
		if (u)
			uid = strtoul(u + 5, NULL, 10);
		if (th)
			threads = atoi(th + 9);
		printf("%s{\"pid\":%d,\"tid\":%d,\"ppid\":%d,\"uid\":%u,\"state\":\"%c\",\"threads\":%d,\"kthread\":%s,\"comm\":",
		       n ? ",\n" : "", pid, pid, ppid, uid, state, threads,
		       flags & PF_KTHREAD ? "true" : "false");
		put_comm(lp + 1, rp - lp - 1);
		putchar('}');
		n++;
	}
	closedir(d);
	printf("\n],\"count\":%d}\n", n);
}

int main(int argc, char **argv)
{
	long repeat = 1, i;

	if (argc == 3 && !strcmp(argv[1], "--repeat"))
		repeat = atol(argv[2]);
	else if (argc != 1)
		return fprintf(stderr, "usage: procfs_tasks [--repeat N]\n"), 2;
	setvbuf(stdout, out_buf, _IOFBF, sizeof(out_buf));
	for (i = 0; i < repeat; i++)
		walk();
	return 0;
}
