/* SPDX-License-Identifier: GPL-2.0 */
/* The cgroup walk's records, shared by bpf/kit_cgroup.bpf.c and the loader. */
#ifndef __ITERKIT_KIT_CGROUP_H
#define __ITERKIT_KIT_CGROUP_H

#define KIT_CGROUP_NAME_LEN 128
/* Ancestors one run of the walk program keeps (a deeper start takes more runs). */
#define KIT_CGROUP_MAX_ANCESTORS 64

struct kit_cgroup_rec {
	__u64 id;		/* cgroup v2 id = inode number of its directory */
	__u64 parent_id;	/* 0 for the root */
	__u32 level;		/* 0 for the root */
	__s32 nr_procs;		/* member processes; -1 when not counted */
	__u32 online;		/* 0: removed (rmdir) but not yet freed, a dying cgroup */
	__u32 __pad;
	char name[KIT_CGROUP_NAME_LEN];
};

/* BPF and the loader must agree on the layout (each is built by another compiler). */
_Static_assert(sizeof(struct kit_cgroup_rec) == 160, "kit_cgroup_rec is 160 bytes");
_Static_assert(_Alignof(struct kit_cgroup_rec) == 8, "kit_cgroup_rec is 8-byte aligned");

#endif
