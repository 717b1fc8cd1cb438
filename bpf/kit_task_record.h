/* SPDX-License-Identifier: GPL-2.0 */
/* What `iterkit tasks` gets from the kernel for each task (BPF and loader). */
#ifndef __ITERKIT_KIT_TASK_RECORD_H
#define __ITERKIT_KIT_TASK_RECORD_H

struct kit_task_rec {
	__s32 pid;		/* thread id */
	__s32 tgid;		/* process id */
	__s32 ppid;		/* tgid of real_parent, 0 for pid 0 and 1, as /proc */
	__u32 uid;		/* real uid */
	__u32 state;		/* task->__state */
	__u32 exit_state;
	__u32 flags;		/* PF_* */
	__s32 nr_threads;	/* threads in its process */
	char comm[16];
};

#endif
