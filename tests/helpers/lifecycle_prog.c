// SPDX-License-Identifier: GPL-2.0
/*
 * For the life-cycle test: loads programs that use iterkit's kfuncs, attaches
 * one to raw_tp/sys_enter, prints "running", and runs the other in a loop
 * until a line (or EOF) arrives on stdin; then prints what ran and exits.
 * Exit status: 0 after running, 3 when the programs could not be loaded
 * (the module is not there), 1 on anything else.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lifecycle.skel.h"
#include "../kselftest/prog_run.h"

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

int main(void)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	struct lifecycle_bpf *skel;
	unsigned long long bad;

	libbpf_set_print(quiet);
	skel = lifecycle_bpf__open_and_load();
	if (!skel) {
		printf("not loaded: %s\n", strerror(errno));
		return 3;
	}
	if (lifecycle_bpf__attach(skel)) {
		printf("attach failed: %s\n", strerror(errno));
		lifecycle_bpf__destroy(skel);
		return 1;
	}
	printf("running\n");
	fflush(stdout);
	do {
		int ret = kit_prog_run(skel->progs.run);

		if (ret < 0) {
			printf("run failed: %s\n", strerror(-ret));
			lifecycle_bpf__destroy(skel);
			return 1;
		}
	} while (poll(&pfd, 1, 0) == 0);
	bad = skel->bss->bad;
	printf("runs %llu fires %llu bad %llu\n", (unsigned long long)skel->bss->runs,
	       (unsigned long long)skel->bss->fires, bad);
	if (bad)
		printf("bad walks: kit_num %llu testmod_seq %llu kit_task %llu kit_cgroup %llu\n",
		       (unsigned long long)skel->bss->bad_kind[0], (unsigned long long)skel->bss->bad_kind[1],
		       (unsigned long long)skel->bss->bad_kind[2], (unsigned long long)skel->bss->bad_kind[3]);
	lifecycle_bpf__destroy(skel);
	return bad ? 1 : 0;
}
