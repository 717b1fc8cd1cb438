// SPDX-License-Identifier: GPL-2.0
/*
 * kit_cgroup in a real kernel: the same sequences as the kernel's
 * bpf_iter_css, CHILDREN/SELF_ONLY against cgroupfs, every error path with
 * the iterator empty afterwards, the start reference dropped exactly once,
 * and walks racing with cgroup creation and removal.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
/* The harness compares mixed-sign operands by design. */
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wclobbered"
#include "iterkit_defs.h"
#include "harness.h"
#include "prog_run.h"
#include "kmsg.h"
#include "cgroupfs.h"
#include "max_steps.h"
#include "kit_cgroup_walks.skel.h"
#include "kit_capped.skel.h"

#define CG "/sys/fs/cgroup"
#define TREE CG "/kit_cgroup_tree"
#define MAX_IDS 1024

/* Depth 4, fan-out 3 below TREE: TREE/c0/c1/c2/c0 and so on (121 cgroups). */
static int build_tree(const char *dir, int depth)
{
	char sub[512];
	int i;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	if (!depth)
		return 0;
	for (i = 0; i < 3; i++) {
		snprintf(sub, sizeof(sub), "%s/c%d", dir, i);
		if (build_tree(sub, depth - 1))
			return -1;
	}
	return 0;
}

static void reset(struct kit_cgroup_walks_bpf *skel)
{
	skel->bss->kit_ret = skel->bss->css_ret = 12345;
	skel->bss->kit_n = skel->bss->css_n = 0;
	skel->bss->after_drain = 0;
	skel->bss->held_level = 0;
	skel->bss->held_id = 0;
	skel->bss->hold_open = 0;
	memset(skel->bss->kit_ids, 0, sizeof(skel->bss->kit_ids));
	memset(skel->bss->css_ids, 0, sizeof(skel->bss->css_ids));
}

/* Moves this process into the cgroup at @dir; 0 or -1. */
static int move_self(const char *dir)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fprintf(f, "%d\n", getpid()) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* A walk with kit_cgroup only; returns new()'s result. */
static int kit_walk(struct kit_cgroup_walks_bpf *skel, unsigned long long id, unsigned int order)
{
	reset(skel);
	skel->bss->kit_start = id;
	skel->bss->order = order;
	if (kit_prog_run(skel->progs.errors))
		return 9999;
	return skel->bss->kit_ret;
}

FIXTURE(walks) {
	struct kit_cgroup_walks_bpf *skel;
	char marker[64];
};

FIXTURE_SETUP(walks)
{
	/* Kernel reports count from here on: this test's, no earlier ones. */
	snprintf(self->marker, sizeof(self->marker), "iterkit kit_cgroup %s %d",
		 _metadata->name, getpid());
	ASSERT_EQ(0, kmsg_mark(self->marker));
	self->skel = kit_cgroup_walks_bpf__open_and_load();
	ASSERT_NE(NULL, self->skel) TH_LOG("loading kit_cgroup_walks failed");
	remove_tree(TREE);
	/*
	 * The last test's tree is released in the background; walks from the
	 * root compared before that ends would see it in one walk and not in
	 * the next.
	 */
	ASSERT_EQ(0, wait_no_dying(CG)) TH_LOG("removed cgroups were never released");
	ASSERT_EQ(0, build_tree(TREE, 4));
}

FIXTURE_TEARDOWN(walks)
{
	move_self(CG);
	remove_tree(TREE);
	kit_cgroup_walks_bpf__destroy(self->skel);
}

/* kit_cgroup and bpf_iter_css from the same start: identical id sequences. */
static void diff_check(struct __test_metadata *_metadata, struct kit_cgroup_walks_bpf *skel,
		       const char *start_dir, bool as_zero, unsigned int order, int min_len)
{
	unsigned long long id = ino_of(start_dir);
	__u64 i, n;

	ASSERT_NE(0, id);
	reset(skel);
	skel->bss->kit_start = as_zero ? 0 : id;
	skel->bss->css_start = id;
	skel->bss->order = order;
	ASSERT_EQ(0, kit_prog_run(skel->progs.diff));
	ASSERT_EQ(0, skel->bss->kit_ret);
	ASSERT_EQ(0, skel->bss->css_ret);
	n = skel->bss->kit_n;
	EXPECT_EQ(skel->bss->css_n, n);
	ASSERT_GE(n, min_len);
	ASSERT_LE(n, MAX_IDS);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(skel->bss->css_ids[i], skel->bss->kit_ids[i])
			TH_LOG("%s order %u: element %llu differs", start_dir, order,
			       (unsigned long long)i);
	}
	/* The start is first (PRE, UP) or last (POST). */
	EXPECT_EQ(id, skel->bss->kit_ids[order == KIT_CGROUP_DESCENDANTS_POST ? n - 1 : 0]);
}

TEST_F(walks, diff_pre_root) { diff_check(_metadata, self->skel, CG, true, KIT_CGROUP_DESCENDANTS_PRE, 122); }
TEST_F(walks, diff_post_root) { diff_check(_metadata, self->skel, CG, true, KIT_CGROUP_DESCENDANTS_POST, 122); }
TEST_F(walks, diff_up_root) { diff_check(_metadata, self->skel, CG, true, KIT_CGROUP_ANCESTORS_UP, 1); }
TEST_F(walks, diff_pre_nested) { diff_check(_metadata, self->skel, TREE "/c1", false, KIT_CGROUP_DESCENDANTS_PRE, 40); }
TEST_F(walks, diff_post_nested) { diff_check(_metadata, self->skel, TREE "/c1", false, KIT_CGROUP_DESCENDANTS_POST, 40); }
TEST_F(walks, diff_up_nested) { diff_check(_metadata, self->skel, TREE "/c2/c0/c1", false, KIT_CGROUP_ANCESTORS_UP, 5); }
TEST_F(walks, diff_pre_leaf) { diff_check(_metadata, self->skel, TREE "/c2/c0/c1/c2", false, KIT_CGROUP_DESCENDANTS_PRE, 1); }
TEST_F(walks, diff_post_leaf) { diff_check(_metadata, self->skel, TREE "/c2/c0/c1/c2", false, KIT_CGROUP_DESCENDANTS_POST, 1); }
TEST_F(walks, diff_up_leaf) { diff_check(_metadata, self->skel, TREE "/c2/c0/c1/c2", false, KIT_CGROUP_ANCESTORS_UP, 6); }

/* Order 0 walks exactly like DESCENDANTS_PRE. */
TEST_F(walks, order0_is_pre)
{
	unsigned long long id = ino_of(TREE);
	__u64 pre[MAX_IDS], n;

	ASSERT_EQ(0, kit_walk(self->skel, id, KIT_CGROUP_DESCENDANTS_PRE));
	n = self->skel->bss->kit_n;
	ASSERT_EQ(121, n);
	memcpy(pre, self->skel->bss->kit_ids, sizeof(pre));
	ASSERT_EQ(0, kit_walk(self->skel, id, 0));
	ASSERT_EQ(n, self->skel->bss->kit_n);
	EXPECT_EQ(0, memcmp(pre, self->skel->bss->kit_ids, n * sizeof(__u64)));
}

/* CHILDREN: the direct subdirectories, in creation order, start excluded. */
TEST_F(walks, children_match_cgroupfs)
{
	const char *starts[] = { TREE, TREE "/c1", TREE "/c0/c2/c1" };
	char sub[512];
	unsigned int s;
	int i;

	for (s = 0; s < 3; s++) {
		ASSERT_EQ(0, kit_walk(self->skel, ino_of(starts[s]), KIT_CGROUP_CHILDREN));
		ASSERT_EQ(3, self->skel->bss->kit_n) TH_LOG("%s", starts[s]);
		for (i = 0; i < 3; i++) {
			snprintf(sub, sizeof(sub), "%s/c%d", starts[s], i);
			EXPECT_EQ(ino_of(sub), self->skel->bss->kit_ids[i]);
		}
	}
	/* A leaf has no children. */
	ASSERT_EQ(0, kit_walk(self->skel, ino_of(TREE "/c0/c2/c1/c0"), KIT_CGROUP_CHILDREN));
	EXPECT_EQ(0, self->skel->bss->kit_n);
	EXPECT_EQ(0, self->skel->bss->after_drain);
}

TEST_F(walks, self_only_match_cgroupfs)
{
	ASSERT_EQ(0, kit_walk(self->skel, ino_of(TREE "/c2/c1"), KIT_CGROUP_SELF_ONLY));
	ASSERT_EQ(1, self->skel->bss->kit_n);
	EXPECT_EQ(ino_of(TREE "/c2/c1"), self->skel->bss->kit_ids[0]);
	ASSERT_EQ(0, kit_walk(self->skel, 0, KIT_CGROUP_SELF_ONLY));
	ASSERT_EQ(1, self->skel->bss->kit_n);
	EXPECT_EQ(ino_of(CG), self->skel->bss->kit_ids[0]);
	EXPECT_EQ(0, self->skel->bss->after_drain);
}

/* errors_irq on another CPU, in the IPI BPF_F_TEST_RUN_ON_CPU sends; new()'s result. */
static int kit_walk_irq(struct kit_cgroup_walks_bpf *skel, unsigned long long id,
			unsigned int order, int cpu)
{
	reset(skel);
	skel->bss->kit_start = id;
	skel->bss->order = order;
	skel->bss->ran_cpu = ~0u;
	if (kit_prog_run_on(skel->progs.errors_irq, cpu) < 0)
		return 9999;
	if (skel->bss->ran_cpu != (unsigned int)cpu)
		return 9998;
	return skel->bss->kit_ret;
}

static int collect_dirs(const char *dir, char paths[][512], int n, int max)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d || n >= max)
		return n;
	snprintf(paths[n++], 512, "%s", dir);
	while ((de = readdir(d))) {
		char sub[1024];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		n = collect_dirs(sub, paths, n, max);
	}
	closedir(d);
	return n;
}

/* errors_irq in this process's context, where a raw_tp test run is not preemptible. */
static int kit_walk_nopreempt(struct kit_cgroup_walks_bpf *skel, unsigned long long id,
			      unsigned int order)
{
	reset(skel);
	skel->bss->kit_start = id;
	skel->bss->order = order;
	if (kit_prog_run(skel->progs.errors_irq) < 0)
		return 9999;
	return skel->bss->kit_ret;
}

/*
 * new() looks ids up three ways (docs/walker-cgroup.md): the caller's own
 * cgroup and its ancestors directly, other ids with cgroup_get_from_id()
 * when the program is preemptible, and by descending the hierarchy when it
 * is not. From a syscall program, from a raw_tp run in this process (its
 * own cgroup is deep in the tree) and in hard IRQ on the other CPU, every
 * cgroup of the tree, every order, a removed cgroup, a file and an id that
 * never existed must give the same answer.
 */
TEST_F(walks, lookup_same_in_irq)
{
	static char paths[200][512];
	unsigned long long ids[210], gone, first;
	unsigned int o;
	int n, i, a, b, c, cpu, irq_runs = 0;
	__u64 cnt;

	cpu = sched_getcpu() == 0 ? 1 : 0;
	ASSERT_EQ(0, mkdir(TREE "/gone", 0755));
	gone = ino_of(TREE "/gone");
	ASSERT_EQ(0, rmdir(TREE "/gone"));
	/* Compare once it is released: until then walks from above it may or may not meet it. */
	ASSERT_EQ(0, wait_no_dying(TREE));
	/*
	 * Cgroups created after their parents' later siblings: ids do not
	 * follow pre-order, which a lookup must not rely on.
	 */
	ASSERT_EQ(0, mkdir(TREE "/c0/late", 0755));
	ASSERT_EQ(0, mkdir(TREE "/c0/c1/c2/late", 0755));
	ASSERT_EQ(0, move_self(TREE "/c2/c0/c1"));
	n = collect_dirs(TREE, paths, 0, 200);
	ASSERT_EQ(123, n);
	for (i = 0; i < n; i++)
		ids[i] = ino_of(paths[i]);
	ids[n++] = gone;
	ids[n++] = ino_of(TREE "/c1/cgroup.procs");
	ids[n++] = 1ULL << 40;
	ids[n++] = ino_of(CG);
	for (i = 0; i < n; i++) {
		for (o = 1; o <= KIT_CGROUP_CHILDREN; o++) {
			a = kit_walk(self->skel, ids[i], o);
			cnt = self->skel->bss->kit_n;
			first = self->skel->bss->kit_ids[0];
			b = kit_walk_irq(self->skel, ids[i], o, cpu);
			ASSERT_NE(9998, b) TH_LOG("the IPI run did not run on CPU %d", cpu);
			irq_runs++;
			EXPECT_EQ(a, b) TH_LOG("id %llu order %u: %d preemptible, %d in IRQ",
					       ids[i], o, a, b);
			EXPECT_EQ(cnt, self->skel->bss->kit_n) TH_LOG("id %llu order %u", ids[i], o);
			if (cnt && self->skel->bss->kit_n)
				EXPECT_EQ(first, self->skel->bss->kit_ids[0]);
			c = kit_walk_nopreempt(self->skel, ids[i], o);
			EXPECT_EQ(a, c) TH_LOG("id %llu order %u: %d preemptible, %d not preemptible",
					       ids[i], o, a, c);
			EXPECT_EQ(cnt, self->skel->bss->kit_n) TH_LOG("id %llu order %u", ids[i], o);
			if (cnt && self->skel->bss->kit_n)
				EXPECT_EQ(first, self->skel->bss->kit_ids[0]);
		}
	}
	/* The tree's cgroups are found, the others are not. */
	EXPECT_EQ(0, kit_walk_irq(self->skel, ids[0], KIT_CGROUP_SELF_ONLY, cpu));
	EXPECT_EQ(-ENOENT, kit_walk_irq(self->skel, gone, KIT_CGROUP_SELF_ONLY, cpu));
	EXPECT_EQ(-ENOENT, kit_walk_irq(self->skel, ino_of(TREE "/c1/cgroup.procs"), KIT_CGROUP_SELF_ONLY, cpu));
	EXPECT_EQ(-ENOENT, kit_walk_nopreempt(self->skel, gone, KIT_CGROUP_SELF_ONLY));
	/* This process's cgroup and its ancestors, found without a walk. */
	EXPECT_EQ(0, kit_walk_nopreempt(self->skel, ino_of(TREE "/c2/c0/c1"), KIT_CGROUP_ANCESTORS_UP));
	EXPECT_EQ(5, self->skel->bss->kit_n);
	EXPECT_EQ(0, kit_walk_nopreempt(self->skel, ino_of(TREE "/c2"), KIT_CGROUP_SELF_ONLY));
	EXPECT_EQ(ino_of(TREE "/c2"), self->skel->bss->kit_ids[0]);
	TH_LOG("%d lookups compared three ways", irq_runs);
}

/*
 * The lock-free lookup's budget: in hard IRQ it visits at most 4096 of the
 * cgroups created before the id. Past that, new() says -E2BIG (the cgroup
 * may exist) and leaves an empty iterator, never -ENOENT for a live id; a
 * raw_tp run in process context (budget 2^20) and a preemptible program
 * (the id table) find the same id, and in IRQ an older id is still found.
 */
TEST_F(walks, lookup_budget_in_irq)
{
	unsigned long long newest, old;
	cpu_set_t here, all;
	char path[512];
	int i, cpu = 1;

	/* On CPU 0 for good: a run aimed at the CPU this process is on runs here, not in an IPI. */
	ASSERT_LE(2, sysconf(_SC_NPROCESSORS_ONLN)) TH_LOG("an IPI needs a second CPU");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	CPU_ZERO(&here);
	CPU_SET(0, &here);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(here), &here));
	ASSERT_EQ(0, mkdir(TREE "/many", 0755));
	for (i = 0; i < 4200; i++) {
		snprintf(path, sizeof(path), TREE "/many/m%d", i);
		ASSERT_EQ(0, mkdir(path, 0755)) TH_LOG("mkdir %s: %s", path, strerror(errno));
	}
	newest = ino_of(path);
	old = ino_of(TREE "/many/m10");
	EXPECT_EQ(-E2BIG, kit_walk_irq(self->skel, newest, KIT_CGROUP_SELF_ONLY, cpu));
	EXPECT_EQ(0, self->skel->bss->kit_n);
	EXPECT_EQ(0, kit_walk_nopreempt(self->skel, newest, KIT_CGROUP_SELF_ONLY));
	EXPECT_EQ(newest, self->skel->bss->kit_ids[0]);
	EXPECT_EQ(0, kit_walk(self->skel, newest, KIT_CGROUP_SELF_ONLY));
	EXPECT_EQ(newest, self->skel->bss->kit_ids[0]);
	EXPECT_EQ(0, kit_walk_irq(self->skel, old, KIT_CGROUP_SELF_ONLY, cpu));
	EXPECT_EQ(old, self->skel->bss->kit_ids[0]);
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
}

/*
 * Which way new() looks up an id that is not the caller's cgroup or an
 * ancestor. The kernel's id table (cgroup_get_from_id(), counted here by an
 * fentry program) only from a caller that holds no lock: never on
 * PREEMPT_RT, where a held spinlock_t leaves the preempt count alone and
 * preemptible() cannot tell; never from a program that is not preemptible;
 * and on x86 from a syscall program under bpf_rcu_read_lock() on a kernel
 * that counts preemption with preemptible RCU (uname -v says PREEMPT or
 * PREEMPT_DYNAMIC). Either way the cgroup is found.
 */
TEST_F(walks, lookup_path_by_kernel)
{
	unsigned long long id = ino_of(TREE "/c1/c0");
	struct bpf_link *link;
	struct utsname u;
	bool rt, preempt;
	__u64 calls;

	ASSERT_EQ(0, uname(&u));
	rt = strstr(u.version, "PREEMPT_RT");
	preempt = strstr(u.version, " PREEMPT ") || strstr(u.version, " PREEMPT_DYNAMIC ");
	ASSERT_EQ(0, move_self(TREE "/c2"));
	self->skel->bss->counted_tgid = getpid();
	link = bpf_program__attach(self->skel->progs.count_id_table);
	ASSERT_NE(NULL, link) TH_LOG("fentry/cgroup_get_from_id: %s", strerror(errno));

	self->skel->bss->id_table_calls = 0;
	EXPECT_EQ(0, kit_walk_nopreempt(self->skel, id, KIT_CGROUP_SELF_ONLY));
	EXPECT_EQ(id, self->skel->bss->kit_ids[0]);
	EXPECT_EQ(0, self->skel->bss->id_table_calls) TH_LOG("a raw_tp run used the id table");

	self->skel->bss->id_table_calls = 0;
	EXPECT_EQ(0, kit_walk(self->skel, id, KIT_CGROUP_SELF_ONLY));
	EXPECT_EQ(id, self->skel->bss->kit_ids[0]);
	calls = self->skel->bss->id_table_calls;
	TH_LOG("%s: a syscall program's lookup made %llu id-table calls", u.version,
	       (unsigned long long)calls);
	if (rt) {
		EXPECT_EQ(0, calls) TH_LOG("PREEMPT_RT: the lookup used the id table");
	} else if (!preempt) {
		EXPECT_EQ(0, calls) TH_LOG("no preempt count: preemptible() is false, no id table");
	} else {
#if defined(__x86_64__)
		/* Measured on x86; arm64 7.3.4 (PREEMPT) makes none: either way is safe. */
		EXPECT_LE(1, calls) TH_LOG("a preemptible lookup did not use the id table");
#endif
	}

	/* The caller's own cgroup never needs a lookup. */
	self->skel->bss->id_table_calls = 0;
	EXPECT_EQ(0, kit_walk(self->skel, ino_of(TREE "/c2"), KIT_CGROUP_SELF_ONLY));
	EXPECT_EQ(0, self->skel->bss->id_table_calls);
	bpf_link__destroy(link);
}

/* kit_cgroup_at from a cgroup pointer: the same walks as kit_cgroup from its id. */
TEST_F(walks, at_matches_id)
{
	const char *starts[] = { CG, TREE, TREE "/c1", TREE "/c2/c0/c1", TREE "/c0/c2/c1/c0" };
	unsigned int s, o, bad[] = { 6, 64, 0xffffffffu };
	__u64 i, n;

	for (s = 0; s < sizeof(starts) / sizeof(starts[0]); s++) {
		for (o = 0; o <= KIT_CGROUP_CHILDREN; o++) {
			reset(self->skel);
			self->skel->bss->kit_start = s ? ino_of(starts[s]) : 0;
			self->skel->bss->css_start = ino_of(starts[s]);
			self->skel->bss->order = o;
			ASSERT_EQ(0, kit_prog_run(self->skel->progs.diff_at));
			ASSERT_EQ(0, self->skel->bss->kit_ret);
			ASSERT_EQ(0, self->skel->bss->css_ret) TH_LOG("%s order %u", starts[s], o);
			n = self->skel->bss->kit_n;
			ASSERT_EQ(n, self->skel->bss->css_n) TH_LOG("%s order %u", starts[s], o);
			ASSERT_LE(n, MAX_IDS);
			EXPECT_GE(n, o == KIT_CGROUP_CHILDREN && s == 4 ? 0 : 1);
			for (i = 0; i < n; i++)
				EXPECT_EQ(self->skel->bss->kit_ids[i], self->skel->bss->css_ids[i])
					TH_LOG("%s order %u: element %llu", starts[s], o,
					       (unsigned long long)i);
			EXPECT_EQ(0, self->skel->bss->after_drain);
		}
	}
	for (o = 0; o < sizeof(bad) / sizeof(bad[0]); o++) {
		reset(self->skel);
		self->skel->bss->kit_start = ino_of(TREE);
		self->skel->bss->css_start = ino_of(TREE);
		self->skel->bss->order = bad[o];
		ASSERT_EQ(0, kit_prog_run(self->skel->progs.diff_at));
		EXPECT_EQ(-EINVAL, self->skel->bss->css_ret) TH_LOG("order %u", bad[o]);
		EXPECT_EQ(0, self->skel->bss->css_n);
		EXPECT_EQ(0, self->skel->bss->after_drain);
	}
}

/* From a raw_tp: the caller's own cgroup as a pointer and as an id, every order. */
TEST_F(walks, own_cgroup_at_and_id)
{
	unsigned long long own = ino_of(TREE "/c0/c1/c2");
	unsigned int o;
	__u64 i, n;

	ASSERT_EQ(0, move_self(TREE "/c0/c1/c2"));
	for (o = KIT_CGROUP_SELF_ONLY; o <= KIT_CGROUP_CHILDREN; o++) {
		reset(self->skel);
		self->skel->bss->order = o;
		ASSERT_LE(0, kit_prog_run(self->skel->progs.own_at));
		ASSERT_EQ(0, self->skel->bss->kit_ret);
		ASSERT_EQ(0, self->skel->bss->css_ret);
		n = self->skel->bss->kit_n;
		ASSERT_EQ(n, self->skel->bss->css_n) TH_LOG("order %u", o);
		ASSERT_LE(n, MAX_IDS);
		for (i = 0; i < n; i++)
			EXPECT_EQ(self->skel->bss->kit_ids[i], self->skel->bss->css_ids[i]);
		if (o == KIT_CGROUP_ANCESTORS_UP) {
			EXPECT_EQ(5, n);	/* c2, c1, c0, the tree, the root */
			EXPECT_EQ(ino_of(CG), self->skel->bss->kit_ids[n - 1]);
		}
		if (o != KIT_CGROUP_CHILDREN && o != KIT_CGROUP_DESCENDANTS_POST)
			EXPECT_EQ(own, self->skel->bss->kit_ids[0]);
	}
}

/* Every error: the documented errno, nothing yielded, still nothing after. */
TEST_F(walks, errors_leave_empty_iterator)
{
	unsigned long long tree = ino_of(TREE), gone, file;
	unsigned int bad_orders[] = { 6, 7, 64, 0x80000002u, 0xffffffffu };
	unsigned int i;

	ASSERT_EQ(0, mkdir(TREE "/gone", 0755));
	gone = ino_of(TREE "/gone");
	ASSERT_EQ(0, rmdir(TREE "/gone"));
	file = ino_of(TREE "/cgroup.procs");
	ASSERT_NE(0, file);

	for (i = 0; i < sizeof(bad_orders) / sizeof(bad_orders[0]); i++) {
		EXPECT_EQ(-EINVAL, kit_walk(self->skel, tree, bad_orders[i]))
			TH_LOG("order %u", bad_orders[i]);
		EXPECT_EQ(0, self->skel->bss->kit_n);
		EXPECT_EQ(0, self->skel->bss->after_drain);
	}
	/* A bad order is reported even for a cgroup that does not exist. */
	EXPECT_EQ(-EINVAL, kit_walk(self->skel, 1ULL << 40, 9));
	EXPECT_EQ(0, self->skel->bss->kit_n);

	for (i = KIT_CGROUP_SELF_ONLY; i <= KIT_CGROUP_CHILDREN; i++) {
		EXPECT_EQ(-ENOENT, kit_walk(self->skel, 1ULL << 40, i));
		EXPECT_EQ(0, self->skel->bss->kit_n);
		EXPECT_EQ(-ENOENT, kit_walk(self->skel, gone, i)) TH_LOG("removed cgroup, order %u", i);
		EXPECT_EQ(0, self->skel->bss->kit_n);
		EXPECT_EQ(-ENOENT, kit_walk(self->skel, file, i)) TH_LOG("a file's inode, order %u", i);
		EXPECT_EQ(0, self->skel->bss->kit_n);
		EXPECT_EQ(0, self->skel->bss->after_drain);
	}
}

/*
 * new()'s lookup takes a reference and drops it before returning, for
 * successful, drained and failed walks alike: a leak would keep the removed
 * cgroup dying for ever, a double put would underflow (refcount warning).
 */
TEST_F(walks, start_reference_balanced)
{
	unsigned long long id;
	int round, o;

	ASSERT_EQ(0, wait_no_dying(TREE));
	ASSERT_EQ(0, mkdir(TREE "/ref", 0755));
	ASSERT_EQ(0, mkdir(TREE "/ref/x", 0755));
	id = ino_of(TREE "/ref");
	for (round = 0; round < 20; round++) {
		for (o = 0; o <= KIT_CGROUP_CHILDREN; o++)
			ASSERT_EQ(0, kit_walk(self->skel, id, o));
		ASSERT_EQ(-EINVAL, kit_walk(self->skel, id, 77));
	}
	ASSERT_EQ(0, rmdir(TREE "/ref/x"));
	ASSERT_EQ(0, rmdir(TREE "/ref"));
	EXPECT_EQ(0, wait_no_dying(TREE)) TH_LOG("the removed start cgroup never got released");
	EXPECT_EQ(0, kmsg_reports_since(self->marker, kmsg_print));
}

struct remover {
	const char *dir;
	const __u32 *open;	/* set by the program once its walk is open */
	int err, waited;	/* rmdir's errno; whether the walk was seen open */
};

/* Removes dir once the walk is open (or after 10 s, which the test reports). */
static void *remove_when_open(void *arg)
{
	struct remover *r = arg;
	int i;

	for (i = 0; i < 100000 && !__atomic_load_n(r->open, __ATOMIC_ACQUIRE); i++)
		usleep(100);
	r->waited = __atomic_load_n(r->open, __ATOMIC_ACQUIRE);
	r->err = rmdir(r->dir) ? errno : 0;
	return NULL;
}

/*
 * rmdir of the start cgroup issued while a walk is open on it: the walk
 * still reads a valid start, the removal succeeds, and the cgroup is
 * released once the walk ends. (On 6.12 the rmdir does not complete while
 * the walk's RCU section is open, so this checks the race is harmless;
 * start_reference_balanced checks the reference itself.)
 */
TEST_F(walks, rmdir_start_during_walk)
{
	struct remover r = { .dir = TREE "/held", .open = &self->skel->bss->hold_open };
	unsigned long long id;
	pthread_t th;
	int rounds;

	ASSERT_EQ(0, wait_no_dying(TREE));
	for (rounds = 0; rounds < 5; rounds++) {
		ASSERT_EQ(0, mkdir(r.dir, 0755));
		id = ino_of(r.dir);
		reset(self->skel);
		self->skel->bss->kit_start = id;
		self->skel->bss->spins = 2000000;
		ASSERT_EQ(0, pthread_create(&th, NULL, remove_when_open, &r));
		ASSERT_EQ(0, kit_prog_run(self->skel->progs.hold));
		pthread_join(th, NULL);
		EXPECT_EQ(1, r.waited) TH_LOG("the walk never showed it was open");
		EXPECT_EQ(0, r.err);
		EXPECT_EQ(0, self->skel->bss->kit_ret);
		EXPECT_EQ(id, self->skel->bss->held_id);
		EXPECT_EQ(2, self->skel->bss->held_level);
		EXPECT_EQ(2000000, self->skel->bss->kit_n);
	}
	EXPECT_EQ(0, wait_no_dying(TREE)) TH_LOG("a removed start cgroup never got released");
	EXPECT_EQ(0, kmsg_reports_since(self->marker, kmsg_print));
}

/* Creates and removes cgroups (up to three deep) below @dir until killed. */
static void churn(const char *dir, unsigned int seed)
{
	char path[512];

	srand(seed);
	for (;;) {
		int a = rand() % 4, b = rand() % 4, c = rand() % 4;

		snprintf(path, sizeof(path), "%s/a%d", dir, a);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/a%d/b%d", dir, a, b);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/a%d/b%d/c%d", dir, a, b, c);
		mkdir(path, 0755);
		rmdir(path);
		if (rand() % 2) {
			snprintf(path, sizeof(path), "%s/a%d/b%d", dir, a, b);
			rmdir(path);
		}
		if (rand() % 4 == 0) {
			snprintf(path, sizeof(path), "%s/a%d", dir, a);
			rmdir(path);
		}
	}
}

/* Ids that stand twice among the first n a walk noted (kit_ids keeps MAX_IDS). */
static int repeated_ids(const __u64 *ids, __u64 n)
{
	int repeats = 0;
	__u64 i, k;

	if (n > MAX_IDS)
		n = MAX_IDS;
	for (i = 0; i < n; i++)
		for (k = 0; k < i; k++)
			repeats += ids[k] == ids[i];
	return repeats;
}

/*
 * Walks while other processes create and remove cgroups (CGROUP_CHURN_SECS,
 * 30): each cgroup at most once, and TREE's ancestors, which the churn does
 * not touch, exactly.
 */
TEST_F_TIMEOUT(walks, churn, 900)
{
	const char *secs_env = getenv("CGROUP_CHURN_SECS");
	int secs = secs_env ? atoi(secs_env) : 30;
	unsigned long long walks = 0, max_n = 0, id = ino_of(TREE);
	/* TREE, its parent (the root): two cgroups up from TREE. */
	const __u64 tree_up = 2;
	unsigned int orders[] = { KIT_CGROUP_DESCENDANTS_PRE, KIT_CGROUP_DESCENDANTS_POST, KIT_CGROUP_CHILDREN, KIT_CGROUP_ANCESTORS_UP };
	pid_t kids[2];
	time_t end;
	int i;

	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		ASSERT_GE(kids[i], 0);
		if (!kids[i]) {
			/* Never outlive the test, even when an ASSERT ends it early. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			churn(i ? TREE "/c0" : TREE, getpid());
			_exit(0);
		}
	}
	end = time(NULL) + secs;
	while (time(NULL) < end) {
		unsigned int o = orders[walks % 4];
		__u64 n;

		ASSERT_EQ(0, kit_walk(self->skel, walks % 8 ? id : 0, o));
		n = self->skel->bss->kit_n;
		EXPECT_GE(n, o == KIT_CGROUP_CHILDREN ? 3 : 1);
		EXPECT_EQ(0, repeated_ids(self->skel->bss->kit_ids, n)) TH_LOG("order %u", o);
		if (o == KIT_CGROUP_ANCESTORS_UP)
			EXPECT_EQ(walks % 8 ? tree_up : 1, n);
		EXPECT_EQ(0, self->skel->bss->after_drain);
		if (n > max_n)
			max_n = n;
		walks++;
	}
	for (i = 0; i < 2; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	TH_LOG("%llu walks in %d s, longest %llu cgroups", walks, secs, max_n);
	EXPECT_GE(walks, 10);
	remove_tree(TREE);
	EXPECT_EQ(0, wait_no_dying(CG));
	EXPECT_EQ(0, kmsg_reports_since(self->marker, kmsg_print));
}

/* ---- capped: the max_steps parameter and bpf_iter_kit_cgroup{,_at}_capped() ---- */

FIXTURE(capped) {
	struct kit_capped_bpf *skel;
};

FIXTURE_SETUP(capped)
{
	self->skel = kit_capped_bpf__open_and_load();
	ASSERT_NE(NULL, self->skel) TH_LOG("loading kit_capped failed");
	CAPPED_SETUP(self->skel->progs.cgroup_walk, self->skel->bss->have);
	remove_tree(TREE);
	ASSERT_EQ(0, wait_no_dying(CG)) TH_LOG("removed cgroups were never released");
	ASSERT_EQ(0, build_tree(TREE, 4));
}

FIXTURE_TEARDOWN(capped)
{
	/* Later tests rely on uncapped walks. */
	if (set_max_steps(0))
		fprintf(stderr, "# cannot restore max_steps to 0\n");
	remove_tree(TREE);
	kit_capped_bpf__destroy(self->skel);
}

/* One walk with kit_cgroup (@at false) or kit_cgroup_at; new()'s result. */
static int capped_walk(struct __test_metadata *_metadata, struct kit_capped_bpf *skel,
		       bool at, unsigned long long id, unsigned int order)
{
	struct bpf_program *prog = at ? skel->progs.cgroup_at_walk : skel->progs.cgroup_walk;

	skel->bss->cgroup_id = id;
	skel->bss->order = order;
	if (kit_prog_run(prog))
		return 9999;
	if (!skel->bss->have)
		return 9998;
	EXPECT_EQ(0, skel->bss->capped_running) TH_LOG("capped() before the walk ended");
	EXPECT_EQ(0, skel->bss->after_drain);
	EXPECT_EQ(skel->bss->capped, skel->bss->capped_again) TH_LOG("capped() changed after the end");
	return skel->bss->ret;
}

static void capped_check(struct __test_metadata *_metadata, struct kit_capped_bpf *skel, bool at)
{
	unsigned long long root = ino_of(CG), leaf = ino_of(TREE "/c2/c0/c1/c2");
	long live = cgroup_stat(CG, "nr_descendants");

	ASSERT_NE(0, root);
	ASSERT_NE(0, leaf);
	ASSERT_GE(live, 121) TH_LOG("cgroup.stat has no nr_descendants, or no tree");

	/* Uncapped: the root and every live descendant cgroup.stat counts. */
	ASSERT_EQ(0, capped_walk(_metadata, skel, at, root, KIT_CGROUP_DESCENDANTS_PRE));
	EXPECT_EQ(live + 1, skel->bss->count);
	EXPECT_EQ(0, skel->bss->capped) TH_LOG("a complete walk said capped");

	/* Capped at N: exactly N cgroups, in each order, and capped() says so. */
	ASSERT_EQ(0, set_max_steps(7));
	ASSERT_EQ(0, capped_walk(_metadata, skel, at, root, KIT_CGROUP_DESCENDANTS_PRE));
	EXPECT_EQ(7, skel->bss->count);
	EXPECT_EQ(1, skel->bss->capped);
	ASSERT_EQ(0, capped_walk(_metadata, skel, at, root, KIT_CGROUP_DESCENDANTS_POST));
	EXPECT_EQ(7, skel->bss->count);
	EXPECT_EQ(1, skel->bss->capped);
	ASSERT_EQ(0, capped_walk(_metadata, skel, at, ino_of(TREE), KIT_CGROUP_CHILDREN));
	EXPECT_EQ(3, skel->bss->count) TH_LOG("a walk shorter than the cap was cut");
	EXPECT_EQ(0, skel->bss->capped);

	/* Ending exactly at the cap is not a truncation: the leaf and its 5 ancestors. */
	ASSERT_EQ(0, set_max_steps(6));
	ASSERT_EQ(0, capped_walk(_metadata, skel, at, leaf, KIT_CGROUP_ANCESTORS_UP));
	EXPECT_EQ(6, skel->bss->count);
	EXPECT_EQ(0, skel->bss->capped) TH_LOG("a walk that ended at the cap said capped");
	ASSERT_EQ(0, set_max_steps(5));
	ASSERT_EQ(0, capped_walk(_metadata, skel, at, leaf, KIT_CGROUP_ANCESTORS_UP));
	EXPECT_EQ(5, skel->bss->count);
	EXPECT_EQ(1, skel->bss->capped);

	/* A failed new() leaves an empty iterator that was never capped. */
	EXPECT_EQ(-EINVAL, capped_walk(_metadata, skel, at, root, 99));
	EXPECT_EQ(0, skel->bss->count);
	EXPECT_EQ(0, skel->bss->capped);
}

TEST_F(capped, max_steps_caps_kit_cgroup) { capped_check(_metadata, self->skel, false); }
TEST_F(capped, max_steps_caps_kit_cgroup_at) { capped_check(_metadata, self->skel, true); }

TEST_F(capped, no_such_cgroup_not_capped)
{
	ASSERT_EQ(0, set_max_steps(1));
	EXPECT_EQ(-ENOENT, capped_walk(_metadata, self->skel, false, ~0ULL >> 1, KIT_CGROUP_DESCENDANTS_PRE));
	EXPECT_EQ(0, self->skel->bss->count);
	EXPECT_EQ(0, self->skel->bss->capped);
}

TEST_HARNESS_MAIN
