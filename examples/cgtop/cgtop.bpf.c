// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cgtop: per-cgroup process and thread counts, sampled from a tracepoint.
 * The loader calls getpgid() to take a sample; this program, attached to
 * that syscall's tracepoint, then walks every thread once with kit_task,
 * counting threads and processes per cgroup in a hash map, and walks the
 * cgroups with kit_cgroup, sending one record per cgroup through a ring
 * buffer. A tracepoint program runs inside an RCU read-side section, which
 * is what the walkers' KF_RCU_PROTECTED constructors ask for.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <iterkit/iterkit.bpf.h>
#include "cgtop.h"

const volatile int sampler_tgid;	/* the loader: only its getpgid() samples */
const volatile __u64 root_id;		/* where the cgroup walk starts, 0 for the root */

int walk_ret;				/* bpf_iter_kit_cgroup_new()'s result */
__u32 lost_records;			/* cgroups the ring buffer had no room for */
__u32 lost_counts;			/* threads the counts map had no room for */

struct counts {
	__u32 procs;
	__u32 threads;
};

/* cgroup id -> its counts during one sample; the cgroup walk empties it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, struct counts);
	__uint(max_entries, 65536);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* the loader grows it when a sample did not fit */
} records SEC(".maps");

static void count_thread(struct task_struct *t)
{
	__u64 id = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
	struct counts *c = bpf_map_lookup_elem(&counts, &id);

	if (!c) {
		struct counts zero = {};

		if (bpf_map_update_elem(&counts, &id, &zero, BPF_NOEXIST) ||
		    !(c = bpf_map_lookup_elem(&counts, &id))) {
			lost_counts++;
			return;
		}
	}
	c->threads++;
	/*
	 * cgroup.procs lists a process by its leader, as long as one of its
	 * threads lives (a leader that exited before its threads still counts).
	 */
	if (t->pid == t->tgid && BPF_CORE_READ(t, signal, live.counter) > 0)
		c->procs++;
}

SEC("tp/syscalls/sys_enter_getpgid")
int sample(void *ctx)
{
	struct bpf_iter_kit_cgroup it;
	struct task_struct *t;
	struct cgroup *cg;

	if (bpf_get_current_pid_tgid() >> 32 != sampler_tgid)
		return 0;

	/*
	 * Every thread, once. An exited thread (a zombie) has left its
	 * cgroup's lists: cgroup.threads no longer shows it, nor is it counted
	 * here. pid 0 is the idle task, in no cgroup.
	 */
	bpf_for_each(kit_task, t, 0, KIT_TASK_ALL_THREADS) {
		if (t->pid && !t->exit_state)
			count_thread(t);
	}

	/* The cgroups in pre-order, each parent before its children. */
	walk_ret = bpf_iter_kit_cgroup_new(&it, root_id, KIT_CGROUP_DESCENDANTS_PRE);
	while ((cg = bpf_iter_kit_cgroup_next(&it))) {
		struct cgtop_rec *r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
		__u64 id = BPF_CORE_READ(cg, kn, id);
		struct counts *c;

		if (!r) {
			lost_records++;
			continue;
		}
		r->id = id;
		r->level = cg->level;
		r->procs = 0;
		r->threads = 0;
		c = bpf_map_lookup_elem(&counts, &id);
		if (c) {
			r->procs = c->procs;
			r->threads = c->threads;
			bpf_map_delete_elem(&counts, &id);
		}
		if (bpf_probe_read_kernel_str(r->name, sizeof(r->name), BPF_CORE_READ(cg, kn, name)) < 0)
			r->name[0] = 0;
		bpf_ringbuf_submit(r, 0);
	}
	bpf_iter_kit_cgroup_destroy(&it);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
