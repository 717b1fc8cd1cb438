// SPDX-License-Identifier: GPL-2.0
/*
 * The host-like guest (tests/guest/test_hostlike.sh): processes to fill it,
 * and the walkers checked against /proc, cgroupfs and the kernel's own
 * iterators in it.
 *
 *   hostlike spawn           reads "CGROUP-DIR HEX-NAME THREADS" lines on
 *                            stdin; forks one process per line into that
 *                            cgroup, named so (PR_SET_NAME takes any bytes),
 *                            with THREADS more threads (-1: it exits at once
 *                            and stays a zombie, which keeps its cgroup
 *                            dying once removed); prints "ready N" and
 *                            stays until SIGTERM, then kills and reaps them
 *   hostlike check NAMES     the walkers on the host; NAMES holds the hex
 *                            names given to spawn, one per line
 *   hostlike enter PID CMD...
 *                            runs CMD in the pid, cgroup and mount
 *                            namespaces of PID (nsenter, with the cgroup
 *                            namespace busybox's lacks)
 *   hostlike check-ns HOSTID ROOTID
 *                            inside a container (its own pid, cgroup and
 *                            mount namespaces, moved into one of its
 *                            cgroups); HOSTID is a cgroup outside it,
 *                            ROOTID the host's root cgroup
 * The checks print TAP, and exit 1 when one failed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iterkit_defs.h"
#include "../kselftest/cgroupfs.h"
#include "../kselftest/prog_run.h"
#include "../kselftest/procfs.h"
#include "task_rec.h"
#include "kit_task_walks.skel.h"
#include "kit_cgroup_walks.skel.h"

#define CG "/sys/fs/cgroup"
#define MAX_IDS 1024
#define MAX_SEQ 16384
#define CSS_ONLINE (1 << 1)

static int tap_n, tap_failed;

static void tap(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed++;
}

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int unhex(const char *hex, char *out, int max)
{
	int n = 0;
	unsigned int b;

	while (hex[0] && hex[1] && n < max - 1 && sscanf(hex, "%2x", &b) == 1) {
		out[n++] = b;
		hex += 2;
	}
	out[n] = '\0';
	return n;
}

/* A printable rendering of a comm, for diagnostics. */
static const char *show(const char *s)
{
	static char buf[4][80];
	static int k;
	char *o = buf[k++ % 4];
	int i = 0;

	for (; *s && i < 70; s++)
		i += snprintf(o + i, 80 - i, (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ?
			      "\\x%02x" : "%c", (unsigned char)*s);
	return o;
}

/* ---- spawn ---- */

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

static void *idle_thread(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

static int move_self(const char *dir)
{
	char path[600];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static int spawn(void)
{
	static pid_t kids[8192];
	char dir[512], hex[80], name[40], c;
	int nkids = 0, nzombies = 0, threads, fds[2], i;

	if (pipe(fds))
		return 1;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	while (scanf("%511s %79s %d", dir, hex, &threads) == 3 && nkids < 8192) {
		pid_t p;

		unhex(hex, name, sizeof(name));
		p = fork();
		if (p < 0)
			break;
		if (!p) {
			close(fds[0]);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (move_self(dir))
				_exit(1);
			prctl(PR_SET_NAME, name);
			if (threads < 0)
				_exit(0);
			for (i = 0; i < threads; i++) {
				pthread_t th;

				pthread_create(&th, NULL, idle_thread, NULL);
			}
			if (write(fds[1], "r", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		if (threads < 0) {
			siginfo_t si;

			/* Exited, and left unreaped. */
			waitid(P_PID, p, &si, WEXITED | WNOWAIT);
			nzombies++;
		}
		kids[nkids++] = p;
	}
	close(fds[1]);
	for (i = 0; i < nkids - nzombies; i++) {
		if (read(fds[0], &c, 1) != 1) {
			fprintf(stderr, "hostlike: child %d of %d did not start\n", i, nkids);
			break;
		}
	}
	printf("ready %d\n", i + nzombies);
	fflush(stdout);
	while (!stop)
		pause();
	for (i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < nkids; i++)
		waitpid(kids[i], NULL, 0);
	return 0;
}

/* ---- /proc ---- */

/* ---- cgroupfs ---- */

static int cgroupfs_ids(const char *dir, unsigned long long *ids, int n, int max)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return n;
	if (n < max)
		ids[n++] = ino_of(dir);
	while ((de = readdir(d))) {
		char sub[1024];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		n = cgroupfs_ids(sub, ids, n, max);
	}
	closedir(d);
	return n;
}

static int has_id(const unsigned long long *ids, int n, unsigned long long id)
{
	int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* ---- BPF runs ---- */

/* Test runs that failed or whose program returned non-zero, so far. */
static int run_failures;

/* A test run (on @cpu, or here for -1) that reports what went wrong. */
static int run(struct bpf_program *prog, int cpu)
{
	int ret = kit_prog_run_on(prog, cpu);

	if (ret && run_failures++ < 5)
		diag("test run of %s (cpu %d): %d", bpf_program__name(prog), cpu, ret);
	return ret;
}

static void cg_reset(struct kit_cgroup_walks_bpf *skel, unsigned long long id, unsigned int order)
{
	skel->bss->kit_ret = skel->bss->css_ret = 12345;
	skel->bss->kit_n = skel->bss->css_n = 0;
	skel->bss->after_drain = 0;
	skel->bss->kit_start = id;
	skel->bss->css_start = id;
	skel->bss->order = order;
}

/* No result: the program did not run (not a value new() returns). */
#define NOT_RUN 12345

/*
 * kit_cgroup's new() from a syscall program (0), this context's raw_tp (1)
 * or hard IRQ on @cpu (2): its result, or NOT_RUN.
 */
static int cg_lookup(struct kit_cgroup_walks_bpf *skel, unsigned long long id, unsigned int order,
		     int how, int cpu)
{
	int ret;

	cg_reset(skel, id, order);
	switch (how) {
	case 0:
		ret = run(skel->progs.errors, -1);
		break;
	case 1:
		ret = run(skel->progs.errors_irq, -1);
		break;
	default:
		ret = run(skel->progs.errors_irq, cpu);
		break;
	}
	return ret ? NOT_RUN : skel->bss->kit_ret;
}

/*
 * Whether a walked comm (task->comm: at most 15 bytes and a NUL) is the
 * name /proc gives the task: the same bytes. Only a kernel thread's (ppid
 * 2, or kthreadd itself) may be longer in /proc: its full name, of which
 * comm holds 15 bytes, or a kworker's comm then '+' or '-' and its
 * workqueue.
 */
static int comm_is(const char *walk, const struct task_info *proc)
{
	size_t wlen = strnlen(walk, 16), plen = strlen(proc->comm);
	int kthread = proc->ppid == 2 || proc->tid == 2;

	if (wlen > 15 || plen < wlen || memcmp(walk, proc->comm, wlen))
		return 0;
	return plen == wlen ||
	       (kthread && (wlen == 15 || proc->comm[wlen] == '+' || proc->comm[wlen] == '-'));
}

static void check_tasks(char names[][40], int nnames)
{
	struct kit_task_walks_bpf *skel = kit_task_walks_bpf__open_and_load();
	struct task_set before = {}, after = {};
	int mode, i, j, stable = 0, missing = 0, wrong = 0, found, failed;

	if (!skel) {
		tap(0, "tasks: loading kit_task_walks");
		return;
	}
	/* Lock-step with bpf_iter_task in both modes. */
	for (mode = 0; mode < 2; mode++) {
		int diffs = 0;

		skel->bss->pid = 0;
		skel->bss->flags = mode;
		skel->bss->steps = 0;
		skel->bss->ker_extra = 0;
		skel->bss->overflow = 0;
		failed = run(skel->progs.diff, -1);
		for (i = 0; i < (int)skel->bss->steps; i++)
			diffs += skel->bss->kit_tids[i] != skel->bss->ker_tids[i];
		tap(!failed && !skel->bss->kit_ret && !skel->bss->ker_ret && !skel->bss->overflow &&
		    !skel->bss->ker_extra && !diffs && skel->bss->steps > 900,
		    "tasks: %s walk is bpf_iter_task's, step by step (%u tasks)",
		    mode ? "KIT_TASK_ALL_THREADS" : "KIT_TASK_ALL_PROCS", skel->bss->steps);
		if (diffs || skel->bss->ker_extra)
			diag("%d steps differ, %u only in bpf_iter_task", diffs, skel->bss->ker_extra);
	}

	/* Every thread in /proc before and after, unchanged, is walked with /proc's data. */
	proc_snapshot(&before, true);
	skel->bss->pid = 0;
	skel->bss->flags = 1;
	skel->bss->overflow = 0;
	failed = run(skel->progs.record, -1);
	proc_snapshot(&after, true);
	for (i = 0; i < before.n; i++) {
		const struct task_info *b = &before.v[i], *a = set_find(&after, b->tid);
		if (!a || a->ppid != b->ppid || strcmp(a->comm, b->comm) || b->tgid == getpid())
			continue;
		stable++;
		for (j = 0, found = 0; j < (int)skel->bss->nrecs; j++) {
			if (skel->bss->recs[j].tid != b->tid)
				continue;
			found = 1;
			if (skel->bss->recs[j].tgid != b->tgid || skel->bss->recs[j].ppid != b->ppid ||
			    !comm_is(skel->bss->recs[j].comm, b)) {
				if (wrong++ < 5)
					diag("tid %d: /proc tgid %d ppid %d comm '%s', walk %d %d '%s'",
					     b->tid, b->tgid, b->ppid, show(b->comm),
					     skel->bss->recs[j].tgid, skel->bss->recs[j].ppid,
					     show(skel->bss->recs[j].comm));
			}
			break;
		}
		if (!found && missing++ < 5)
			diag("tid %d '%s' in /proc, not in the walk", b->tid, show(b->comm));
	}
	tap(!failed && !skel->bss->overflow && stable > 1000 && !missing && !wrong,
	    "tasks: every thread stable in /proc is walked, tgid, ppid and comm bytes equal "
	    "(%d stable, %u walked)", stable, skel->bss->nrecs);

	/* The hostile names come back byte for byte (none is over 15 bytes). */
	for (i = 0, missing = 0; i < nnames; i++) {
		for (j = 0, found = 0; j < (int)skel->bss->nrecs && !found; j++)
			found = strnlen(skel->bss->recs[j].comm, 16) == strlen(names[i]) &&
				!memcmp(skel->bss->recs[j].comm, names[i], strlen(names[i]));
		if (!found) {
			missing++;
			diag("no task named '%s'", show(names[i]));
		}
	}
	tap(!failed && nnames > 0 && !missing, "tasks: %d names with control bytes, spaces, non-UTF-8 and 15 bytes walked as set",
	    nnames);
	free(before.v);
	free(after.v);
	kit_task_walks_bpf__destroy(skel);
}

static void check_cgroups(void)
{
	static unsigned long long fs[MAX_IDS], walk[MAX_IDS];
	static unsigned int wflags[MAX_IDS];
	struct kit_cgroup_walks_bpf *skel = kit_cgroup_walks_bpf__open_and_load();
	unsigned int orders[] = { KIT_CGROUP_DESCENDANTS_PRE, KIT_CGROUP_DESCENDANTS_POST };
	int nfs, nwalk, i, o, online = 0, offline = 0, strays = 0, unwalked = 0;
	int cpu = sched_getcpu() == 0 ? 1 : 0, disagree = 0, lookups = 0, wrong = 0, failed;
	long dying;

	if (!skel) {
		tap(0, "cgroups: loading kit_cgroup_walks");
		return;
	}
	/* kit_cgroup and bpf_iter_css in one RCU section, dying cgroups included. */
	for (o = 0; o < 2; o++) {
		int diffs = 0;

		cg_reset(skel, 0, orders[o]);
		skel->bss->css_start = ino_of(CG);
		failed = run(skel->progs.diff, -1);
		for (i = 0; i < (int)skel->bss->kit_n && i < MAX_IDS; i++)
			diffs += skel->bss->kit_ids[i] != skel->bss->css_ids[i];
		tap(!failed && !skel->bss->kit_ret && !skel->bss->css_ret && skel->bss->kit_n == skel->bss->css_n &&
		    skel->bss->kit_n > 250 && skel->bss->kit_n < MAX_IDS && !diffs,
		    "cgroups: %s walk from the root is bpf_iter_css's (%llu cgroups)",
		    o ? "post-order" : "pre-order", (unsigned long long)skel->bss->kit_n);
	}

	/* Online cgroups are exactly cgroupfs; the offline ones are its dying ones. */
	dying = cgroup_stat(CG, "nr_dying_descendants");
	nfs = cgroupfs_ids(CG, fs, 0, MAX_IDS);
	failed = cg_lookup(skel, 0, KIT_CGROUP_DESCENDANTS_PRE, 0, 0);
	nwalk = skel->bss->kit_n < MAX_IDS ? skel->bss->kit_n : MAX_IDS;
	for (i = 0; i < nwalk; i++) {
		walk[i] = skel->bss->kit_ids[i];
		wflags[i] = skel->bss->kit_flags[i];
		if (wflags[i] & CSS_ONLINE) {
			online++;
			if (!has_id(fs, nfs, walk[i]) && strays++ < 5)
				diag("online cgroup %llu is not in cgroupfs", walk[i]);
		} else {
			offline++;
			if (has_id(fs, nfs, walk[i]) && strays++ < 5)
				diag("offline cgroup %llu is in cgroupfs", walk[i]);
		}
	}
	for (i = 0; i < nfs; i++)
		if (!has_id(walk, nwalk, fs[i]) && unwalked++ < 5)
			diag("cgroupfs directory %llu not walked", fs[i]);
	tap(!failed && online == nfs && !strays && !unwalked,
	    "cgroups: the online cgroups walked are exactly cgroupfs's %d directories", nfs);
	tap(!failed && offline == dying && dying >= 15 && dying == cgroup_stat(CG, "nr_dying_descendants"),
	    "cgroups: the walk yields the %d dying cgroups (nr_dying_descendants %ld), marked offline",
	    offline, dying);

	/*
	 * Every online id found, the same three ways, and its cgroup alone
	 * walked; every dying one -ENOENT, the three ways.
	 */
	for (i = 0; i < nwalk; i++) {
		int want = wflags[i] & CSS_ONLINE ? 0 : -ENOENT, got[3], how;

		for (how = 0; how < 3; how++) {
			got[how] = cg_lookup(skel, walk[i], KIT_CGROUP_SELF_ONLY, how, cpu);
			lookups++;
			if (got[how] != want || (!want && (skel->bss->kit_n != 1 ||
							   skel->bss->kit_ids[0] != walk[i]))) {
				if (wrong++ < 5)
					diag("id %llu (%s): lookup %d gave %d, %llu cgroup(s) from %llu",
					     walk[i], want ? "dying" : "online", how, got[how],
					     (unsigned long long)skel->bss->kit_n,
					     (unsigned long long)skel->bss->kit_ids[0]);
			}
		}
		if (got[0] != got[1] || got[0] != got[2])
			disagree++;
	}
	tap(!wrong && !disagree && lookups == 3 * nwalk && nwalk > 250 && offline >= 15,
	    "cgroups: %d lookups agree (syscall, raw_tp, hard IRQ): every online id found, "
	    "each dying one -ENOENT", lookups);

	/* kit_cgroup_at from each live cgroup's pointer walks as kit_cgroup from its id. */
	for (i = 0, disagree = 0; i < nfs; i += 7) {
		int j, diffs = 0;

		cg_reset(skel, fs[i], i % 2 ? KIT_CGROUP_DESCENDANTS_POST : KIT_CGROUP_ANCESTORS_UP);
		failed = run(skel->progs.diff_at, -1);
		for (j = 0; j < (int)skel->bss->kit_n && j < MAX_IDS; j++)
			diffs += skel->bss->kit_ids[j] != skel->bss->css_ids[j];
		if (failed || skel->bss->kit_ret || skel->bss->css_ret ||
		    skel->bss->kit_n != skel->bss->css_n || diffs)
			disagree++;
	}
	tap(!disagree, "cgroups: kit_cgroup_at from a pointer walks as kit_cgroup from the id");
	kit_cgroup_walks_bpf__destroy(skel);
}

static int check(const char *names_file)
{
	static char names[64][40];
	char hex[80];
	int nnames = 0;
	FILE *f = fopen(names_file, "r");

	while (f && nnames < 64 && fscanf(f, "%79s", hex) == 1)
		unhex(hex, names[nnames++], 40);
	if (f)
		fclose(f);
	check_tasks(names, nnames);
	check_cgroups();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* ---- inside a container ---- */

static unsigned long long own_cgroup_id(void)
{
	char line[600], path[700];
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	/* "0::/path", relative to this cgroup namespace's root. */
	snprintf(path, sizeof(path), CG "%s", strchr(line, '/') ? strchr(line, '/') : "/");
	return ino_of(path);
}

static int check_ns(unsigned long long host_id, unsigned long long root_id)
{
	struct kit_cgroup_walks_bpf *skel = kit_cgroup_walks_bpf__open_and_load();
	unsigned long long own = own_cgroup_id(), ns_root = ino_of(CG), top = 0;
	int a, b, i, n;

	if (!skel) {
		tap(0, "container: loading kit_cgroup_walks");
		return 1;
	}
	tap(own && own != ns_root, "container: this process sits below its cgroup namespace's root");
	/* Its own cgroup and ancestors, up to the namespace root and past it. */
	a = cg_lookup(skel, own, KIT_CGROUP_ANCESTORS_UP, 0, 0);
	n = skel->bss->kit_n;
	tap(!a && n >= 3 && skel->bss->kit_ids[0] == own,
	    "container: ANCESTORS_UP from its own cgroup by id (%d cgroups)", n);
	for (i = 0; i < n && skel->bss->kit_ids[i] != ns_root; i++)
		;
	if (n)
		top = skel->bss->kit_ids[n - 1];
	tap(i < n - 1 && top == root_id,
	    "container: ... passes its namespace root, up to the host's root (%llu, host %llu)",
	    top, root_id);
	b = cg_lookup(skel, own, KIT_CGROUP_ANCESTORS_UP, 1, 0);
	tap(!b && (int)skel->bss->kit_n == n, "container: the same from a raw_tp (not preemptible)");

	/* Ids outside the namespace are not visible from inside, either way. */
	a = cg_lookup(skel, host_id, KIT_CGROUP_SELF_ONLY, 0, 0);
	b = cg_lookup(skel, host_id, KIT_CGROUP_SELF_ONLY, 1, 0);
	tap(a == -ENOENT && b == -ENOENT, "container: a host cgroup's id is -ENOENT (%d, %d)", a, b);
	a = cg_lookup(skel, ns_root, KIT_CGROUP_DESCENDANTS_PRE, 0, 0);
	n = skel->bss->kit_n;
	b = cg_lookup(skel, ns_root, KIT_CGROUP_DESCENDANTS_PRE, 1, 0);
	tap(!a && !b && n == (int)skel->bss->kit_n && n >= 3,
	    "container: its namespace root by id, both ways (%d cgroups below)", n);
	/* 0 is the global root, as documented, namespace or not. */
	a = cg_lookup(skel, 0, KIT_CGROUP_SELF_ONLY, 0, 0);
	tap(!a && skel->bss->kit_n == 1 && skel->bss->kit_ids[0] == root_id && root_id != ns_root,
	    "container: id 0 is the global root, not the namespace's (%llu, host's root %llu)",
	    (unsigned long long)skel->bss->kit_ids[0], root_id);
	kit_cgroup_walks_bpf__destroy(skel);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* ---- containers ---- */

static int enter(pid_t pid, char **cmd)
{
	static const char *const kinds[] = { "pid", "cgroup", "mnt" };
	char path[64];
	pid_t child;
	int i, fd, status;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, kinds[i]);
		fd = open(path, O_RDONLY);
		if (fd < 0 || setns(fd, 0)) {
			fprintf(stderr, "hostlike: entering %s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
	}
	/* A new pid namespace applies to children only. */
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "enter"))
		return enter(atoi(argv[2]), argv + 3);
	if (argc >= 2 && !strcmp(argv[1], "spawn"))
		return spawn();
	if (argc >= 3 && !strcmp(argv[1], "check"))
		return check(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "check-ns"))
		return check_ns(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
	fprintf(stderr, "usage: hostlike spawn | check NAMES | enter PID CMD... | "
		"check-ns HOST-CGROUP-ID HOST-ROOT-ID\n");
	return 2;
}
