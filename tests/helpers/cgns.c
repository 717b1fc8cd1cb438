// SPDX-License-Identifier: GPL-2.0
/*
 * cgns COMMAND [ARG...]: runs COMMAND in a new cgroup namespace rooted at
 * the caller's cgroup (busybox's unshare has no -C). With busybox's
 * `unshare -p -f --mount-proc` after it, the test VM gets a container as
 * systemd-nspawn or podman make one: its own pid, cgroup and mount
 * namespaces.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: cgns COMMAND [ARG...]\n");
		return 2;
	}
	if (unshare(CLONE_NEWCGROUP)) {
		fprintf(stderr, "cgns: unshare(CLONE_NEWCGROUP): %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "cgns: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
