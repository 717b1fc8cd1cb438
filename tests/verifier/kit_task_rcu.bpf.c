// SPDX-License-Identifier: GPL-2.0
/* kit_task under the verifier: the RCU section and read-only task pointers. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
/* verifier.h's own comment mentions a "*.bpf.c" glob. */
#include "verifier.h"

int seen;

/* Sleepable and no bpf_rcu_read_lock(): 6.18 refuses new() itself,
 * older kernels refuse the first next() that follows.
 */
SEC("?syscall") __kit_failure
__kit_msg_kver("", "6.18", "expected an RCU CS when using bpf_iter_kit_task_next")
__kit_msg_kver("6.18", "", "kernel func bpf_iter_kit_task_new requires RCU critical section protection")
int kit_task_no_rcu(void *ctx)
{
	struct task_struct *t;

	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_PROCS)
		seen++;
	return 0;
}

/* destroy() outside the section is refused the same way. */
SEC("?syscall") __kit_failure
__kit_msg_kver("", "6.18", "expected an RCU CS when using bpf_iter_kit_task_destroy")
__kit_msg_kver("6.18", "", "kernel func bpf_iter_kit_task_new requires RCU critical section protection")
int kit_task_destroy_no_rcu(void *ctx)
{
	struct bpf_iter_kit_task it;

	bpf_iter_kit_task_new(&it, 0, KIT_TASK_ALL_PROCS);
	bpf_iter_kit_task_destroy(&it);
	return 0;
}

/* Returned tasks are read-only. */
SEC("?syscall") __kit_failure
__kit_msg("only read is supported")
int kit_task_write_task(void *ctx)
{
	struct task_struct *t;

	bpf_rcu_read_lock();
	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_PROCS)
		t->pid = 0;
	bpf_rcu_read_unlock();
	return 0;
}

extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

/* A task pointer does not outlive the RCU section: after the unlock it is
 * untrusted, so it can no longer be handed to a kfunc such as bpf_task_acquire().
 */
SEC("?syscall") __kit_failure
__kit_msg("R1 must be a rcu pointer")
int kit_task_use_after_unlock(void *ctx)
{
	struct bpf_iter_kit_task it;
	struct task_struct *t, *ref;

	bpf_rcu_read_lock();
	bpf_iter_kit_task_new(&it, 0, KIT_TASK_ALL_PROCS);
	t = bpf_iter_kit_task_next(&it);
	bpf_iter_kit_task_destroy(&it);
	bpf_rcu_read_unlock();
	if (!t)
		return 0;
	ref = bpf_task_acquire(t);
	if (ref)
		bpf_task_release(ref);
	return 0;
}

/* Control for the above: inside the section the same acquire is accepted. */
SEC("?syscall") __kit_success
int kit_task_acquire_in_rcu_ok(void *ctx)
{
	struct bpf_iter_kit_task it;
	struct task_struct *t, *ref = NULL;

	bpf_rcu_read_lock();
	bpf_iter_kit_task_new(&it, 0, KIT_TASK_ALL_PROCS);
	t = bpf_iter_kit_task_next(&it);
	if (t)
		ref = bpf_task_acquire(t);
	bpf_iter_kit_task_destroy(&it);
	bpf_rcu_read_unlock();
	if (ref)
		bpf_task_release(ref);
	return 0;
}

/* The same walk inside bpf_rcu_read_lock() loads and runs: init_task first. */
SEC("?syscall") __kit_success __kit_retval(0)
int kit_task_walk_ok(void *ctx)
{
	struct task_struct *t;
	int first = -1;

	bpf_rcu_read_lock();
	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_THREADS) {
		if (first < 0)
			first = t->pid;
		seen++;
	}
	bpf_rcu_read_unlock();
	return first;
}

/* Non-sleepable programs are one RCU section: no lock needed. */
SEC("?raw_tp") __kit_success
int kit_task_nonsleepable_ok(void *ctx)
{
	struct task_struct *t;

	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_PROCS)
		seen += t->tgid == 1;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
