// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cgtop: processes, threads and tasks per cgroup, in the spirit of
 * systemd-cgtop, counted in the kernel by cgtop.bpf.c.
 *
 *   cgtop [-n COUNT] [-i SECONDS] [-d DEPTH] [-v] [CGROUP]
 *
 * Each sample prints one line per cgroup, parents before children:
 *   procs    processes in the cgroup itself (cgroup.procs)
 *   threads  threads in the cgroup itself (cgroup.threads)
 *   tasks    threads in the cgroup and all its descendants
 *   cgroup   the path, from CGROUP (a cgroup v2 directory; default: the root)
 * -n: samples to take (default: until interrupted), -i: seconds between
 * them (default 1), -d: deepest level shown below CGROUP (default 3; deeper
 * cgroups still count in their ancestors' tasks). Bytes of a name below
 * 0x20, 0x7f and '\' are printed as \xHH. -v: libbpf's debug messages too.
 * Exit status: 0 after the last sample, 1 on an error (one line on stderr),
 * 2 for bad arguments.
 */
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "cgtop.h"
#include "cgtop.skel.h"

#define CGROUP2_SUPER_MAGIC 0x63677270
#define RING_MAX (256u << 20)

struct sample {
	struct cgtop_rec *recs;
	size_t n, cap;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct sample *s = ctx;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		void *p = realloc(s->recs, cap * sizeof(*s->recs));

		if (!p)
			return -ENOMEM;
		s->recs = p;
		s->cap = cap;
	}
	memcpy(&s->recs[s->n++], data, sizeof(*s->recs));
	return 0;
}

static struct cgtop_bpf *load(__u64 root_id, __u32 ring_size)
{
	struct cgtop_bpf *skel = cgtop_bpf__open();
	int err;

	if (!skel) {
		fprintf(stderr, "cgtop: cannot open the BPF object: %s\n", strerror(errno));
		return NULL;
	}
	skel->rodata->sampler_tgid = getpid();
	skel->rodata->root_id = root_id;
	err = bpf_map__set_max_entries(skel->maps.records, ring_size);
	if (!err)
		err = cgtop_bpf__load(skel);
	if (err) {
		fprintf(stderr, "cgtop: cannot load the BPF program: %s%s\n", strerror(-err),
			access("/sys/kernel/btf/iterkit", F_OK) ?
			" (the iterkit module is not loaded: modprobe iterkit)" : "");
		goto fail;
	}
	err = cgtop_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "cgtop: cannot attach to the getpgid tracepoint: %s\n", strerror(-err));
		goto fail;
	}
	return skel;
fail:
	cgtop_bpf__destroy(skel);
	return NULL;
}

/* name with the bytes that would break a line or a path escaped */
static size_t escape(char *out, const char *name)
{
	size_t n = 0;

	for (; *name; name++) {
		unsigned char c = *name;

		if (c < 0x20 || c == 0x7f || c == '\\')
			n += sprintf(out + n, "\\x%02x", c);
		else
			out[n++] = c;
	}
	out[n] = 0;
	return n;
}

static int print_sample(const struct sample *s, unsigned int depth, const char *root)
{
	size_t *stack = calloc(s->n + 1, sizeof(*stack));
	unsigned long long *tasks = calloc(s->n, sizeof(*tasks));
	char **paths = calloc(s->n, sizeof(*paths));
	int err = -ENOMEM;
	size_t i, j;

	if (!stack || !tasks || !paths)
		goto out;
	/* Pre-order: the parent of a cgroup at level L is the last one seen at L - 1. */
	for (i = 0; i < s->n; i++) {
		const struct cgtop_rec *r = &s->recs[i];
		size_t rel = r->level - s->recs[0].level;
		char name[4 * CGTOP_NAME_LEN];
		size_t len = escape(name, r->name);

		if (r->level < s->recs[0].level || rel > i)
			goto bad;
		stack[rel] = i;
		if (rel == 0) {
			paths[i] = strdup(root);
		} else {
			const char *up = paths[stack[rel - 1]];
			size_t ulen = strlen(up);

			paths[i] = malloc(ulen + len + 2);
			if (paths[i])
				sprintf(paths[i], "%s%s%s", up, ulen && up[ulen - 1] == '/' ? "" : "/", name);
		}
		if (!paths[i])
			goto out;
		for (j = 0; j <= rel; j++)
			tasks[stack[j]] += r->threads;
	}
	printf("%8s %8s %8s  %s\n", "procs", "threads", "tasks", "cgroup");
	for (i = 0; i < s->n; i++) {
		if (s->recs[i].level - s->recs[0].level > depth)
			continue;
		printf("%8u %8u %8llu  %s\n", s->recs[i].procs, s->recs[i].threads, tasks[i], paths[i]);
	}
	err = fflush(stdout) ? -errno : 0;
	goto out;
bad:
	fprintf(stderr, "cgtop: the walk's levels are out of pre-order\n");
	err = -EINVAL;
out:
	if (err == -ENOMEM)
		fprintf(stderr, "cgtop: out of memory\n");
	for (i = 0; paths && i < s->n; i++)
		free(paths[i]);
	free(paths);
	free(tasks);
	free(stack);
	return err;
}

static int verbose;

/* libbpf's messages on stderr; its debug ones only with -v */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int usage(void)
{
	fprintf(stderr, "usage: cgtop [-n COUNT] [-i SECONDS] [-d DEPTH] [-v] [CGROUP]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *root = "/";
	unsigned long count = 0, depth = 3, taken;
	double interval = 1;
	__u32 ring = 4u << 20;
	struct cgtop_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct sample s = {};
	__u64 root_id = 0;
	char *end;
	int opt, err = 1;

	while ((opt = getopt(argc, argv, "n:i:d:vh")) != -1) {
		errno = 0;
		switch (opt) {
		case 'n':
			count = strtoul(optarg, &end, 10);
			break;
		case 'd':
			depth = strtoul(optarg, &end, 10);
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (!(interval >= 0 && interval < 1e6))
				errno = ERANGE;
			break;
		case 'v':
			verbose = 1;
			continue;
		default:
			return usage();
		}
		if (errno || end == optarg || *end || *optarg == '-') {
			fprintf(stderr, "cgtop: bad value '%s' for -%c\n", optarg, opt);
			return 2;
		}
	}
	if (argc - optind > 1)
		return usage();
	libbpf_set_print(print_libbpf);
	if (optind < argc) {
		struct statfs fs;
		struct stat st;

		root = argv[optind];
		if (statfs(root, &fs) || stat(root, &st)) {
			fprintf(stderr, "cgtop: %s: %s\n", root, strerror(errno));
			return 1;
		}
		if (fs.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "cgtop: %s is not a cgroup v2 directory\n", root);
			return 1;
		}
		root_id = st.st_ino;	/* a cgroup's id is its inode number */
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (taken = 0; !stop && (!count || taken < count);) {
		if (!skel) {
			skel = load(root_id, ring);
			if (!skel)
				goto out;
			rb = ring_buffer__new(bpf_map__fd(skel->maps.records), on_record, &s, NULL);
			if (!rb) {
				fprintf(stderr, "cgtop: cannot read the ring buffer: %s\n", strerror(errno));
				goto out;
			}
		}
		s.n = 0;
		skel->bss->walk_ret = 0;
		skel->bss->lost_records = 0;
		skel->bss->lost_counts = 0;
		syscall(SYS_getpgid, 0);	/* the sample: the program runs here */
		if (ring_buffer__consume(rb) < 0) {
			fprintf(stderr, "cgtop: out of memory\n");
			goto out;
		}
		if (skel->bss->walk_ret) {
			fprintf(stderr, "cgtop: cannot walk from %s: %s\n", root, strerror(-skel->bss->walk_ret));
			goto out;
		}
		if (skel->bss->lost_counts) {
			fprintf(stderr, "cgtop: more than 65536 cgroups with tasks\n");
			goto out;
		}
		/* Threads counted in cgroups the walk did not reach (outside CGROUP). */
		{
			int fd = bpf_map__fd(skel->maps.counts);
			__u64 key;

			while (!bpf_map_get_next_key(fd, NULL, &key))
				bpf_map_delete_elem(fd, &key);
		}
		if (skel->bss->lost_records) {
			/* Too many cgroups for the ring buffer: again, with a larger one. */
			if (ring >= RING_MAX) {
				fprintf(stderr, "cgtop: more cgroups than a %u MiB ring buffer holds\n", ring >> 20);
				goto out;
			}
			ring *= 4;
			ring_buffer__free(rb);
			cgtop_bpf__destroy(skel);
			rb = NULL;
			skel = NULL;
			continue;
		}
		if (taken++)
			putchar('\n');
		if (print_sample(&s, depth, root))
			goto out;
		if (count && taken == count)
			break;
		{
			struct timespec ts = { (time_t)interval, (long)((interval - (time_t)interval) * 1e9) };

			nanosleep(&ts, NULL);
		}
	}
	err = 0;
out:
	ring_buffer__free(rb);
	cgtop_bpf__destroy(skel);
	free(s.recs);
	return err;
}
