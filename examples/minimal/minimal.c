// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * minimal: loads minimal.bpf.o through its skeleton, runs its SEC("syscall")
 * program once in the kernel and prints what the iterators yielded.
 *
 *   minimal [-v] [START END [VALUE COUNT]]
 *
 * kit_num walks [START, END) (default [0, 10)), testmod_seq yields VALUE
 * COUNT times (default 7, 3 times); the numbers are decimal (010 is ten).
 * -v: libbpf's debug messages too. Exit status: 0 when the program ran,
 * 1 when it could not be loaded or run, 2 for bad arguments.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "minimal.skel.h"


static int verbose;

/* libbpf's messages on stderr; its debug ones only with -v */
static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* A decimal number (leading zeros too: 010 is ten) from min to max: 0, or -1 after saying why not. */
static int parse(const char *name, const char *s, long long min, long long max, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	if (end == s || *end) {
		fprintf(stderr, "minimal: %s: '%s' is not a decimal number\n", name, s);
		return -1;
	}
	if (errno || *out < min || *out > max) {
		fprintf(stderr, "minimal: %s: %s is out of range (%lld to %lld)\n", name, s, min, max);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	struct minimal_bpf *skel;
	static const char *const names[] = { "START", "END", "VALUE", "COUNT" };
	long long a[4];
	int i, err;

	/* only a first argument can be -v: the numbers may be negative */
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		argv++;
		argc--;
	}
	if (argc != 1 && argc != 3 && argc != 5) {
		fprintf(stderr, "usage: minimal [-v] [START END [VALUE COUNT]]\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		long long min = i == 3 ? INT64_MIN : INT32_MIN;
		long long max = i == 3 ? INT64_MAX : INT32_MAX;

		if (parse(names[i - 1], argv[i], min, max, &a[i - 1]))
			return 2;
	}
	libbpf_set_print(print_libbpf);

	skel = minimal_bpf__open();
	if (!skel) {
		fprintf(stderr, "minimal: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	if (argc >= 3) {
		skel->data->num_start = a[0];
		skel->data->num_end = a[1];
	}
	if (argc == 5) {
		skel->data->seq_value = a[2];
		skel->data->seq_count = a[3];
	}

	err = minimal_bpf__load(skel);
	if (err) {
		/* libbpf printed the verifier's log above; say what usually causes it. */
		fprintf(stderr, "minimal: cannot load the BPF program: %s%s\n", strerror(-err),
			access("/sys/kernel/btf/iterkit", F_OK) ?
			" (the iterkit module is not loaded: modprobe iterkit)" : "");
		goto out;
	}

	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.minimal), &run);
	if (err) {
		err = -errno;
		fprintf(stderr, "minimal: cannot run the BPF program: %s\n", strerror(errno));
		goto out;
	}

	printf("kit_num [%d, %d): %u values, sum %lld\n", skel->data->num_start,
	       skel->data->num_end, skel->bss->num_values, (long long)skel->bss->num_sum);
	printf("testmod_seq %lld x %d: %u values, sum %lld\n", (long long)skel->data->seq_value,
	       skel->data->seq_count, skel->bss->seq_values, (long long)skel->bss->seq_sum);
out:
	minimal_bpf__destroy(skel);
	return err ? 1 : 0;
}
