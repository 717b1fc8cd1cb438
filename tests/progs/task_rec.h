/* SPDX-License-Identifier: GPL-2.0 */
/* One task as tests/progs/kit_task_walks.bpf.c's record walk saw it. */
#ifndef __ITERKIT_TASK_REC_H
#define __ITERKIT_TASK_REC_H

struct task_rec {
	int tid, tgid, ppid;
	char comm[16];
};

#endif
