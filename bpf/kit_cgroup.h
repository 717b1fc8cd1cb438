/* SPDX-License-Identifier: GPL-2.0 */
/* The cgroup walk's records, shared by bpf/kit_cgroup.bpf.c and the loader. */
#ifndef __ITERKIT_KIT_CGROUP_H
#define __ITERKIT_KIT_CGROUP_H

#define KIT_CGROUP_NAME_LEN 128
/* Deepest start whose full path the loader can rebuild. */
#define KIT_CGROUP_MAX_ANCESTORS 64

struct kit_cgroup_rec {
	__u64 id;		/* cgroup v2 id = inode number of its directory */
	__u64 parent_id;	/* 0 for the root */
	__u32 level;		/* 0 for the root */
	__s32 nr_procs;		/* member processes; -1 when not counted */
	char name[KIT_CGROUP_NAME_LEN];
};

#endif
