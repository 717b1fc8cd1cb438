/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What cgtop.bpf.c sends user space for each cgroup of a sample. */
#ifndef CGTOP_H
#define CGTOP_H

#define CGTOP_NAME_LEN 256	/* NAME_MAX + 1: no cgroup name is cut */

struct cgtop_rec {
	__u64 id;		/* the cgroup's id (its inode number in cgroupfs) */
	__u32 level;		/* depth in the hierarchy, the root is 0 */
	__u32 procs;		/* processes whose leader is here and that have a live thread */
	__u32 threads;		/* live threads here */
	char name[CGTOP_NAME_LEN];
};

#endif
