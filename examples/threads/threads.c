// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * threads: how many user processes and threads, and kernel threads, run
 * now, and which processes have the most threads (threads itself left
 * out). Counted in the kernel by threads.bpf.c with iterkit's kit_task;
 * where iterkit cannot do it, read from /proc instead, with one line on
 * stderr saying why.
 *
 *   threads [-n N] [-p] [-v]
 *
 * -n: list the N processes with the most threads (default 10, at most 16);
 * -p: count from /proc even when iterkit is there; -v: libbpf's debug
 * messages too.
 * Exit status:
 *   0  counted in the kernel with kit_task
 *   3  counted from /proc: the iterkit module is not loaded, or it has no
 *      task walker (built for a kernel older than 6.7), or -p
 *   1  an error (one line on stderr), 2 bad arguments
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "threads.h"
#include "threads.skel.h"

#define EXIT_FROM_PROC 3
#define PF_KTHREAD 0x00200000

struct result {
	struct threads_totals totals;
	struct threads_proc top[THREADS_TOP];
};

static int verbose;

/* libbpf's messages on stderr; its debug ones only with -v */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* a below b: fewer threads, or as many and a larger pid (the BPF side's order) */
static int below(const struct threads_proc *a, const struct threads_proc *b)
{
	return a->threads < b->threads || (a->threads == b->threads && a->pid > b->pid);
}

static int by_rank(const void *a, const void *b)
{
	return below(a, b) ? 1 : below(b, a) ? -1 : 0;
}

/*
 * comm (up to 16 bytes, not always NUL-terminated) with the bytes that
 * would break the line or fool a terminal as \xNN, and '\' too, so that
 * an escape always means one.
 */
static const char *escape_comm(char out[16 * 4 + 1], const char *comm)
{
	size_t i, n = 0;

	for (i = 0; i < 16 && comm[i]; i++) {
		unsigned char c = comm[i];

		if (c < 0x20 || c == 0x7f || c == '\\')
			n += sprintf(out + n, "\\x%02x", c);
		else
			out[n++] = c;
	}
	out[n] = 0;
	return out;
}

/* The kernel's count: THREADS_COUNTED, another status, or -errno. */
static int count_in_kernel(struct result *res)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	struct threads_bpf *skel;
	int err;

	skel = threads_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "threads: cannot load the BPF program: %s\n", strerror(errno));
		return err;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.count_threads), &run);
	if (err) {
		err = -errno;
		fprintf(stderr, "threads: cannot run the BPF program: %s\n", strerror(errno));
	} else {
		err = skel->bss->status;
		res->totals = skel->bss->totals;
		memcpy(res->top, skel->bss->top, sizeof(res->top));
	}
	threads_bpf__destroy(skel);
	return err;
}

/* The same count from /proc/<pid>/stat and /proc/<pid>/status. */
static int count_from_proc(struct result *res)
{
	DIR *d = opendir("/proc");
	unsigned int self = getpid();
	struct dirent *e;

	if (!d) {
		fprintf(stderr, "threads: /proc: %s\n", strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		struct threads_proc p = {}, *last = &res->top[0];
		char path[64], line[1024], *c, *r;
		unsigned long flags;
		unsigned int n;
		FILE *f;
		int i;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		p.pid = strtoul(e->d_name, NULL, 10);
		if (p.pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/stat", p.pid);
		f = fopen(path, "r");
		if (!f)
			continue;	/* gone since readdir() */
		c = fgets(line, sizeof(line), f) ? strchr(line, '(') : NULL;
		r = c ? strrchr(c, ')') : NULL;
		fclose(f);
		/* pid (comm) state ppid pgrp session tty tpgid flags ... num_threads (20th) */
		if (!r || sscanf(r + 2, "%*c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %u",
				 &flags, &n) != 2)
			continue;
		if (flags & PF_KTHREAD) {
			res->totals.kthreads++;
			continue;
		}
		p.threads = n;
		*r = 0;
		snprintf(p.comm, sizeof(p.comm), "%s", c + 1);
		snprintf(path, sizeof(path), "/proc/%u/status", p.pid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "Uid: %u", &p.uid) == 1)
				break;
		if (f)
			fclose(f);
		res->totals.procs++;
		res->totals.threads += n;
		for (i = 1; i < THREADS_TOP; i++)
			if (below(&res->top[i], last))
				last = &res->top[i];
		if (below(last, &p))
			*last = p;
	}
	closedir(d);
	return 0;
}

int main(int argc, char **argv)
{
	struct result res = {};
	char comm[16 * 4 + 1];
	unsigned long top = 10;
	int opt, from_proc = 0, status = THREADS_NOT_RUN, i;
	char *end;

	while ((opt = getopt(argc, argv, "n:pvh")) != -1) {
		switch (opt) {
		case 'n':
			errno = 0;
			top = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' || top > THREADS_TOP) {
				fprintf(stderr, "threads: -n takes a number from 0 to %d\n", THREADS_TOP);
				return 2;
			}
			break;
		case 'p':
			from_proc = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: threads [-n N] [-p] [-v]\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "usage: threads [-n N] [-p] [-v]\n");
		return 2;
	}
	libbpf_set_print(print_libbpf);

	if (!from_proc) {
		status = count_in_kernel(&res);
		if (status < 0)
			return 1;
		if (status == THREADS_NO_MODULE)
			fprintf(stderr, "threads: the iterkit module is not loaded (modprobe iterkit): counted from /proc\n");
		else if (status == THREADS_NO_WALKERS)
			fprintf(stderr, "threads: the iterkit module has no task walker (a kernel before 6.7): counted from /proc\n");
		else if (status != THREADS_COUNTED) {
			fprintf(stderr, "threads: the BPF program did not run (status %d)\n", status);
			return 1;
		}
	}
	if (status != THREADS_COUNTED) {
		memset(&res, 0, sizeof(res));
		if (count_from_proc(&res))
			return 1;
	}

	qsort(res.top, THREADS_TOP, sizeof(res.top[0]), by_rank);
	printf("counted by:  %s\n", status == THREADS_COUNTED ? "kit_task" : "/proc");
	printf("user:        %u processes, %u threads\n", res.totals.procs, res.totals.threads);
	printf("kernel:      %u threads\n", res.totals.kthreads);
	if (top)
		printf("%8s %8s %8s  %s\n", "pid", "uid", "threads", "comm");
	for (i = 0; i < (int)top && res.top[i].pid; i++)
		printf("%8u %8u %8u  %s\n", res.top[i].pid, res.top[i].uid, res.top[i].threads,
		       escape_comm(comm, res.top[i].comm));
	return status == THREADS_COUNTED ? 0 : EXIT_FROM_PROC;
}
