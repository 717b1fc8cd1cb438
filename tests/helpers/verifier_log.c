// SPDX-License-Identifier: GPL-2.0
/* verifier_log OBJ [PROG]: loads each program of OBJ alone and prints the
 * verdict and the verifier log, for writing verifier expectations.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

static char log_buf[1 << 20];

int main(int argc, char **argv)
{
	struct bpf_object *probe;
	struct bpf_program *p;

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
		const char *name = bpf_program__name(p);
		struct bpf_object *obj;
		struct bpf_program *q;
		int err;

		if (argc > 2 && strcmp(argv[2], name))
			continue;
		obj = bpf_object__open_file(argv[1], NULL);
		bpf_object__for_each_program(q, obj) {
			bpf_program__set_autoload(q, !strcmp(bpf_program__name(q), name));
			if (!strcmp(bpf_program__name(q), name)) {
				log_buf[0] = '\0';
				bpf_program__set_log_buf(q, log_buf, sizeof(log_buf));
				bpf_program__set_log_level(q, 1);
			}
		}
		err = bpf_object__load(obj);
		printf("=== %s: %s (%d)\n%s\n", name, err ? "REJECTED" : "LOADED", err, log_buf);
		bpf_object__close(obj);
	}
	bpf_object__close(probe);
	return 0;
}
