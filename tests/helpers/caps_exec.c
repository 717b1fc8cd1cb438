// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * Runs a command with fewer privileges, for the loader's messages about
 * capabilities:
 *   caps_exec uid UID COMMAND...     as user UID (no capabilities)
 *   caps_exec drop CAP,... COMMAND...  as root without the capabilities
 *                                      named (numbers: 21 CAP_SYS_ADMIN,
 *                                      38 CAP_PERFMON, 39 CAP_BPF)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <grp.h>

int main(int argc, char **argv)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	char *list, *tok;

	if (argc < 4) {
		fprintf(stderr, "usage: caps_exec uid UID | drop CAP,... COMMAND...\n");
		return 2;
	}
	if (!strcmp(argv[1], "uid")) {
		uid_t uid = atoi(argv[2]);

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
			perror("caps_exec: setuid");
			return 1;
		}
	} else if (!strcmp(argv[1], "drop")) {
		if (syscall(SYS_capget, &h, d)) {
			perror("caps_exec: capget");
			return 1;
		}
		list = strdup(argv[2]);
		for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
			int cap = atoi(tok);

			/* the bounding set too: exec as root would give everything back */
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
				perror("caps_exec: PR_CAPBSET_DROP");
				return 1;
			}
			d[cap / 32].effective &= ~(1u << (cap % 32));
			d[cap / 32].permitted &= ~(1u << (cap % 32));
			d[cap / 32].inheritable &= ~(1u << (cap % 32));
		}
		if (syscall(SYS_capset, &h, d)) {
			perror("caps_exec: capset");
			return 1;
		}
	} else {
		fprintf(stderr, "caps_exec: '%s': uid or drop\n", argv[1]);
		return 2;
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "caps_exec: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
