// SPDX-License-Identifier: GPL-2.0
/*
 * kit_task: the task walker against the kernel's bpf_iter_task, against
 * /proc (through `iterkit tasks --json`), on every error path, and under
 * fork/exit churn.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iterkit_defs.h"
#include "harness.h"
#include "prog_run.h"
#include "kmsg.h"
#include "park.h"
#include "procfs.h"
#include "task_rec.h"
#include "max_steps.h"
#include "kit_task_walks.skel.h"
#include "kit_capped.skel.h"

/* ---- differential: kit_task and bpf_iter_task in lock-step ---- */

/* Tasks of this process that the last diff_walk() met. */
static int diff_own;

static void diff_walk(struct __test_metadata *_metadata, int pid, unsigned int flags,
		      int *steps_out)
{
	struct kit_task_walks_bpf *skel = kit_task_walks_bpf__open_and_load();
	__u32 i;
	int steps;

	ASSERT_NE(NULL, skel) TH_LOG("loading kit_task_walks failed");
	skel->bss->pid = pid;
	skel->bss->flags = flags;
	ASSERT_EQ(0, kit_prog_run(skel->progs.diff));
	ASSERT_EQ(0, skel->bss->kit_ret);
	ASSERT_EQ(0, skel->bss->ker_ret);
	ASSERT_EQ(0, skel->bss->overflow);
	ASSERT_EQ(0, skel->bss->ker_extra) TH_LOG("bpf_iter_task went on after kit_task ended");
	steps = skel->bss->steps;
	ASSERT_GT(steps, 0);
	diff_own = 0;
	for (i = 0; i < (__u32)steps; i++) {
		diff_own += skel->bss->kit_tgids[i] == getpid();
		ASSERT_EQ(skel->bss->ker_tids[i], skel->bss->kit_tids[i])
			TH_LOG("mode %u: step %u: kit_task gave tid %d, bpf_iter_task %d",
			       flags, i, skel->bss->kit_tids[i], skel->bss->ker_tids[i]);
		/* Processes mode yields thread-group leaders only. */
		if (flags == KIT_TASK_ALL_PROCS)
			ASSERT_EQ(skel->bss->kit_tgids[i], skel->bss->kit_tids[i]);
		if (flags == KIT_TASK_PROC_THREADS)
			ASSERT_EQ(pid, skel->bss->kit_tgids[i]);
	}
	if (flags != KIT_TASK_PROC_THREADS) {
		ASSERT_EQ(0, skel->bss->kit_tids[0]) TH_LOG("the idle task comes first");
	} else {
		ASSERT_EQ(pid, skel->bss->kit_tids[0]) TH_LOG("the leader comes first");
	}
	TH_LOG("mode %u: %u tasks, identical sequences", flags, steps);
	*steps_out = steps;
	kit_task_walks_bpf__destroy(skel);
}

static int count_proc_dirs(const char *path)
{
	struct dirent *d;
	DIR *dir = opendir(path);
	int n = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			n++;
	closedir(dir);
	return n;
}

TEST(diff_all_procs)
{
	int steps;

	diff_walk(_metadata, 0, KIT_TASK_ALL_PROCS, &steps);
	/* /proc has no pid 0; allow for kworkers coming and going. */
	ASSERT_LT(abs(steps - 1 - count_proc_dirs("/proc")), 16);
}

TEST(diff_all_threads)
{
	int procs, threads;

	ASSERT_EQ(0, park_threads(8));
	/*
	 * This process's tasks, counted in each walk: the totals of two walks
	 * differ by the kernel workers that came or went in between.
	 */
	diff_walk(_metadata, 0, KIT_TASK_ALL_PROCS, &procs);
	ASSERT_EQ(1, diff_own) TH_LOG("KIT_TASK_ALL_PROCS has this process once, its leader");
	diff_walk(_metadata, 0, KIT_TASK_ALL_THREADS, &threads);
	ASSERT_EQ(8, diff_own) TH_LOG("KIT_TASK_ALL_THREADS has all 8 threads of this process");
	ASSERT_GT(threads, procs - 16) TH_LOG("threads %d, processes %d", threads, procs);
	unpark_threads();
}

TEST(diff_proc_threads_8)
{
	int steps;

	ASSERT_EQ(0, park_threads(8));
	ASSERT_EQ(8, count_proc_dirs("/proc/self/task"));
	diff_walk(_metadata, getpid(), KIT_TASK_PROC_THREADS, &steps);
	ASSERT_EQ(8, steps);
	unpark_threads();
}

TEST(diff_proc_threads_init)
{
	int steps;

	diff_walk(_metadata, 1, KIT_TASK_PROC_THREADS, &steps);
	ASSERT_EQ(1, steps);
}

/* ---- error paths: errno, and an empty iterator afterwards ---- */

struct probe_result {
	int ret;
	long long count;
	int after;
};

static struct probe_result probe(struct __test_metadata *_metadata, int pid, unsigned int flags)
{
	struct kit_task_walks_bpf *skel = kit_task_walks_bpf__open_and_load();
	struct probe_result r = { .ret = 1 };

	if (!skel) {
		TH_LOG("loading kit_task_walks failed");
		return r;
	}
	skel->bss->pid = pid;
	skel->bss->flags = flags;
	if (kit_prog_run(skel->progs.probe)) {
		TH_LOG("running probe failed");
		r.ret = 1;	/* matches no expectation */
		kit_task_walks_bpf__destroy(skel);
		return r;
	}
	r.ret = skel->bss->probe_ret;
	r.count = skel->bss->probe_count;
	r.after = skel->bss->probe_after;
	kit_task_walks_bpf__destroy(skel);
	return r;
}

#define EXPECT_ERROR(pid, flags, err) do {					\
	struct probe_result r = probe(_metadata, (pid), (flags));		\
	EXPECT_EQ(-(err), r.ret) TH_LOG("new(pid %d, flags %#x)", (int)(pid), (unsigned int)(flags)); \
	EXPECT_EQ(0, r.count) TH_LOG("iterator not empty after new(pid %d, flags %#x)", \
				     (int)(pid), (unsigned int)(flags));	\
	EXPECT_EQ(0, r.after);							\
} while (0)

static int read_pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

TEST(errors_einval)
{
	EXPECT_ERROR(1, KIT_TASK_ALL_PROCS, EINVAL);
	EXPECT_ERROR(getpid(), KIT_TASK_ALL_PROCS, EINVAL);
	EXPECT_ERROR(-1, KIT_TASK_ALL_PROCS, EINVAL);
	EXPECT_ERROR(1, KIT_TASK_ALL_THREADS, EINVAL);
	EXPECT_ERROR(0, KIT_TASK_PROC_THREADS, EINVAL);
	EXPECT_ERROR(0, 3, EINVAL);
	EXPECT_ERROR(getpid(), 3, EINVAL);
	EXPECT_ERROR(0, 0x80000000u, EINVAL);
	EXPECT_ERROR(0, 0xffffffffu, EINVAL);
	EXPECT_ERROR(getpid(), KIT_TASK_PROC_THREADS | 0x100, EINVAL);
}

TEST(errors_esrch)
{
	int pid_max = read_pid_max();
	pid_t child;

	ASSERT_GT(pid_max, 0);
	/* pid_max itself is never handed out. */
	EXPECT_ERROR(pid_max, KIT_TASK_PROC_THREADS, ESRCH);
	EXPECT_ERROR(0x7fffffff, KIT_TASK_PROC_THREADS, ESRCH);
	EXPECT_ERROR(-7, KIT_TASK_PROC_THREADS, ESRCH);
	EXPECT_ERROR(-2147483647 - 1, KIT_TASK_PROC_THREADS, ESRCH);

	/* A process that existed and is gone (reaped). */
	child = fork();
	ASSERT_GE(child, 0);
	if (!child)
		_exit(0);
	ASSERT_EQ(child, waitpid(child, NULL, 0));
	EXPECT_ERROR(child, KIT_TASK_PROC_THREADS, ESRCH);

	/* A thread id is not a process id. */
	ASSERT_EQ(0, park_threads(2));
	EXPECT_ERROR(parked_tid[0], KIT_TASK_PROC_THREADS, ESRCH);
	unpark_threads();
}

TEST(valid_walks_end)
{
	struct probe_result r;

	r = probe(_metadata, 0, KIT_TASK_ALL_PROCS);
	EXPECT_EQ(0, r.ret);
	EXPECT_GT(r.count, 2);
	EXPECT_EQ(0, r.after) TH_LOG("next() after the end must stay NULL");
	r = probe(_metadata, 0, KIT_TASK_ALL_THREADS);
	EXPECT_EQ(0, r.ret);
	EXPECT_GT(r.count, 2);
	EXPECT_EQ(0, r.after);
	ASSERT_EQ(0, park_threads(3));
	r = probe(_metadata, getpid(), KIT_TASK_PROC_THREADS);
	EXPECT_EQ(0, r.ret);
	EXPECT_EQ(3, r.count);
	EXPECT_EQ(0, r.after);
	unpark_threads();
}

/* ---- ground truth: `iterkit tasks --json` against /proc ---- */

static const char *iterkit_path(void)
{
	const char *p = getenv("ITERKIT");

	return p ? p : "/iterkit/iterkit";
}

/* Parses one line of `iterkit tasks --json`; 0 on a task line. */
static int parse_json_task(const char *line, struct task_info *t)
{
	const char *c = strstr(line, "\"comm\":\"");
	int i = 0;

	if (sscanf(line, "{\"pid\":%d,\"tid\":%d,\"ppid\":%d,", &t->tgid, &t->tid, &t->ppid) != 3 || !c)
		return -1;
	/* JSON strings are UTF-8: a \uXXXX escape is a code point, not a byte. */
	for (c += 8; *c && *c != '"' && i < 60; c++) {
		if (*c == '\\' && c[1] == 'u') {
			long cp = strtol((char[]){ c[2], c[3], c[4], c[5], 0 }, NULL, 16);

			if (cp < 0x80) {
				t->comm[i++] = cp;
			} else if (cp < 0x800) {
				t->comm[i++] = 0xc0 | cp >> 6;
				t->comm[i++] = 0x80 | (cp & 0x3f);
			} else {
				t->comm[i++] = 0xe0 | cp >> 12;
				t->comm[i++] = 0x80 | ((cp >> 6) & 0x3f);
				t->comm[i++] = 0x80 | (cp & 0x3f);
			}
			c += 5;
		} else if (*c == '\\') {
			c++;
			t->comm[i++] = *c;
		} else {
			t->comm[i++] = *c;
		}
	}
	t->comm[i] = '\0';
	return 0;
}

/* Runs iterkit; returns its pid, fills s, sets *count from "count". */
static int run_iterkit(struct task_set *s, bool threads, int *count)
{
	char cmd[256], line[512];
	int pid = -1, rc;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "sh -c 'echo $$; exec %s tasks --json%s'", iterkit_path(),
		 threads ? " --threads" : "");
	f = popen(cmd, "r");
	if (!f)
		return -1;
	s->n = 0;
	*count = -1;
	if (fgets(line, sizeof(line), f))
		pid = atoi(line);
	while (fgets(line, sizeof(line), f)) {
		struct task_info t;

		if (!parse_json_task(line, &t))
			set_add(s, &t);
		else
			sscanf(line, "],\"count\":%d}", count);
	}
	rc = pclose(f);
	return rc == 0 ? pid : -1;
}

#define NCHILD 200

static pid_t children[NCHILD];

static void *sleeper(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "ktgt%ld.t", (long)arg);
	prctl(PR_SET_NAME, name);
	for (;;)
		pause();
	return NULL;
}

/* NCHILD processes named ktgtN; every fifth has 1..4 extra threads. */
static int spawn_children(void)
{
	int i, fds[2];
	char c;

	if (pipe(fds))
		return -1;
	for (i = 0; i < NCHILD; i++) {
		children[i] = fork();
		if (children[i] < 0)
			return -1;
		if (!children[i]) {
			char name[16];
			int j;

			close(fds[0]);
			snprintf(name, sizeof(name), "ktgt%d", i);
			prctl(PR_SET_NAME, name);
			for (j = 0; i % 5 == 0 && j < 1 + i % 4; j++) {
				pthread_t th;

				pthread_create(&th, NULL, sleeper, (void *)(long)i);
			}
			/* Let the threads name themselves before reporting ready. */
			usleep(100000);
			if (write(fds[1], "r", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
	}
	close(fds[1]);
	for (i = 0; i < NCHILD; i++)
		if (read(fds[0], &c, 1) != 1)
			return -1;
	close(fds[0]);
	return 0;
}

static void reap_children(void)
{
	int i;

	for (i = 0; i < NCHILD; i++)
		if (children[i] > 0)
			kill(children[i], SIGKILL);
	for (i = 0; i < NCHILD; i++)
		if (children[i] > 0)
			waitpid(children[i], NULL, 0);
}

static void ground_truth(struct __test_metadata *_metadata, bool threads)
{
	struct task_set before = {}, after = {}, kit = {};
	int i, self, count, ours = 0, stable = 0;

	ASSERT_EQ(0, spawn_children());
	proc_snapshot(&before, threads);
	self = run_iterkit(&kit, threads, &count);
	proc_snapshot(&after, threads);
	reap_children();
	ASSERT_GT(self, 0) TH_LOG("iterkit tasks --json failed");
	ASSERT_EQ(kit.n, count) TH_LOG("\"count\" disagrees with the task lines");
	ASSERT_GT(kit.n, 0);
	ASSERT_EQ(0, kit.v[0].tid) TH_LOG("the idle task comes first");

	/* Everything the walk saw existed at some point around it (iterkit aside). */
	for (i = 1; i < kit.n; i++) {
		const struct task_info *t = &kit.v[i];
		const struct task_info *p = set_find(&before, t->tid) ?: set_find(&after, t->tid);

		if (t->tgid == self)
			continue;
		EXPECT_NE(NULL, p) TH_LOG("tid %d (%s) is not in /proc", t->tid, t->comm);
		if (!threads)
			EXPECT_EQ(t->tgid, t->tid);
		if (!strncmp(t->comm, "ktgt", 4))
			ours++;
	}
	/* Every task present in /proc before and after, unchanged, was seen, with /proc's data. */
	for (i = 0; i < before.n; i++) {
		const struct task_info *b = &before.v[i], *a = set_find(&after, b->tid), *k;

		if (!a || a->ppid != b->ppid || strcmp(a->comm, b->comm) || b->tgid == getpid())
			continue;
		stable++;
		k = set_find(&kit, b->tid);
		EXPECT_NE(NULL, k) TH_LOG("tid %d (%s) in /proc, not in the walk", b->tid, b->comm);
		if (!k)
			continue;
		EXPECT_EQ(b->tgid, k->tgid) TH_LOG("tid %d", b->tid);
		EXPECT_EQ(b->ppid, k->ppid) TH_LOG("tid %d", b->tid);
		EXPECT_EQ(0, strncmp(b->comm, k->comm, strlen(k->comm)))
			TH_LOG("tid %d: /proc comm '%s', walk comm '%s'", b->tid, b->comm, k->comm);
		EXPECT_GT(strlen(k->comm), 0);
	}
	/* 200 processes, and 40 of them with 1..4 extra threads (100 in all). */
	EXPECT_EQ(threads ? NCHILD + 100 : NCHILD, ours);
	EXPECT_GE(stable, threads ? NCHILD + 100 : NCHILD);
	TH_LOG("%d tasks in the walk, %d of ours, %d stable in /proc", kit.n, ours, stable);
	free(before.v);
	free(after.v);
	free(kit.v);
}

/*
 * A fixture only for its timeout: 200 processes start in about a second on
 * the stock kernel, but take longer than the harness's default 30 s in the
 * debug kernel of make check-debug.
 */
FIXTURE(ground_truth) {
	int unused;
};

FIXTURE_SETUP(ground_truth)
{
}

FIXTURE_TEARDOWN(ground_truth)
{
}

TEST_F_TIMEOUT(ground_truth, procs, 600)
{
	ground_truth(_metadata, false);
}

TEST_F_TIMEOUT(ground_truth, threads, 600)
{
	ground_truth(_metadata, true);
}

/* ---- churn: walks while processes fork and exit ---- */

static void *short_thread(void *arg)
{
	return NULL;
}

/* Forks children that exit at once (every other one after a thread) until killed. */
static void churn(int fd)
{
	long long forks = 0;
	struct timespec last = {}, now;

	for (;;) {
		pid_t c = fork();

		if (c == 0) {
			pthread_t th;

			if (forks & 1 && !pthread_create(&th, NULL, short_thread, NULL))
				pthread_join(th, NULL);
			_exit(0);
		}
		if (c > 0) {
			waitpid(c, NULL, 0);
			forks++;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec != last.tv_sec) {
			/* Report progress; the parent keeps the last value. */
			if (write(fd, &forks, sizeof(forks)) != sizeof(forks))
				_exit(1);
			last = now;
		}
	}
}

/* A fixture only for its timeout: the walk runs 30 s, the harness default. */
FIXTURE(churn) {
	int unused;
};

FIXTURE_SETUP(churn)
{
}

FIXTURE_TEARDOWN(churn)
{
}

TEST_F_TIMEOUT(churn, walk_30s, 600)
{
	struct kit_task_walks_bpf *skel = kit_task_walks_bpf__open_and_load();
	long long walks = 0, min = 1LL << 62, max = 0, forks = 0, v;
	struct timespec start, now;
	char marker[64];
	int fds[2], baseline;
	pid_t churner;

	ASSERT_NE(NULL, skel);
	snprintf(marker, sizeof(marker), "kit_task churn start %d", getpid());
	ASSERT_EQ(0, kmsg_mark(marker)) TH_LOG("writing to /dev/kmsg: %s", strerror(errno));

	/* Threads alive before the churn; the churner adds at most 3 at once. */
	ASSERT_EQ(0, kit_prog_run(skel->progs.count));
	baseline = skel->bss->count_tasks;
	ASSERT_GT(baseline, 2);

	ASSERT_EQ(0, pipe2(fds, O_NONBLOCK));
	churner = fork();
	ASSERT_GE(churner, 0);
	if (!churner) {
		/* Never outlive the test, even when an ASSERT ends it early. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fds[0]);
		churn(fds[1]);
	}
	close(fds[1]);

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		ASSERT_EQ(0, kit_prog_run(skel->progs.count));
		v = skel->bss->count_tasks;
		walks++;
		if (v < min)
			min = v;
		if (v > max)
			max = v;
		while (read(fds[0], &v, sizeof(v)) == sizeof(v))
			forks = v;
		/* Leave the churner CPU time: forks must overlap walks, not starve. */
		usleep(500);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < 30);
	kill(churner, SIGKILL);
	waitpid(churner, NULL, 0);
	while (read(fds[0], &v, sizeof(v)) == sizeof(v))
		forks = v;
	close(fds[0]);
	kit_task_walks_bpf__destroy(skel);

	TH_LOG("%lld walks, %lld..%lld threads each (baseline %d), %lld forks", walks, min, max,
	       baseline, forks);
	/* The debug kernel forks about a tenth as fast as the stock one. */
	EXPECT_GE(forks, 100) TH_LOG("too little churn to mean anything");
	EXPECT_GT(walks, 10);
	/* Tasks that come and go are seen or not; nothing else changes. */
	EXPECT_LE(max, baseline + 3 + 16);
	EXPECT_GE(min + 16, baseline);
	EXPECT_EQ(0, kmsg_reports_since(marker, kmsg_print));
}

/* ---- capped: the max_steps parameter and bpf_iter_kit_task_capped() ---- */

FIXTURE(capped) {
	struct kit_capped_bpf *skel;
};

FIXTURE_SETUP(capped)
{
	self->skel = kit_capped_bpf__open_and_load();
	ASSERT_NE(NULL, self->skel) TH_LOG("loading kit_capped failed");
	CAPPED_SETUP(self->skel->progs.task_walk, self->skel->bss->have);
}

FIXTURE_TEARDOWN(capped)
{
	/* Later tests rely on uncapped walks. */
	if (set_max_steps(0))
		fprintf(stderr, "# cannot restore max_steps to 0\n");
	kit_capped_bpf__destroy(self->skel);
}

/* One task_walk; new()'s result, and the skeleton holds the rest. */
static int capped_walk(struct __test_metadata *_metadata, struct kit_capped_bpf *skel,
		       int pid, unsigned int flags)
{
	skel->bss->pid = pid;
	skel->bss->flags = flags;
	if (kit_prog_run(skel->progs.task_walk))
		return 9999;
	if (!skel->bss->have)
		return 9998;
	EXPECT_EQ(0, skel->bss->capped_running) TH_LOG("capped() before the walk ended");
	EXPECT_EQ(0, skel->bss->after_drain);
	EXPECT_EQ(skel->bss->capped, skel->bss->capped_again) TH_LOG("capped() changed after the end");
	return skel->bss->ret;
}

/* Processes in /proc, plus the idle task the ALL_PROCS walk starts with. */
static long procs_in_proc(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long n = 1;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] >= '1' && de->d_name[0] <= '9';
	closedir(d);
	return n;
}

TEST_F(capped, max_steps_caps_walks)
{
	long before, after;
	int i;

	/* Uncapped: the whole task list, as /proc has it (retried while it moves). */
	for (i = 0; i < 20; i++) {
		before = procs_in_proc();
		ASSERT_EQ(0, capped_walk(_metadata, self->skel, 0, KIT_TASK_ALL_PROCS));
		after = procs_in_proc();
		if (before == after && self->skel->bss->count == before)
			break;
	}
	ASSERT_LT(i, 20) TH_LOG("walk %llu, /proc %ld then %ld",
				(unsigned long long)self->skel->bss->count, before, after);
	EXPECT_EQ(0, self->skel->bss->capped) TH_LOG("a complete walk said capped");

	/* Capped at N: exactly N tasks, and capped() says the walk was cut. */
	ASSERT_EQ(0, set_max_steps(5));
	ASSERT_EQ(0, capped_walk(_metadata, self->skel, 0, KIT_TASK_ALL_PROCS));
	EXPECT_EQ(5, self->skel->bss->count);
	EXPECT_EQ(1, self->skel->bss->capped);
	ASSERT_EQ(0, capped_walk(_metadata, self->skel, 0, KIT_TASK_ALL_THREADS));
	EXPECT_EQ(5, self->skel->bss->count);
	EXPECT_EQ(1, self->skel->bss->capped);

	/* A walk that ends exactly at the cap was not cut: this process has one thread. */
	ASSERT_EQ(0, set_max_steps(1));
	ASSERT_EQ(0, capped_walk(_metadata, self->skel, getpid(), KIT_TASK_PROC_THREADS));
	EXPECT_EQ(1, self->skel->bss->count);
	EXPECT_EQ(0, self->skel->bss->capped) TH_LOG("a walk that ended at the cap said capped");

	/* A failed new() leaves an empty iterator that was never capped. */
	EXPECT_EQ(-EINVAL, capped_walk(_metadata, self->skel, 0, 99));
	EXPECT_EQ(0, self->skel->bss->count);
	EXPECT_EQ(0, self->skel->bss->capped);
	EXPECT_EQ(-ESRCH, capped_walk(_metadata, self->skel, -1, KIT_TASK_PROC_THREADS));
	EXPECT_EQ(0, self->skel->bss->capped);
}

TEST_HARNESS_MAIN
