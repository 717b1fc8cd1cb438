// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * threads: user processes and threads, kernel threads, and the processes
 * with the most threads, from one kit_task walk in a SEC("syscall")
 * program.
 *
 * The process that runs it (the loader) is left out: a Go loader has a
 * varying number of runtime threads, and every loader of this program
 * (threads.c, ../threads-go, ../threads-rs) prints the same counts.
 *
 * iterkit's kfuncs are declared __weak, so this object loads whether the
 * module is there or not: libbpf resolves a kfunc it cannot find to 0, and
 * kit_ksym_exists() (bpf_ksym_exists()) tells the two cases apart at run
 * time. The verifier sees the constant and never walks the code behind the
 * guard, so calls to missing kfuncs are no error as long as they cannot be
 * reached. The loader reads `status` and falls back to /proc when it must.
 * Built with -DITERKIT_STRONG_KFUNCS (for cilium/ebpf 0.11, ../threads-go)
 * the guards are always true, and without the module the load fails.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <iterkit/iterkit.bpf.h>
#include "threads.h"

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */

int status;
struct threads_totals totals;
struct threads_proc top[THREADS_TOP];

/* a below b in the list's order: fewer threads, or as many and a larger pid */
static bool below(__u32 a_threads, __u32 a_pid, __u32 b_threads, __u32 b_pid)
{
	return a_threads < b_threads || (a_threads == b_threads && a_pid > b_pid);
}

SEC("syscall")
int count_threads(void *ctx)
{
	__u32 self = bpf_get_current_pid_tgid() >> 32;
	struct task_struct *t;

	if (!kit_ksym_exists(bpf_iter_kit_num_new)) {
		status = THREADS_NO_MODULE;
		return 0;
	}
	if (!kit_ksym_exists(bpf_iter_kit_task_new)) {
		status = THREADS_NO_WALKERS;
		return 0;
	}

	/* A sleepable program takes the RCU read lock the walk needs itself. */
	bpf_rcu_read_lock();
	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_PROCS) {
		__u32 n = BPF_CORE_READ(t, signal, nr_threads);
		__u32 pid = t->pid;
		int i, last = 0;

		if (!pid || pid == self)	/* the idle task, the loader */
			continue;
		if (t->flags & PF_KTHREAD) {
			totals.kthreads++;
			continue;
		}
		totals.procs++;
		totals.threads += n;

		/*
		 * The last of the kept processes gives way to a process above it.
		 * (From 0, not 1: for a range starting at 0 the compiler checks i
		 * itself, and the verifier sees the index bounded; from 1 it may
		 * test i - 1 in another register.)
		 */
		kit_for(i, 0, THREADS_TOP) {
			if (below(top[i].threads, top[i].pid, top[last].threads, top[last].pid))
				last = i;
		}
		if (last < 0 || last >= THREADS_TOP ||
		    !below(top[last].threads, top[last].pid, n, pid))
			continue;
		top[last].pid = pid;
		top[last].threads = n;
		top[last].uid = BPF_CORE_READ(t, cred, uid.val);
		__builtin_memcpy(top[last].comm, t->comm, sizeof(top[last].comm));
	}
	bpf_rcu_read_unlock();
	status = THREADS_COUNTED;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
