// SPDX-License-Identifier: GPL-2.0
/*
 * B5, kit_cgroup's id lookup: `reps` calls of new() + destroy() for one id,
 * timed inside the program, from a syscall program (preemptible) and from a
 * raw_tp test run (not preemptible, as in a tracepoint).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"

__u64 id;		/* in: the cgroup to look up */
__u32 reps;		/* in: new() calls per run */
__u64 elapsed;		/* out: ns for all of them */
int ret;		/* out: the last new()'s result */

static __always_inline int timed_lookups(void)
{
	__u64 t0;
	int r = 0;

	bpf_rcu_read_lock();
	t0 = bpf_ktime_get_ns();
	kit_repeat(reps) {
		struct bpf_iter_kit_cgroup it;

		r = bpf_iter_kit_cgroup_new(&it, id, KIT_CGROUP_SELF_ONLY);
		bpf_iter_kit_cgroup_destroy(&it);
	}
	elapsed = bpf_ktime_get_ns() - t0;
	bpf_rcu_read_unlock();
	ret = r;
	return 0;
}

SEC("syscall")
int lookup_syscall(void *ctx)
{
	return timed_lookups();
}

SEC("raw_tp")
int lookup_raw_tp(void *ctx)
{
	return timed_lookups();
}

char LICENSE[] SEC("license") = "GPL";
