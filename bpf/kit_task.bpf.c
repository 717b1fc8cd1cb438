// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit tasks: one kit_task walk in the kernel, each task written to its
 * slot of a memory-mapped array that the loader sized before loading.
 *
 * Pid namespaces: kit_task walks every task and takes the tgid of the
 * initial pid namespace (its contract). Unless the host view is asked
 * for, this program shows what the caller's pid namespace shows: the
 * tasks visible there, with their ids there (a task's struct pid holds its
 * number at each level, numbers[level], as pid_nr_ns() reads it), and it
 * translates the caller's pid for KIT_TASK_PROC_THREADS.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iterkit.bpf.h"
#include "shared.h"
#include "kit_task_record.h"

#define ESRCH 3

int pid;		/* in: a tgid for KIT_TASK_PROC_THREADS, else 0 */
unsigned int flags;	/* in: KIT_TASK_* */
unsigned int host;	/* in: 1 for the ids of the initial pid namespace, all tasks */
int ret;		/* out: bpf_iter_kit_task_new()'s result */
__u64 count;		/* out: tasks the walk produced (records beyond the array are not kept) */
unsigned int ns_level;	/* out: the caller's pid namespace level (0: the initial one) */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct kit_task_rec);
	__uint(max_entries, 1);		/* the loader sizes it before loading */
} records SEC(".maps");

/*
 * The number of @p in the namespace at @level (@ns), 0 if @p is not seen
 * there: pid_nr_ns(). numbers[] is indexed by a run-time level, which a
 * BTF pointer cannot be. Few branches, so that the verifier checks the
 * loop that calls this three times in few states: a NULL @p reads as 0
 * (the cast's loads may fault), a failed read leaves @up zeroed.
 */
static __always_inline int nr_in_ns(struct pid *p, unsigned int level, __u64 ns)
{
	struct pid *u = bpf_core_cast(p, struct pid);
	struct upid up = {};

	bpf_probe_read_kernel(&up, sizeof(up), (void *)&u->numbers[0] +
			      level * bpf_core_type_size(struct upid));
	return (__u64)up.ns == ns && u->level >= level ? up.nr : 0;
}

static __always_inline struct pid *tgid_pid(struct task_struct *t)
{
	return bpf_core_cast(t, struct task_struct)->signal->pids[PIDTYPE_TGID];
}

/* One task's record, in the next slot (or only counted, past the array). */
static __always_inline void record(struct task_struct *t, int tid, int tgid, int ppid)
{
	/*
	 * Pointer fields are read through a read-only cast, not straight from
	 * the trusted t: for each pointer loaded from a trusted pointer, the
	 * 6.12 verifier looks up four "__safe_*" type names in the whole
	 * vmlinux BTF (~40 ms of load time under emulation for these three);
	 * through the cast they are plain loads that may fault (no helper
	 * call per field, as BPF_CORE_READ would make).
	 */
	struct task_struct *u = bpf_core_cast(t, struct task_struct);
	/* A counter read back from memory keeps the loop states converging. */
	__u32 slot = count;
	struct kit_task_rec *r;

	count = slot + 1;
	r = bpf_map_lookup_elem(&records, &slot);
	if (!r)
		return;		/* past the array: counted, so the loader sees it */
	r->pid = tid;
	r->tgid = tgid;
	r->ppid = ppid;
	r->uid = u->cred->uid.val;
	r->nr_threads = u->signal->nr_threads;
	r->state = t->__state;
	r->exit_state = t->exit_state;
	r->flags = t->flags;
	__builtin_memcpy(r->comm, t->comm, sizeof(r->comm));
}

SEC("syscall")
int kit_task_walk(void *ctx)
{
	struct task_struct *me = bpf_core_cast((void *)bpf_get_current_task(), struct task_struct);
	struct pid *mine = me->thread_pid;
	struct bpf_iter_kit_task it;
	unsigned int level = 0;
	struct task_struct *t;
	int kpid = pid;
	struct upid up;
	__u64 ns = 0;

	/* Outputs start from zero on every run: a resident program is run many times. */
	count = 0;
	ret = 0;
	if (!host) {
		level = mine->level;
		if (level && bpf_probe_read_kernel(&up, sizeof(up), (void *)&mine->numbers[0] +
						   level * bpf_core_type_size(struct upid)) == 0)
			ns = (__u64)up.ns;
	}
	ns_level = level;
	/* Sleepable program: the walk and every read of t sit in one RCU section. */
	bpf_rcu_read_lock();
	if (level && flags == KIT_TASK_PROC_THREADS) {
		/* The caller's pid is not the initial namespace's: find the process. */
		kpid = 0;
		bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_PROCS) {
			if (nr_in_ns(tgid_pid(t), level, ns) == pid) {
				kpid = t->tgid;
				break;
			}
		}
		if (!kpid) {
			ret = -ESRCH;
			goto out;
		}
	}
	ret = bpf_iter_kit_task_new(&it, kpid, flags);
	/*
	 * Two loops, not one with a branch on level in it: the verifier checks
	 * each on its own, and the host's stays as short as it was.
	 */
	if (!level) {
		while ((t = bpf_iter_kit_task_next(&it))) {
			struct task_struct *u = bpf_core_cast(t, struct task_struct);

			record(t, t->pid, t->tgid, u->real_parent->tgid);
		}
	} else {
		while ((t = bpf_iter_kit_task_next(&it))) {
			struct task_struct *u = bpf_core_cast(t, struct task_struct);
			int tid = nr_in_ns(u->thread_pid, level, ns);

			if (tid)	/* else not in the caller's namespace */
				record(t, tid, nr_in_ns(tgid_pid(t), level, ns),
				       nr_in_ns(tgid_pid(u->real_parent), level, ns));
		}
	}
	bpf_iter_kit_task_destroy(&it);
out:
	bpf_rcu_read_unlock();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
