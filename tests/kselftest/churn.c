// SPDX-License-Identifier: GPL-2.0
/*
 * Walkers of every kind, in a loop on both CPUs, while other processes
 * fork and exit, threads exec (de_thread), processes migrate between
 * cgroups, and cgroups are created and removed in a nested tree. Every walk
 * must end, yield nothing twice, yield everything that exists throughout
 * it, keep its shape, and stay within the bounds documented in
 * docs/walker-task.md and docs/walker-cgroup.md ("Under churn").
 *
 *   CHURN_SECS   how long (default 10; check-debug: 300)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iterkit_defs.h"
#include "harness.h"
#include "prog_run.h"
#include "kmsg.h"
#include "cgroupfs.h"
#include "../helpers/churn_counters.h"
#include "churn.skel.h"

#define CG "/sys/fs/cgroup"
#define TOP CG "/kit_churn"
#define STATIC TOP "/static"
#define DYN TOP "/dyn"
#define COUNTERS "/tmp/kit_churn.counters"
#define MAX_MUST 16
#define NR_SLEEPERS 4
/*
 * Tasks the churn adds at most at one instant: the fork churner, its child
 * and the child's thread (3), the exec churner with its threads (5), the
 * sleepers, the mover, the cgroup churner and the two walkers.
 */
#define CHURN_TASKS_MAX (3 + 5 + NR_SLEEPERS + 1 + 1 + 2)
/* Kernel threads (kworkers) that may come and go during the test. */
#define KTHREAD_SLACK 32

enum { W_TASK, W_CGROUP, W_NUM, W_SEQ };

struct spec {
	const char *name;
	int kind;
	unsigned int flags;
};

static const struct spec specs[] = {
	{ "kit_task procs", W_TASK, KIT_TASK_ALL_PROCS },
	{ "kit_task threads", W_TASK, KIT_TASK_ALL_THREADS },
	{ "kit_task exec churner's threads", W_TASK, KIT_TASK_PROC_THREADS },
	{ "kit_cgroup pre from the root", W_CGROUP, 0 },
	{ "kit_cgroup pre", W_CGROUP, KIT_CGROUP_DESCENDANTS_PRE },
	{ "kit_cgroup post", W_CGROUP, KIT_CGROUP_DESCENDANTS_POST },
	{ "kit_cgroup children", W_CGROUP, KIT_CGROUP_CHILDREN },
	{ "kit_cgroup children of the churned cgroup", W_CGROUP, KIT_CGROUP_CHILDREN },
	{ "kit_cgroup up", W_CGROUP, KIT_CGROUP_ANCESTORS_UP },
	{ "kit_cgroup self", W_CGROUP, KIT_CGROUP_SELF_ONLY },
	{ "kit_num", W_NUM, 0 },
	{ "testmod_seq", W_SEQ, 0 },
};
#define NR_SPECS (sizeof(specs) / sizeof(specs[0]))

/* What a walker reports to the test at the end, through a pipe. */
struct walker_report {
	unsigned long long walks[NR_SPECS], max_n[NR_SPECS], failures;
	unsigned long long irq_walks;
	double longest;		/* seconds, the slowest single walk */
	char first_failure[256];
};

static struct churn_counters *cnt;
static unsigned long long static_ids[MAX_MUST];
static int nr_static;
static unsigned long long top_id, static_id, dyn_id, deep_id, root_id;
static int deep_level;
static pid_t long_lived[MAX_MUST];
static int nr_long_lived;
static int baseline_threads;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static pid_t spawn(void (*fn)(void))
{
	pid_t p = fork();

	if (p == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fn();
		_exit(0);
	}
	return p;
}

/* ---- churners ---- */

static void *short_thread(void *arg)
{
	return NULL;
}

static void fork_churner(void)
{
	unsigned long long i;

	for (i = 0;; i++) {
		pid_t c;

		churn_count(cnt, clones, 1 + (i & 1));
		c = fork();
		if (c == 0) {
			pthread_t th;

			if (i & 1 && !pthread_create(&th, NULL, short_thread, NULL))
				pthread_join(th, NULL);
			_exit(0);
		}
		if (c > 0)
			waitpid(c, NULL, 0);
	}
}

static void sleeper(void)
{
	for (;;)
		pause();
}

static pid_t sleepers[NR_SLEEPERS], fork_churn_pid;

/* Moves the sleepers, the fork churner and the exec churner between cgroups. */
static void mover(void)
{
	char path[256];
	unsigned int seed = getpid();

	for (;;) {
		int r = rand_r(&seed);
		pid_t who;
		FILE *f;

		switch (r % 6) {
		case 0: who = fork_churn_pid; break;
		case 1: who = cnt->exec_tgid; break;
		default: who = sleepers[r % NR_SLEEPERS]; break;
		}
		if ((r >> 4) % 2)
			snprintf(path, sizeof(path), STATIC "/s%d/t%d/cgroup.procs", (r >> 5) % 4,
				 (r >> 7) % 2);
		else
			snprintf(path, sizeof(path), DYN "/a%d/b%d/cgroup.procs", (r >> 5) % 4,
				 (r >> 7) % 4);
		f = fopen(path, "w");
		if (!f)
			continue;
		/* The write happens at fclose(), which frees f either way. */
		fprintf(f, "%d\n", who);
		if (!fclose(f))
			churn_count(cnt, migrations, 1);
		usleep(200);
	}
}

/* Creates and removes cgroups up to three deep below DYN. */
static void cgroup_churner(void)
{
	unsigned int seed = getpid();
	char path[256];

	for (;;) {
		int a = rand_r(&seed) % 4, b = rand_r(&seed) % 4, c = rand_r(&seed) % 4;

		snprintf(path, sizeof(path), DYN "/a%d", a);
		churn_count(cnt, mkdirs, 1);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), DYN "/a%d/b%d", a, b);
		churn_count(cnt, mkdirs, 1);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), DYN "/a%d/b%d/c%d", a, b, c);
		churn_count(cnt, mkdirs, 1);
		mkdir(path, 0755);
		if (!rmdir(path))
			churn_count(cnt, rmdirs, 1);
		if (rand_r(&seed) % 2) {
			snprintf(path, sizeof(path), DYN "/a%d/b%d", a, b);
			if (!rmdir(path))
				churn_count(cnt, rmdirs, 1);
		}
		if (rand_r(&seed) % 4 == 0) {
			snprintf(path, sizeof(path), DYN "/a%d", a);
			if (!rmdir(path))
				churn_count(cnt, rmdirs, 1);
		}
	}
}

/* ---- walkers ---- */

/* A walk in a sleepable program here, or in a raw_tp one on @other_cpu. */
static int run_walk(struct churn_bpf *skel, int other_cpu)
{
	int ret = other_cpu >= 0 ? kit_prog_run_on(skel->progs.walk_raw_tp, other_cpu) :
				   kit_prog_run(skel->progs.walk_syscall);

	return ret < 0 ? ret : 0;
}

static void fail(struct walker_report *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->failures++) {
		va_start(ap, fmt);
		vsnprintf(r->first_failure, sizeof(r->first_failure), fmt, ap);
		va_end(ap);
	}
}

/* Makes the map must_see hold exactly @must. */
static int set_must(struct churn_bpf *skel, const __s64 *must, unsigned int n)
{
	int fd = bpf_map__fd(skel->maps.must_see);
	__s64 key;
	__u8 one = 1;
	unsigned int i;

	while (!bpf_map_get_next_key(fd, NULL, &key))
		if (bpf_map_delete_elem(fd, &key))
			return -1;
	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, &must[i], &one, BPF_ANY))
			return -1;
	return 0;
}

/*
 * One walker: all specs in turn for @secs, half of the walks in an IPI on
 * the other CPU. The time starts once its programs are loaded: on a loaded
 * machine loading alone can take longer than the whole run.
 */
static void walker(int cpu, double secs, int fd)
{
	struct walker_report r = {};
	struct churn_bpf *skel;
	unsigned long long i;
	double end;
	int err;

	pin(cpu);
	skel = churn_bpf__open_and_load();
	if (!skel) {
		fail(&r, "cpu %d: loading churn.bpf.o failed", cpu);
		goto out;
	}
	end = now() + secs;
	for (i = 0; now() < end; i++) {
		const struct spec *sp = &specs[i % NR_SPECS];
		int irq = (i / NR_SPECS) % 2, k, idx = i % NR_SPECS;
		unsigned long long clones0, clones;
		struct churn_bpf__bss *b = skel->bss;
		long long n, bound;
		double t0, t;

		__s64 must[MAX_MUST];

		b->kind = sp->kind;
		b->flags = sp->flags;
		b->nr_must = 0;
		switch (idx) {
		case 0:
		case 1:
			b->arg = 0;
			for (k = 0; k < nr_long_lived; k++)
				must[k] = long_lived[k];
			must[k++] = getpid();
			b->nr_must = k;
			break;
		case 2:
			b->arg = cnt->exec_tgid;
			break;
		case 3:
			b->arg = 0;
			b->start_id = root_id;
			break;
		case 4:
		case 5:
		case 9:
			b->arg = b->start_id = top_id;
			break;
		case 6:
			b->arg = b->start_id = top_id;
			must[0] = static_id;
			must[1] = dyn_id;
			b->nr_must = 2;
			break;
		case 7:
			b->arg = b->start_id = dyn_id;
			break;
		case 8:
			b->arg = b->start_id = deep_id;
			break;
		case 10:
			b->arg = 100;
			break;
		default:
			b->arg = 50;
			break;
		}
		if (idx >= 3 && idx <= 5) {
			for (k = 0; k < nr_static; k++)
				must[k] = static_ids[k];
			b->nr_must = nr_static;
		}

		if (set_must(skel, must, b->nr_must)) {
			fail(&r, "%s: filling must_see failed", sp->name);
			continue;
		}
		clones0 = churn_read(cnt, clones);
		t0 = now();
		err = run_walk(skel, irq ? !cpu : -1);
		t = now() - t0;
		clones = churn_read(cnt, clones) - clones0;
		if (err) {
			fail(&r, "%s: BPF_PROG_TEST_RUN failed: %d", sp->name, err);
			continue;
		}
		if (t > r.longest)
			r.longest = t;
		r.walks[idx]++;
		r.irq_walks += irq;
		n = b->n;
		if ((unsigned long long)n > r.max_n[idx])
			r.max_n[idx] = n;
		if (irq && b->cpu != (unsigned int)!cpu)
			fail(&r, "%s: the IPI walk ran on CPU %u", sp->name, b->cpu);
		if (b->ret)
			fail(&r, "%s: new() returned %d", sp->name, b->ret);
		if (b->dups)
			fail(&r, "%s: %llu elements yielded twice", sp->name, b->dups);
		if (b->shape_bad)
			fail(&r, "%s: %llu elements out of shape (last: pid %d tgid %d exit_state %d)",
			     sp->name, b->shape_bad, b->bad_pid, b->bad_tgid, b->bad_exit_state);
		if (b->must_seen != b->nr_must)
			fail(&r, "%s: %u of the %u elements that existed throughout were yielded",
			     sp->name, b->must_seen, b->nr_must);
		/* The documented bounds. */
		switch (idx) {
		case 0:
		case 1:
			bound = baseline_threads + CHURN_TASKS_MAX + KTHREAD_SLACK + clones + 2;
			if (n > bound || n > KIT_TASK_MAX_STEPS)
				fail(&r, "%s: %lld tasks, bound %lld", sp->name, n, bound);
			break;
		case 2:
			/* Threads alive at the start, plus those created during the walk. */
			if (n < 1 || n > 5 + (long long)clones + 1)
				fail(&r, "%s: %lld threads, bound 1..%llu", sp->name, n, 5 + clones + 1);
			break;
		case 6:
			if (n != 2)
				fail(&r, "%s: %lld children, want 2", sp->name, n);
			break;
		case 8:
			if (n != deep_level + 1)
				fail(&r, "%s: %lld ancestors, want %d", sp->name, n, deep_level + 1);
			break;
		case 9:
			if (n != 1)
				fail(&r, "%s: %lld cgroups", sp->name, n);
			break;
		case 10:
			if (n != 100)
				fail(&r, "%s: %lld values", sp->name, n);
			break;
		case 11:
			if (n != 50)
				fail(&r, "%s: %lld values", sp->name, n);
			break;
		default:
			/* Cgroups: every one listed at some moment of the walk, at most once. */
			if (n > KIT_CGROUP_MAX_STEPS || (idx != 7 && n < nr_static))
				fail(&r, "%s: %lld cgroups", sp->name, n);
			break;
		}
	}
	churn_bpf__destroy(skel);
out:
	if (write(fd, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

FIXTURE(churn) {
	pid_t kids[16];
	int nr_kids;
	char marker[64];
};

FIXTURE_SETUP(churn)
{
	int fd, i, j;
	char path[256];

	snprintf(self->marker, sizeof(self->marker), "iterkit churn start %d", getpid());
	ASSERT_EQ(0, kmsg_mark(self->marker));
	remove_tree(TOP);
	ASSERT_EQ(0, mkdir(TOP, 0755));
	ASSERT_EQ(0, mkdir(STATIC, 0755));
	ASSERT_EQ(0, mkdir(DYN, 0755));
	static_ids[nr_static++] = top_id = ino_of(TOP);
	static_ids[nr_static++] = static_id = ino_of(STATIC);
	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), STATIC "/s%d", i);
		ASSERT_EQ(0, mkdir(path, 0755));
		static_ids[nr_static++] = ino_of(path);
		for (j = 0; j < 2; j++) {
			snprintf(path, sizeof(path), STATIC "/s%d/t%d", i, j);
			ASSERT_EQ(0, mkdir(path, 0755));
			if (nr_static < MAX_MUST)
				static_ids[nr_static++] = ino_of(path);
		}
	}
	dyn_id = ino_of(DYN);
	deep_id = ino_of(STATIC "/s3/t1");
	deep_level = 4;		/* root 0, kit_churn 1, static 2, s3 3, t1 4 */
	root_id = ino_of(CG);

	fd = open(COUNTERS, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ftruncate(fd, 4096));
	cnt = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, cnt);
	memset(cnt, 0, sizeof(*cnt));
}

FIXTURE_TEARDOWN(churn)
{
	int i;

	for (i = 0; i < self->nr_kids; i++)
		if (self->kids[i] > 0)
			kill(self->kids[i], SIGKILL);
	for (i = 0; i < self->nr_kids; i++)
		if (self->kids[i] > 0)
			waitpid(self->kids[i], NULL, 0);
	self->nr_kids = 0;
	remove_tree(TOP);
	unlink(COUNTERS);
}

static const char *exec_churn_path(void)
{
	static char path[PATH_MAX];
	char self_exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	if (len < 0)
		return "helpers/exec_churn";
	self_exe[len] = '\0';
	snprintf(path, sizeof(path), "%s/helpers/exec_churn", dirname(self_exe));
	return path;
}

TEST_F_TIMEOUT(churn, walkers_on_both_cpus, 3600)
{
	const char *env = getenv("CHURN_SECS");
	int secs = env ? atoi(env) : 10, i, k, pipes[2][2];
	unsigned long long walks = 0, per_kind[4] = {}, max_n[NR_SPECS] = {}, irq_walks = 0;
	struct walker_report rep[2];
	const char *helper = exec_churn_path();
	struct churn_bpf *skel;
	pid_t walkers[2], exec_pid;
	double longest = 0;

	ASSERT_EQ(0, access(helper, X_OK)) TH_LOG("no %s", helper);
	/* Before any churn: how many threads there are. */
	skel = churn_bpf__open_and_load();
	ASSERT_NE(NULL, skel);
	skel->bss->kind = W_TASK;
	skel->bss->flags = KIT_TASK_ALL_THREADS;
	ASSERT_EQ(0, run_walk(skel, -1));
	ASSERT_EQ(0, skel->bss->ret);
	baseline_threads = skel->bss->n;
	churn_bpf__destroy(skel);

	long_lived[nr_long_lived++] = 1;
	long_lived[nr_long_lived++] = getpid();
	for (i = 0; i < NR_SLEEPERS; i++) {
		sleepers[i] = spawn(sleeper);
		ASSERT_GT(sleepers[i], 0);
		self->kids[self->nr_kids++] = sleepers[i];
		long_lived[nr_long_lived++] = sleepers[i];
	}
	fork_churn_pid = spawn(fork_churner);
	ASSERT_GT(fork_churn_pid, 0);
	self->kids[self->nr_kids++] = fork_churn_pid;
	long_lived[nr_long_lived++] = fork_churn_pid;
	exec_pid = fork();
	ASSERT_GE(exec_pid, 0);
	if (!exec_pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl(helper, helper, COUNTERS, (char *)NULL);
		_exit(127);
	}
	self->kids[self->nr_kids++] = exec_pid;
	cnt->exec_tgid = exec_pid;
	self->kids[self->nr_kids] = spawn(mover);
	long_lived[nr_long_lived++] = self->kids[self->nr_kids++];
	self->kids[self->nr_kids] = spawn(cgroup_churner);
	long_lived[nr_long_lived++] = self->kids[self->nr_kids++];
	/* Let the exec churner start its threads. */
	usleep(100000);

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pipe(pipes[i]));
		walkers[i] = fork();
		ASSERT_GE(walkers[i], 0);
		if (!walkers[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(pipes[i][0]);
			walker(i, secs, pipes[i][1]);
		}
		close(pipes[i][1]);
	}
	for (i = 0; i < 2; i++) {
		memset(&rep[i], 0, sizeof(rep[i]));
		EXPECT_EQ(sizeof(rep[i]), read(pipes[i][0], &rep[i], sizeof(rep[i])))
			TH_LOG("walker %d died", i);
		close(pipes[i][0]);
		waitpid(walkers[i], NULL, 0);
	}
	for (i = 0; i < self->nr_kids; i++)
		kill(self->kids[i], SIGKILL);

	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, rep[i].failures)
			TH_LOG("walker on CPU %d: %llu failures, first: %s", i, rep[i].failures,
			       rep[i].first_failure);
		for (k = 0; k < (int)NR_SPECS; k++) {
			EXPECT_GT(rep[i].walks[k], 0) TH_LOG("CPU %d never walked %s", i,
							     specs[k].name);
			walks += rep[i].walks[k];
			per_kind[specs[k].kind] += rep[i].walks[k];
			if (rep[i].max_n[k] > max_n[k])
				max_n[k] = rep[i].max_n[k];
		}
		irq_walks += rep[i].irq_walks;
		if (rep[i].longest > longest)
			longest = rep[i].longest;
	}
	printf("# walks under churn: %llu in %d s on 2 CPUs (kit_task %llu, kit_cgroup %llu, "
	       "kit_num %llu, testmod_seq %llu; %llu of them in IRQ context); longest walk %.3f s\n",
	       walks, secs, per_kind[W_TASK], per_kind[W_CGROUP], per_kind[W_NUM], per_kind[W_SEQ],
	       irq_walks, longest);
	printf("# churn: %llu tasks created, %llu execs (de_thread), %llu migrations, "
	       "%llu cgroups created, %llu removed; most tasks in one walk %llu (baseline %d), "
	       "most cgroups %llu\n",
	       churn_read(cnt, clones), churn_read(cnt, execs), churn_read(cnt, migrations),
	       churn_read(cnt, mkdirs), churn_read(cnt, rmdirs), max_n[1], baseline_threads,
	       max_n[3]);
	fflush(stdout);
	EXPECT_GT(churn_read(cnt, execs), 0) TH_LOG("no exec happened");
	EXPECT_GT(churn_read(cnt, migrations), 0) TH_LOG("no migration happened");
	EXPECT_GT(churn_read(cnt, rmdirs), 0) TH_LOG("no cgroup was removed");
	EXPECT_GT(churn_read(cnt, clones), 100) TH_LOG("too little churn to mean anything");

	for (i = 0; i < self->nr_kids; i++)
		waitpid(self->kids[i], NULL, 0);
	self->nr_kids = 0;
	remove_tree(TOP);
	EXPECT_EQ(0, wait_no_dying(CG)) TH_LOG("removed cgroups never released");
	EXPECT_EQ(0, kmsg_reports_since(self->marker, kmsg_print));
}

TEST_HARNESS_MAIN
