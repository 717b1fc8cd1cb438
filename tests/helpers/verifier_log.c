// SPDX-License-Identifier: GPL-2.0
/*
 * verifier_log OBJ [PROG]: loads each program of OBJ (or only PROG) on its
 * own and prints its verdict and the tail of its verifier log, for checking
 * expected messages against the running kernel by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

static char log_buf[1 << 20];

int main(int argc, char **argv)
{
	struct bpf_object *probe, *obj;
	struct bpf_program *p, *q;

	if (argc < 2) {
		fprintf(stderr, "usage: verifier_log OBJ [PROG]\n");
		return 2;
	}
	libbpf_set_print(NULL);
	probe = bpf_object__open_file(argv[1], NULL);
	if (!probe) {
		fprintf(stderr, "verifier_log: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(p, probe) {
		LIBBPF_OPTS(bpf_object_open_opts, opts, .kernel_log_buf = log_buf,
			    .kernel_log_size = sizeof(log_buf), .kernel_log_level = 1);
		const char *name = bpf_program__name(p);
		int err;

		if (argc > 2 && strcmp(argv[2], name))
			continue;
		log_buf[0] = 0;
		obj = bpf_object__open_file(argv[1], &opts);
		if (!obj)
			return 1;
		bpf_object__for_each_program(q, obj)
			bpf_program__set_autoload(q, !strcmp(bpf_program__name(q), name));
		err = bpf_object__load(obj);
		printf("=== %s: %s\n", name, err ? "REJECTED" : "ACCEPTED");
		if (err) {
			size_t len = strlen(log_buf);
			const char *tail = len > 600 ? log_buf + len - 600 : log_buf;

			printf("%s\n", tail);
		}
		bpf_object__close(obj);
	}
	bpf_object__close(probe);
	return 0;
}
