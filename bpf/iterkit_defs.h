/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * iterkit_defs.h - the values iterkit's module, BPF programs, the loader and
 * the tests share: iterator flags and orders, caps, and the size of each
 * iterator's state on a program's stack.
 *
 * Plain C with no includes: the module (kernel), BPF programs (through
 * iterkit.bpf.h), the loader and the tests (userspace) all include this one
 * file, so none of them keeps a copy. The module checks at build time that
 * these agree with the kernel's own values where there are any
 * (BPF_CGROUP_ITER_*, BPF_MAX_LOOPS, PID_MAX_LIMIT) and that its state
 * fits the sizes below, which the module's and iterkit.bpf.h's struct
 * bpf_iter_<kind> both use.
 */
#ifndef __ITERKIT_DEFS_H
#define __ITERKIT_DEFS_H

/* kit_task's flags: KIT_TASK_ALL_PROCS and KIT_TASK_ALL_THREADS take pid 0,
 * KIT_TASK_PROC_THREADS the tgid of the process (in the initial pid namespace).
 */
enum {
	KIT_TASK_ALL_PROCS = 0,
	KIT_TASK_ALL_THREADS = 1,
	KIT_TASK_PROC_THREADS = 2,
};

/* kit_cgroup's orders: enum bpf_cgroup_iter_order's values (0 behaves as
 * DESCENDANTS_PRE), and KIT_CGROUP_CHILDREN.
 */
enum {
	KIT_CGROUP_UNSPEC = 0,
	KIT_CGROUP_SELF_ONLY = 1,
	KIT_CGROUP_DESCENDANTS_PRE = 2,
	KIT_CGROUP_DESCENDANTS_POST = 3,
	KIT_CGROUP_ANCESTORS_UP = 4,
	KIT_CGROUP_CHILDREN = 5,
};

/* The longest range kit_num takes (the kernel's BPF_MAX_LOOPS, as bpf_iter_num). */
#define KIT_NUM_MAX_RANGE (8 * 1024 * 1024)

/*
 * The walkers' built-in caps: most elements one walk yields, so next()
 * returns NULL after at most CAP + 1 calls however the system changes under
 * it. The module's max_steps parameter can only lower them.
 * kit_task: PID_MAX_LIMIT of a 64-bit kernel (no more tasks can exist at one
 * instant). kit_cgroup and kit_cgroup_at: 2^20, far beyond any real
 * hierarchy (the memory controller alone caps live memory cgroups at 65535).
 */
#define KIT_TASK_MAX_STEPS (4 * 1024 * 1024)
#define KIT_CGROUP_MAX_STEPS (1024 * 1024)

/*
 * kit_cgroup's lock-free id lookup gives up with -E2BIG after this many
 * cgroups in hard interrupt and NMI context (elsewhere its budget is
 * KIT_CGROUP_MAX_STEPS).
 */
#define KIT_CGROUP_LOOKUP_STEPS_IRQ 4096

/* Each iterator's state on the program's stack, in 8-byte words. */
#define KIT_NUM_ITER_WORDS 1
#define KIT_TESTMOD_SEQ_ITER_WORDS 2
#define KIT_TASK_ITER_WORDS 3
#define KIT_CGROUP_ITER_WORDS 3

#endif /* __ITERKIT_DEFS_H */
