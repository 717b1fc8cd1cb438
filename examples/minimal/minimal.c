// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * minimal: loads minimal.bpf.o through its skeleton, runs its SEC("syscall")
 * program once in the kernel and prints what the iterators yielded.
 *
 *   minimal [START END [VALUE COUNT]]
 *
 * kit_num walks [START, END) (default [0, 10)), testmod_seq yields VALUE
 * COUNT times (default 7, 3 times). Exit status: 0 when the program ran,
 * 1 when it could not be loaded or run, 2 for bad arguments.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "minimal.skel.h"

static int parse(const char *s, long long min, long long max, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 0);
	return errno || end == s || *end || *out < min || *out > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	struct minimal_bpf *skel;
	long long a[4];
	int i, err;

	if (argc != 1 && argc != 3 && argc != 5) {
		fprintf(stderr, "usage: minimal [START END [VALUE COUNT]]\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		long long min = i == 3 ? INT64_MIN : INT32_MIN;
		long long max = i == 3 ? INT64_MAX : INT32_MAX;

		if (parse(argv[i], min, max, &a[i - 1])) {
			fprintf(stderr, "minimal: '%s' is not a number in range\n", argv[i]);
			return 2;
		}
	}

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
