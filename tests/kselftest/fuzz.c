// SPDX-License-Identifier: GPL-2.0
/*
 * kfunc fuzzing from BPF: random and edge arguments for every constructor
 * (kit_num, testmod_seq, kit_task, kit_cgroup), each with the result the
 * documented contract demands, run through BPF_PROG_TEST_RUN in three
 * contexts: a sleepable SEC("syscall") program, a SEC("raw_tp") program on
 * this CPU, and the same raw_tp program on the other CPU, where it runs in
 * the IPI of BPF_F_TEST_RUN_ON_CPU (hard IRQ context, not preemptible).
 * The BPF program checks each result itself (tests/progs/fuzz.bpf.c); a
 * background process meanwhile forks and creates/removes cgroups, so some
 * arguments name things that come and go.
 *
 *   FUZZ_CALLS   constructor calls in all (default 200000; check-debug: 10M)
 *   FUZZ_SEED    the random seed (default: the time; printed either way)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iterkit_defs.h"
#include "harness.h"
#include "prog_run.h"
#include <linux/types.h>
#include "kmsg.h"
#include "park.h"
#include "cgroupfs.h"
#include "fuzz.h"
#include "fuzz.skel.h"

#define CG "/sys/fs/cgroup"
#define TOP CG "/kit_fuzz"
#define TREE TOP "/tree"
#define CHURN TOP "/churn"
#define NR_PARKED 4
#define MAX_TREE 64

enum { CTX_SYSCALL, CTX_RAW_TP, CTX_IRQ, NR_CTX };
static const char *const ctx_name[NR_CTX] = { "syscall", "raw_tp", "irq" };

/* ---- random numbers (xorshift64*) ---- */

static unsigned long long rng;

static unsigned long long rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned long long rnd_below(unsigned long long n)
{
	return n ? rnd() % n : 0;
}

#define PICK(arr) ((arr)[rnd_below(sizeof(arr) / sizeof((arr)[0]))])

/* ---- the world the cases refer to ---- */

struct tree_node {
	unsigned long long id;
	int level, size, children;
};

static struct world {
	struct tree_node tree[MAX_TREE];
	int nr_tree;
	unsigned long long root_id, removed_id, dying_id, file_ids[4];
	pid_t self, zombie, reaped, thread_tid;
	int pid_max;
	/* Shared with the churner: what it is creating and forking right now. */
	volatile unsigned long long *churn_cg_id;
	volatile pid_t *churn_pid;
} w;

/* TREE: depth 3, fan-out 3 (40 cgroups); returns the subtree size of @dir. */
static int build_tree(const char *dir, int level, int depth)
{
	char sub[512];
	int i, idx, size = 1;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	idx = w.nr_tree++;
	if (idx >= MAX_TREE)
		return -1;
	w.tree[idx].id = ino_of(dir);
	w.tree[idx].level = level;
	w.tree[idx].children = depth ? 3 : 0;
	for (i = 0; depth && i < 3; i++) {
		int s;

		snprintf(sub, sizeof(sub), "%s/c%d", dir, i);
		s = build_tree(sub, level + 1, depth - 1);
		if (s < 0)
			return -1;
		size += s;
	}
	w.tree[idx].size = size;
	return size;
}

/* Forks and creates/removes cgroups below CHURN until killed. */
static void churner(void)
{
	char path[256];
	pid_t c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		int a = rnd_below(4), b = rnd_below(4);

		snprintf(path, sizeof(path), CHURN "/a%d", a);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), CHURN "/a%d/b%d", a, b);
		if (!mkdir(path, 0755))
			*w.churn_cg_id = ino_of(path);
		c = fork();
		if (c == 0)
			_exit(0);
		if (c > 0) {
			*w.churn_pid = c;
			waitpid(c, NULL, 0);
		}
		rmdir(path);
		if (rnd_below(4) == 0) {
			snprintf(path, sizeof(path), CHURN "/a%d", a);
			rmdir(path);
		}
	}
}

/* ---- cases ---- */

static void num_case(struct fuzz_case *c)
{
	static const int starts[] = { INT_MIN, INT_MIN + 1, -1, 0, 1, INT_MAX - 1, INT_MAX };
	static const long long deltas[] = { -1, 0, 1, 2, 7, KIT_NUM_MAX_RANGE - 1, KIT_NUM_MAX_RANGE,
					    KIT_NUM_MAX_RANGE + 1, -KIT_NUM_MAX_RANGE, 1LL << 31 };
	long long start, end, range;

	start = rnd_below(2) ? PICK(starts) : (int)rnd();
	switch (rnd_below(4)) {
	case 0:
		end = start + PICK(deltas);
		break;
	case 1:
		end = PICK(starts);
		break;
	case 2:
		end = start + (long long)rnd_below(100);
		break;
	default:
		end = (int)rnd();
		break;
	}
	if (end > INT_MAX)
		end = INT_MAX;
	if (end < INT_MIN)
		end = INT_MIN;
	c->kind = FUZZ_NUM;
	c->a = start;
	c->b = end;
	range = end - start;
	if (range < 0)
		c->want = -EINVAL;
	else if (range > KIT_NUM_MAX_RANGE)
		c->want = -E2BIG;
	else
		c->min_n = c->max_n = range;
	/* Long ranges are abandoned early; short ones usually walked out. */
	c->take = range > 256 ? 1 + rnd_below(16) : (rnd_below(4) ? 0 : rnd_below(range + 2));
}

static void seq_case(struct fuzz_case *c)
{
	static const long long values[] = { LLONG_MIN, -1, 0, 1, LLONG_MAX };
	static const int cnts[] = { INT_MIN, -1, 0, 1, 2, 100, INT_MAX };
	long long cnt;

	c->kind = FUZZ_SEQ;
	c->a = rnd_below(2) ? PICK(values) : (long long)rnd();
	cnt = rnd_below(2) ? PICK(cnts) : (int)rnd_below(300) - 20;
	c->b = cnt;
	if (cnt < 0)
		c->want = -EINVAL;
	else
		c->min_n = c->max_n = cnt;
	c->take = cnt > 256 ? 1 + rnd_below(16) : (rnd_below(4) ? 0 : rnd_below(cnt + 2));
}

static void task_case(struct fuzz_case *c)
{
	unsigned int flags;
	long long pid;

	c->kind = FUZZ_TASK;
	switch (rnd_below(8)) {
	case 0:
		flags = 1u << rnd_below(32);	/* every bit */
		break;
	case 1:
		flags = rnd_below(2) ? (unsigned int)rnd() : ~0u;
		break;
	default:
		flags = rnd_below(3);
		break;
	}
	c->flags = flags;
	c->min_n = 1;
	c->max_n = KIT_TASK_MAX_STEPS;

	switch (rnd_below(14)) {
	case 0: pid = 0; break;
	case 1: pid = 1; break;
	case 2: pid = w.self; break;
	case 3: pid = w.zombie; break;
	case 4: pid = w.reaped; break;
	case 5: pid = w.thread_tid; break;
	case 6: pid = w.pid_max; break;
	case 7: pid = INT_MAX; break;
	case 8: pid = INT_MIN; break;
	case 9: pid = -(long long)rnd_below(100000) - 1; break;
	case 10: pid = *w.churn_pid; break;
	default: pid = 2 + rnd_below(w.pid_max - 2); break;
	}
	c->a = pid;

	if (flags > 2) {
		c->want = -EINVAL;
	} else if (flags != 2) {
		c->want = pid ? -EINVAL : 0;
		c->min_n = 2;		/* the idle task and init */
		/* Whole walks of every task are rarer; most are abandoned. */
		c->take = rnd_below(16) ? 1 + rnd_below(32) : 0;
	} else if (pid == 0) {
		c->want = -EINVAL;
	} else if (pid < 0 || pid == w.reaped || pid == w.thread_tid || pid >= w.pid_max) {
		c->want = -ESRCH;
	} else if (pid == w.self) {
		c->min_n = c->max_n = NR_PARKED + 1;
	} else if (pid == w.zombie) {
		c->min_n = c->max_n = 1;
	} else if (pid != 1) {
		/* A process that may or may not exist at this instant. */
		c->want_alt = -ESRCH;
	}
	if (c->want_alt == 0)
		c->want_alt = c->want;
}

static void cgroup_case(struct fuzz_case *c)
{
	static const unsigned int bad_orders[] = { 6, 7, 8, 64, 0x80000000u, 0xffffffffu };
	const struct tree_node *t = NULL;
	unsigned long long id;
	unsigned int order;

	c->kind = rnd_below(3) ? FUZZ_CGROUP : FUZZ_CGROUP_AT;
	switch (rnd_below(8)) {
	case 0:
		order = rnd_below(2) ? PICK(bad_orders) : 1u << rnd_below(32);
		break;
	case 1:
		order = (unsigned int)rnd();
		break;
	default:
		order = rnd_below(6);
		break;
	}
	c->flags = order;

	c->want = -ENOENT;
	switch (rnd_below(12)) {
	case 0: id = 0; break;
	case 1: id = w.root_id; break;
	case 2: id = w.removed_id; break;
	case 3: id = w.dying_id; break;
	case 4: id = w.file_ids[rnd_below(4)]; break;
	case 5: id = rnd_below(2) ? ~0ULL : rnd(); break;
	case 6: id = *w.churn_cg_id; break;
	case 7: id = 1 + rnd_below(4096); break;
	default:
		t = &w.tree[rnd_below(w.nr_tree)];
		id = t->id;
		break;
	}
	c->a = id;
	c->start_id = id ? id : w.root_id;
	c->min_n = 1;
	c->max_n = KIT_CGROUP_MAX_STEPS;
	if (order == KIT_CGROUP_CHILDREN)
		c->min_n = 0;

	if (order > 5) {
		c->want = -EINVAL;
	} else if (t) {
		c->want = 0;
		switch (order) {
		case 1: c->min_n = c->max_n = 1; break;
		case 4: c->min_n = c->max_n = t->level + 1; break;
		case 5: c->min_n = c->max_n = t->children; break;
		default: c->min_n = c->max_n = t->size; break;
		}
	} else if (id == 0 || id == w.root_id) {
		c->want = 0;
		if (order == 1 || order == 4)
			c->max_n = 1;
		else if (order != 5)
			c->min_n = 1 + 1 + w.nr_tree;	/* the root, TOP, TREE... */
	} else if (id == w.removed_id || id == w.dying_id || id == ~0ULL ||
		   id == w.file_ids[0] || id == w.file_ids[1] || id == w.file_ids[2] ||
		   id == w.file_ids[3] || id > (1ULL << 40)) {
		c->want = -ENOENT;
	} else {
		/* Churned, or a small id: some cgroup, a file, or nothing. */
		c->want = 0;
		c->want_alt = -ENOENT;
		if (order == 5)
			c->min_n = 0;
	}
	if (!c->want_alt)
		c->want_alt = c->want;
	c->take = rnd_below(8) ? 0 : rnd_below(8);
}

static void make_cases(struct fuzz_case *cases, int n)
{
	int i;

	memset(cases, 0, n * sizeof(*cases));
	for (i = 0; i < n; i++) {
		struct fuzz_case *c = &cases[i];

		switch (rnd_below(4)) {
		case FUZZ_NUM: num_case(c); break;
		case FUZZ_SEQ: seq_case(c); break;
		case FUZZ_TASK: task_case(c); break;
		default: cgroup_case(c); break;
		}
		if (c->kind == FUZZ_NUM || c->kind == FUZZ_SEQ)
			c->want_alt = c->want;
		c->after = rnd_below(9);
	}
}

static const char *kind_name(unsigned int k)
{
	static const char *const names[] = { "kit_num", "testmod_seq", "kit_task", "kit_cgroup",
		"kit_cgroup_at" };

	return k < FUZZ_KINDS ? names[k] : "?";
}

static const char *what_name(unsigned int what)
{
	static const char *const names[] = { "", "unexpected errno", "error left elements",
		"wrong element value", "walk length out of bounds", "element after the end",
		"wrong walk shape", "abandoned walk went on" };

	return what < sizeof(names) / sizeof(names[0]) ? names[what] : "?";
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

FIXTURE(fuzz) {
	struct fuzz_bpf *skel;
	pid_t churn;
	char marker[64];
};

FIXTURE_SETUP(fuzz)
{
	const char *seed = getenv("FUZZ_SEED");
	cpu_set_t cpus;
	siginfo_t si;
	int fds[2];
	void *shm;
	FILE *f;
	long i;

	rng = seed ? strtoull(seed, NULL, 0) : (unsigned long long)time(NULL) * 2654435761u;
	if (!rng)
		rng = 1;
	TH_LOG("seed %llu (FUZZ_SEED reproduces the cases)", rng);

	snprintf(self->marker, sizeof(self->marker), "iterkit fuzz start %d", getpid());
	ASSERT_EQ(0, kmsg_mark(self->marker));

	/* Run on CPU 0, so the IPI runs on CPU 1. */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));

	self->skel = fuzz_bpf__open_and_load();
	ASSERT_NE(NULL, self->skel) TH_LOG("loading fuzz.bpf.o failed");

	remove_tree(TOP);
	ASSERT_EQ(0, mkdir(TOP, 0755));
	ASSERT_EQ(0, mkdir(CHURN, 0755));
	ASSERT_EQ(40, build_tree(TREE, 2, 3));
	w.root_id = ino_of(CG);
	ASSERT_EQ(0, mkdir(TOP "/removed", 0755));
	w.removed_id = ino_of(TOP "/removed");
	ASSERT_EQ(0, rmdir(TOP "/removed"));
	ASSERT_EQ(0, wait_no_dying(TOP));
	/*
	 * A dying cgroup: removed while something still holds it. A zombie
	 * does: its css_set keeps a reference until the zombie is reaped.
	 */
	ASSERT_EQ(0, mkdir(TOP "/dying", 0755));
	w.dying_id = ino_of(TOP "/dying");
	ASSERT_EQ(0, pipe(fds));
	w.zombie = fork();
	ASSERT_GE(w.zombie, 0);
	if (!w.zombie) {
		char c;

		close(fds[1]);
		/* Exit once the parent has moved us into TOP/dying. */
		_exit(read(fds[0], &c, 1) == 1 ? 0 : 1);
	}
	close(fds[0]);
	f = fopen(TOP "/dying/cgroup.procs", "w");
	ASSERT_NE(NULL, f);
	ASSERT_GT(fprintf(f, "%d\n", w.zombie), 0);
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(1, write(fds[1], "x", 1));
	close(fds[1]);
	/* Wait for it to be a zombie, without reaping it. */
	ASSERT_EQ(0, waitid(P_PID, w.zombie, &si, WEXITED | WNOWAIT));
	ASSERT_EQ(0, rmdir(TOP "/dying"));
	ASSERT_EQ(1, nr_dying(TOP)) TH_LOG("the zombie's cgroup should stay dying");
	w.file_ids[0] = ino_of(TREE "/cgroup.procs");
	w.file_ids[1] = ino_of(TREE "/c1/cgroup.events");
	w.file_ids[2] = ino_of(CG "/cgroup.procs");
	w.file_ids[3] = ino_of(TREE "/c2/c2/cgroup.type");
	for (i = 0; i < 4; i++)
		ASSERT_NE(0, w.file_ids[i]);

	f = fopen("/proc/sys/kernel/pid_max", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%d", &w.pid_max));
	fclose(f);
	w.self = getpid();
	ASSERT_EQ(0, park_threads(NR_PARKED + 1));
	w.thread_tid = parked_tid[0];
	w.reaped = fork();
	if (!w.reaped)
		_exit(0);
	ASSERT_EQ(w.reaped, waitpid(w.reaped, NULL, 0));

	shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shm);
	w.churn_cg_id = shm;
	w.churn_pid = (pid_t *)((char *)shm + 64);
	self->churn = fork();
	ASSERT_GE(self->churn, 0);
	if (!self->churn) {
		CPU_ZERO(&cpus);
		CPU_SET(1, &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		churner();
	}
}

FIXTURE_TEARDOWN(fuzz)
{
	if (self->churn > 0) {
		kill(self->churn, SIGKILL);
		waitpid(self->churn, NULL, 0);
	}
	if (w.zombie > 0) {
		waitpid(w.zombie, NULL, 0);
		w.zombie = 0;
	}
	unpark_threads();
	if (self->skel)
		fuzz_bpf__destroy(self->skel);
	remove_tree(TOP);
}

TEST_F_TIMEOUT(fuzz, constructors, 3600)
{
	const char *env = getenv("FUZZ_CALLS");
	unsigned long long want_calls = env ? strtoull(env, NULL, 0) : 200000;
	unsigned long long ctx_calls[NR_CTX] = {}, calls = 0, runs = 0;
	unsigned long long sum_calls, sum_errors, sum_elements;
	struct fuzz_stats *st = &self->skel->bss->stats;
	unsigned int k, b;
	double t0 = now(), secs;
	int ctx, err;

	while (calls < want_calls) {
		struct bpf_program *prog;
		int cpu = -1;

		make_cases(self->skel->bss->cases, FUZZ_MAX_CASES);
		self->skel->bss->nr_cases = FUZZ_MAX_CASES;
		/* Alternate: syscall, irq, raw_tp, irq, ... */
		ctx = runs % 2 ? CTX_IRQ : (runs / 2) % 2 ? CTX_RAW_TP : CTX_SYSCALL;
		prog = ctx == CTX_SYSCALL ? self->skel->progs.fuzz_syscall :
					     self->skel->progs.fuzz_raw_tp;
		if (ctx == CTX_IRQ)
			cpu = 1;
		err = kit_prog_run_on(prog, cpu);
		ASSERT_EQ(0, err) TH_LOG("run %llu (%s) failed", runs, ctx_name[ctx]);
		if (ctx == CTX_IRQ)
			ASSERT_EQ(1, self->skel->bss->last_cpu) TH_LOG("the irq run did not run on CPU 1");
		ctx_calls[ctx] += FUZZ_MAX_CASES;
		calls += FUZZ_MAX_CASES;
		runs++;
		if (st->nr_bad) {
			/* Show the cases while they are still in the map. */
			for (b = 0; b < st->nr_bad && b < FUZZ_MAX_BAD; b++) {
				struct fuzz_bad *bd = &st->bad[b];
				struct fuzz_case *c = &self->skel->bss->cases[bd->index % FUZZ_MAX_CASES];

				TH_LOG("%s (%s): %s(%lld, %lld, flags %#x) -> got %lld after %lld elements: %s "
				       "(want %d or %d, %lld..%lld elements, take %u)",
				       kind_name(c->kind), ctx_name[ctx], kind_name(c->kind),
				       (long long)c->a, (long long)c->b, c->flags,
				       (long long)bd->got, (long long)bd->n, what_name(bd->what),
				       c->want, c->want_alt, (long long)c->min_n, (long long)c->max_n,
				       c->take);
			}
			break;
		}
	}
	secs = now() - t0;
	EXPECT_EQ(0, st->nr_bad);
	ASSERT_GE(calls, want_calls);
	for (k = 0; k < FUZZ_KINDS; k++)
		EXPECT_GT(st->calls[k], 0);
	for (k = 0, sum_calls = sum_errors = sum_elements = 0; k < FUZZ_KINDS; k++) {
		sum_calls += st->calls[k];
		sum_errors += st->errors[k];
		sum_elements += st->elements[k];
	}
	EXPECT_EQ(calls, sum_calls);
	printf("# calls fuzzed: %llu in %.0f s (kit_num %llu, testmod_seq %llu, kit_task %llu, "
	       "kit_cgroup %llu, kit_cgroup_at %llu; syscall %llu, raw_tp %llu, irq %llu)\n",
	       calls, secs, (unsigned long long)st->calls[0], (unsigned long long)st->calls[1],
	       (unsigned long long)st->calls[2], (unsigned long long)st->calls[3],
	       (unsigned long long)st->calls[4],
	       ctx_calls[CTX_SYSCALL], ctx_calls[CTX_RAW_TP], ctx_calls[CTX_IRQ]);
	printf("# fuzz: %llu errno results, %llu elements, %llu walks abandoned, "
	       "%llu next() calls after the end, %llu failed checks\n",
	       sum_errors, sum_elements,
	       (unsigned long long)st->abandoned, (unsigned long long)st->after_end,
	       (unsigned long long)st->nr_bad);
	fflush(stdout);

	/* The dying cgroup is released once its zombie is reaped; nothing leaks. */
	ASSERT_EQ(w.zombie, waitpid(w.zombie, NULL, 0));
	w.zombie = 0;
	kill(self->churn, SIGKILL);
	waitpid(self->churn, NULL, 0);
	self->churn = 0;
	remove_tree(TOP);
	EXPECT_EQ(0, wait_no_dying(CG)) TH_LOG("a removed cgroup was never released");
	EXPECT_EQ(0, kmsg_reports_since(self->marker, kmsg_print));
}

TEST_HARNESS_MAIN
