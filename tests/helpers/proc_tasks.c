// SPDX-License-Identifier: GPL-2.0
/* proc_tasks: the data of `iterkit tasks --json` (pid, tid, ppid, uid,
 * state, threads, comm) read from /proc, for the benchmark's baseline.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int main(void)
{
	char path[300], stat[1024], status[4096], comm[64], *lp, *rp, *u, *th;
	DIR *d = opendir("/proc");
	struct dirent *e;
	int first = 1, n = 0;

	if (!d)
		return 1;
	printf("{\"tasks\":[\n");
	while ((e = readdir(d))) {
		unsigned int uid = 0;
		int pid, ppid, threads = 0;
		char state;

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
		if (!lp || !rp || rp - lp - 1 >= (long)sizeof(comm))
			continue;
		memcpy(comm, lp + 1, rp - lp - 1);
		comm[rp - lp - 1] = '\0';
		pid = atoi(stat);
		if (sscanf(rp + 2, "%c %d", &state, &ppid) != 2)
			continue;
		u = strstr(status, "\nUid:");
		th = strstr(status, "\nThreads:");
		if (u)
			uid = strtoul(u + 5, NULL, 10);
		if (th)
			threads = atoi(th + 9);
		printf("%s{\"pid\":%d,\"tid\":%d,\"ppid\":%d,\"uid\":%u,\"state\":\"%c\",\"threads\":%d,\"comm\":\"%s\"}",
		       first ? "" : ",\n", pid, pid, ppid, uid, state, threads, comm);
		first = 0;
		n++;
	}
	closedir(d);
	printf("\n],\"count\":%d}\n", n);
	return 0;
}
