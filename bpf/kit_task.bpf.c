// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit tasks: one kit_task walk in the kernel, each task written to its
 * slot of a memory-mapped array that the loader sized before loading.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iterkit.bpf.h"
#include "shared.h"
#include "kit_task_record.h"

int pid;		/* in: tgid for KIT_TASK_PROC_THREADS, else 0 */
unsigned int flags;	/* in: KIT_TASK_* */
int ret;		/* out: bpf_iter_kit_task_new()'s result */
__u64 count;		/* out: tasks the walk produced (records beyond the array are not kept) */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct kit_task_rec);
	__uint(max_entries, 1);		/* the loader sizes it before loading */
} records SEC(".maps");

SEC("syscall")
int kit_task_walk(void *ctx)
{
	struct bpf_iter_kit_task it;
	struct task_struct *t;

	/* Outputs start from zero on every run: a resident program is run many times. */
	count = 0;
	ret = 0;
	/* Sleepable program: the walk and every read of t sit in one RCU section. */
	bpf_rcu_read_lock();
	ret = bpf_iter_kit_task_new(&it, pid, flags);
	while ((t = bpf_iter_kit_task_next(&it))) {
		/* A counter read back from memory keeps the loop states converging. */
		__u32 slot = count;
		struct kit_task_rec *r;
		struct task_struct *u;

		count = slot + 1;
		r = bpf_map_lookup_elem(&records, &slot);
		if (!r)
			continue;	/* past the array: counted, so the loader sees it */
		r->pid = t->pid;
		r->tgid = t->tgid;
		/*
		 * Pointer fields are read through a read-only cast, not straight from
		 * the trusted t: for each pointer loaded from a trusted pointer, the
		 * 6.12 verifier looks up four "__safe_*" type names in the whole
		 * vmlinux BTF (~40 ms of load time under emulation for these three);
		 * through the cast they are plain loads that may fault (no helper
		 * call per field, as BPF_CORE_READ would make).
		 */
		u = bpf_core_cast(t, struct task_struct);
		r->ppid = u->real_parent->tgid;
		r->uid = u->cred->uid.val;
		r->nr_threads = u->signal->nr_threads;
		r->state = t->__state;
		r->exit_state = t->exit_state;
		r->flags = t->flags;
		__builtin_memcpy(r->comm, t->comm, sizeof(r->comm));
	}
	bpf_iter_kit_task_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
