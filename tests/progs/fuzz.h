/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kfunc fuzzer's shared layout (tests/progs/fuzz.bpf.c and
 * tests/kselftest/fuzz.c): user space fills cases[] with arguments and the
 * result the documented contract demands; the BPF program calls the
 * constructors, walks, abandons walks early, calls next() after the end,
 * and checks every result itself.
 */
#ifndef __ITERKIT_FUZZ_H
#define __ITERKIT_FUZZ_H

#define FUZZ_MAX_CASES	4096
#define FUZZ_MAX_BAD	16

enum fuzz_kind {
	FUZZ_NUM = 0,
	FUZZ_SEQ = 1,
	FUZZ_TASK = 2,
	FUZZ_CGROUP = 3,
	FUZZ_CGROUP_AT = 4,	/* kit_cgroup_at from the cgroup the id names */
	FUZZ_KINDS = 5,
};

/* What a failed check was about (fuzz_bad.what). */
enum fuzz_what {
	FUZZ_BAD_RET = 1,	/* new() returned neither want nor want_alt */
	FUZZ_BAD_NOT_EMPTY,	/* an error left a non-empty iterator */
	FUZZ_BAD_VALUE,		/* an element had the wrong value */
	FUZZ_BAD_COUNT,		/* a full walk's length is out of [min_n, max_n] */
	FUZZ_BAD_AFTER_END,	/* next() returned an element after NULL */
	FUZZ_BAD_SHAPE,		/* a walk's first/last/parent/level is wrong */
	FUZZ_BAD_ABANDON,	/* an abandoned walk yielded more than asked */
};

struct fuzz_case {
	__u32 kind;		/* enum fuzz_kind */
	__u32 flags;		/* kit_task flags, kit_cgroup order */
	__s64 a;		/* num: start; seq: value; task: pid; cgroup: id */
	__s64 b;		/* num: end; seq: cnt */
	__s32 want;		/* the contract's new() result */
	__s32 want_alt;		/* a second acceptable one (races), else = want */
	__u32 take;		/* next() calls before abandoning; 0: to the end */
	__u32 after;		/* next() calls once next() returned NULL */
	__s64 min_n, max_n;	/* length of a full walk when new() returned 0 */
	__u64 start_id;		/* cgroup: the start's real id (for id 0, the root's) */
};

struct fuzz_bad {
	__u32 index;		/* case index */
	__u32 what;		/* enum fuzz_what */
	__s64 got;		/* new()'s result, or the count, or the value */
	__s64 n;		/* elements seen */
};

struct fuzz_stats {
	__u64 calls[FUZZ_KINDS];	/* constructor calls */
	__u64 errors[FUZZ_KINDS];	/* constructor calls that returned an errno */
	__u64 elements[FUZZ_KINDS];	/* elements yielded */
	__u64 abandoned;		/* walks destroyed before their end */
	__u64 after_end;		/* next() calls after the end (all NULL) */
	__u64 nr_bad;			/* failed checks */
	struct fuzz_bad bad[FUZZ_MAX_BAD];
};

#endif
