// SPDX-License-Identifier: GPL-2.0
/*
 * One walk per run for the churn test (tests/kselftest/churn.c), with what
 * can be checked of it while tasks and cgroups come and go: the walk ends,
 * nothing is yielded twice, everything in must[] (things that exist for the
 * whole walk) is yielded, the shape of the walk holds (the idle task first;
 * the start cgroup first or last; ancestors one level apart). The same body
 * runs as SEC("syscall") and as SEC("raw_tp") (run in an IPI on the other
 * CPU: hard IRQ context).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iterkit.bpf.h"

#define MAX_MUST 16

enum { W_TASK, W_CGROUP, W_NUM, W_SEQ };

/* in */
__u32 kind;
__u32 flags;			/* kit_task flags, kit_cgroup order */
__s64 arg;			/* pid, cgroup id, kit_num end, testmod_seq count */
__u64 start_id;			/* cgroup: the start's real id */
__u32 nr_must;			/* entries in must_see */
/* out */
int ret;
__s64 n;
__u32 must_seen;
__u64 dups, shape_bad;
__s32 bad_pid, bad_tgid, bad_exit_state;	/* the last task out of shape */
__u32 cpu;
/* the walk in progress */
__u64 gen;
__u64 last_id;
__s64 last_level;

/* Pids or cgroup ids every walk must yield (they exist throughout it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_MUST);
	__type(key, __s64);
	__type(value, __u8);
} must_see SEC(".maps");

/* Element -> the walk (gen) that last yielded it: a repeat in one walk is a dup. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, __u64);
} seen SEC(".maps");

static __noinline void note(__u64 key, __s64 value)
{
	__u64 *g = bpf_map_lookup_elem(&seen, &key);

	if (g && *g == gen)
		dups++;
	else
		bpf_map_update_elem(&seen, &key, &gen, BPF_ANY);
	if (bpf_map_lookup_elem(&must_see, &value))
		must_seen++;
	n++;
}

/*
 * A thread that execs takes its leader's place (de_thread(): the two swap
 * their ids, then the thread replaces the leader in the process list). A
 * walk under RCU that reached the old leader just before may yield it with
 * the thread's old id: while the swap is under way the group's
 * group_exec_task is set, and from the end of it the old leader's
 * group_leader is the thread.
 */
static __always_inline bool mid_exec(struct task_struct *t)
{
	return BPF_CORE_READ(t, signal, group_exec_task) ||
	       BPF_CORE_READ(t, group_leader) != t;
}

static __noinline void walk_task(void)
{
	struct bpf_iter_kit_task it;
	struct task_struct *t;

	bpf_rcu_read_lock();
	ret = bpf_iter_kit_task_new(&it, (int)arg, flags);
	while ((t = bpf_iter_kit_task_next(&it))) {
		if (flags == KIT_TASK_PROC_THREADS) {
			if (t->tgid != (int)arg)
				shape_bad++;
		} else if (!n && t->pid) {
			shape_bad++;
		} else if (flags == KIT_TASK_ALL_PROCS && t->pid != t->tgid && !mid_exec(t)) {
			shape_bad++;
			bad_pid = t->pid;
			bad_tgid = t->tgid;
			bad_exit_state = t->exit_state;
		}
		note((__u64)t, t->pid);
	}
	if (bpf_iter_kit_task_next(&it))
		shape_bad++;
	bpf_iter_kit_task_destroy(&it);
	bpf_rcu_read_unlock();
}

static __noinline void walk_cgroup(void)
{
	struct bpf_iter_kit_cgroup it;
	struct cgroup *cg;
	__u64 id;
	__s64 level;

	last_id = 0;
	last_level = -1;
	bpf_rcu_read_lock();
	ret = bpf_iter_kit_cgroup_new(&it, arg, flags);
	while ((cg = bpf_iter_kit_cgroup_next(&it))) {
		id = BPF_CORE_READ(cg, kn, id);
		level = BPF_CORE_READ(cg, level);
		if (!n && (flags == KIT_CGROUP_SELF_ONLY || flags == KIT_CGROUP_DESCENDANTS_PRE ||
			   flags == KIT_CGROUP_ANCESTORS_UP) && id != start_id)
			shape_bad++;
		if (n && flags == KIT_CGROUP_ANCESTORS_UP && level != last_level - 1)
			shape_bad++;
		if (flags == KIT_CGROUP_CHILDREN &&
		    BPF_CORE_READ(cg, self.parent, cgroup, kn, id) != start_id)
			shape_bad++;
		last_id = id;
		last_level = level;
		note(id, id);
	}
	if (!ret && flags == KIT_CGROUP_DESCENDANTS_POST && last_id != start_id)
		shape_bad++;
	if (!ret && flags == KIT_CGROUP_ANCESTORS_UP && last_level != 0)
		shape_bad++;
	if (bpf_iter_kit_cgroup_next(&it))
		shape_bad++;
	bpf_iter_kit_cgroup_destroy(&it);
	bpf_rcu_read_unlock();
}

static __noinline void walk_num(void)
{
	struct bpf_iter_kit_num it;
	int *v;

	ret = bpf_iter_kit_num_new(&it, 0, (int)arg);
	while ((v = bpf_iter_kit_num_next(&it))) {
		if (*v != n)
			shape_bad++;
		n++;
	}
	bpf_iter_kit_num_destroy(&it);
}

static __noinline void walk_seq(void)
{
	struct bpf_iter_testmod_seq it;
	__s64 *v;

	ret = bpf_iter_testmod_seq_new(&it, arg, (int)arg);
	while ((v = bpf_iter_testmod_seq_next(&it))) {
		if (*v != arg)
			shape_bad++;
		n++;
	}
	bpf_iter_testmod_seq_destroy(&it);
}

static __always_inline int walk(void)
{
	gen++;
	n = 0;
	must_seen = 0;
	dups = 0;
	shape_bad = 0;
	ret = 12345;
	cpu = bpf_get_smp_processor_id();
	switch (kind) {
	case W_TASK:
		walk_task();
		break;
	case W_CGROUP:
		walk_cgroup();
		break;
	case W_NUM:
		walk_num();
		break;
	case W_SEQ:
		walk_seq();
		break;
	}
	return 0;
}

SEC("syscall")
int walk_syscall(void *ctx)
{
	return walk();
}

SEC("raw_tp")
int walk_raw_tp(void *ctx)
{
	return walk();
}

char LICENSE[] SEC("license") = "GPL";
