/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What threads.bpf.c leaves in its globals for the loader. */
#ifndef THREADS_H
#define THREADS_H

#define THREADS_TOP 16		/* the most processes listed */

enum threads_status {
	THREADS_NOT_RUN,
	THREADS_COUNTED,	/* counted in the kernel with kit_task */
	THREADS_NO_MODULE,	/* no iterkit kfuncs in the kernel: the module is not loaded */
	THREADS_NO_WALKERS,	/* iterkit without kit_task: built for a kernel before 6.7 */
};

struct threads_totals {
	__u32 procs;		/* user processes */
	__u32 threads;		/* their threads */
	__u32 kthreads;		/* kernel threads */
};

struct threads_proc {
	__u32 pid;
	__u32 uid;
	__u32 threads;
	char comm[16];
};

#endif
