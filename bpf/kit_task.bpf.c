// SPDX-License-Identifier: GPL-2.0
/* iterkit tasks: one kit_task walk in the kernel, each task into a ring buffer. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "shared.h"
#include "kit_task_record.h"

int pid;		/* in: tgid for KIT_TASK_PROC_THREADS, else 0 */
unsigned int flags;	/* in: KIT_TASK_* */
int ret;		/* out: bpf_iter_kit_task_new()'s result */
__u64 count;		/* out: tasks the walk produced */
__u64 dropped;		/* out: tasks that did not fit in the ring buffer */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* the loader grows it when tasks are dropped */
} tasks SEC(".maps");

SEC("syscall")
int kit_task_walk(void *ctx)
{
	struct bpf_iter_kit_task it;
	struct task_struct *t;

	if (!bpf_ksym_exists(bpf_iter_kit_task_new) || !bpf_ksym_exists(bpf_rcu_read_lock))
		return KIT_ERR_NO_KFUNC;

	/* Sleepable program: the walk and every read of t sit in one RCU section. */
	bpf_rcu_read_lock();
	ret = bpf_iter_kit_task_new(&it, pid, flags);
	while ((t = bpf_iter_kit_task_next(&it))) {
		struct kit_task_rec *r;

		/* A counter read back from memory keeps the loop states converging. */
		count = count + 1;
		r = bpf_ringbuf_reserve(&tasks, sizeof(*r), 0);
		if (!r) {
			dropped = dropped + 1;
			continue;
		}
		r->pid = t->pid;
		r->tgid = t->tgid;
		r->ppid = t->real_parent->tgid;
		r->uid = t->cred->uid.val;
		r->state = t->__state;
		r->exit_state = t->exit_state;
		r->flags = t->flags;
		r->nr_threads = t->signal->nr_threads;
		__builtin_memcpy(r->comm, t->comm, sizeof(r->comm));
		bpf_ringbuf_submit(r, 0);
	}
	bpf_iter_kit_task_destroy(&it);
	bpf_rcu_read_unlock();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
