/* SPDX-License-Identifier: GPL-2.0 */
/* What `iterkit tasks` gets from the kernel for each task (BPF and loader). */
#ifndef __ITERKIT_KIT_TASK_RECORD_H
#define __ITERKIT_KIT_TASK_RECORD_H

/*
 * Ids are the task's in the caller's pid namespace (0 for a parent outside
 * it, as /proc says), or in the initial one for the host view.
 */
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

/* BPF and the loader must agree on the layout (each is built by another compiler). */
_Static_assert(sizeof(struct kit_task_rec) == 48, "kit_task_rec is 48 bytes");
_Static_assert(_Alignof(struct kit_task_rec) == 4, "kit_task_rec is 4-byte aligned");

#endif
