// SPDX-License-Identifier: GPL-2.0
/*
 * B3 runner: loads each program of each object on its own, with the
 * verifier's statistics (log level 4), and prints what the verifier says:
 *   @@r B3 OBJECT PROGRAM INSNS_PROCESSED TOTAL_STATES PEAK_STATES USEC PROG_INSNS
 *   verify OBJ...
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

static char log_buf[1 << 20];

int main(int argc, char **argv)
{
	int a;

	libbpf_set_print(NULL);
	for (a = 1; a < argc; a++) {
		struct bpf_object *probe = bpf_object__open_file(argv[a], NULL);
		struct bpf_program *p;
		char obj[256];

		if (!probe) {
			fprintf(stderr, "verify: cannot open %s: %s\n", argv[a], strerror(errno));
			return 1;
		}
		snprintf(obj, sizeof(obj), "%s", argv[a]);
		bpf_object__for_each_program(p, probe) {
			LIBBPF_OPTS(bpf_object_open_opts, opts, .kernel_log_buf = log_buf,
				    .kernel_log_size = sizeof(log_buf), .kernel_log_level = 4);
			unsigned long insns = 0, states = 0, peak = 0, usec = 0;
			const char *name = bpf_program__name(p);
			struct bpf_program *q;
			struct bpf_object *o;
			const char *s;
			size_t size = 0;

			log_buf[0] = 0;
			o = bpf_object__open_file(argv[a], &opts);
			if (!o)
				return 1;
			bpf_object__for_each_program(q, o) {
				bpf_program__set_autoload(q, !strcmp(bpf_program__name(q), name));
				if (!strcmp(bpf_program__name(q), name))
					size = bpf_program__insn_cnt(q);
			}
			if (bpf_object__load(o)) {
				fprintf(stderr, "verify: %s rejected\n%s\n", name, log_buf);
				return 1;
			}
			s = strstr(log_buf, "processed ");
			if (!s || sscanf(s, "processed %lu insns (limit %*u) max_states_per_insn %*u total_states %lu peak_states %lu",
					 &insns, &states, &peak) != 3) {
				fprintf(stderr, "verify: no statistics for %s:\n%s\n", name, log_buf);
				return 1;
			}
			s = strstr(log_buf, "verification time ");
			if (s)
				sscanf(s, "verification time %lu usec", &usec);
			printf("@@r B3 %s %s %lu %lu %lu %lu %zu\n", basename(obj), name, insns, states,
			       peak, usec, size);
			bpf_object__close(o);
		}
		bpf_object__close(probe);
	}
	return 0;
}
