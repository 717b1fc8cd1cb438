// SPDX-License-Identifier: GPL-2.0
/*
 * Reads the iterkit module's BTF (/sys/kernel/btf/<module>, split on top of
 * vmlinux's):
 *   btf_funcs [PATH]             the names of its BTF FUNCs
 *   btf_funcs --sizes [PATH]     "struct size" for each iterator struct
 *   btf_funcs --sizes-obj FILE   the same from a BPF object's BTF
 * The two --sizes outputs compare the module's iterator layouts with the
 * ones bpf/iterkit.bpf.h gives BPF programs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

static const char *const iter_structs[] = {
	"bpf_iter_kit_num",
	"bpf_iter_testmod_seq",
	"bpf_iter_kit_task",
	"bpf_iter_kit_cgroup",
	"bpf_iter_kit_cgroup_at",
};

/*
 * Prints each iterator struct's size as @btf defines it, among its own
 * types (from @first on: a module's, not vmlinux's). 1 when one is missing.
 */
static int print_sizes(const struct btf *btf, unsigned int first)
{
	unsigned int i, j, n = btf__type_cnt(btf);
	int missing = 0;

	for (j = 0; j < sizeof(iter_structs) / sizeof(iter_structs[0]); j++) {
		const struct btf_type *found = NULL;

		for (i = first; i < n && !found; i++) {
			const struct btf_type *t = btf__type_by_id(btf, i);

			if (btf_is_struct(t) &&
			    !strcmp(btf__name_by_offset(btf, t->name_off), iter_structs[j]))
				found = t;
		}
		if (found) {
			printf("%s %u\n", iter_structs[j], found->size);
		} else {
			printf("%s missing\n", iter_structs[j]);
			missing = 1;
		}
	}
	return missing;
}

int main(int argc, char **argv)
{
	const char *path = "/sys/kernel/btf/iterkit";
	struct btf *vmlinux, *btf;
	unsigned int i, n;
	int sizes = 0, ret = 0;

	if (argc > 1 && !strcmp(argv[1], "--sizes-obj")) {
		if (argc < 3) {
			fprintf(stderr, "btf_funcs: --sizes-obj needs a BPF object\n");
			return 2;
		}
		btf = btf__parse(argv[2], NULL);
		if (!btf) {
			fprintf(stderr, "btf_funcs: %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		ret = print_sizes(btf, 1);
		btf__free(btf);
		return ret;
	}
	if (argc > 1 && !strcmp(argv[1], "--sizes")) {
		sizes = 1;
		argc--;
		argv++;
	}
	if (argc > 1)
		path = argv[1];

	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		fprintf(stderr, "btf_funcs: no vmlinux BTF: %s\n", strerror(errno));
		return 1;
	}
	btf = btf__parse_split(path, vmlinux);
	if (!btf) {
		fprintf(stderr, "btf_funcs: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (sizes) {
		ret = print_sizes(btf, btf__type_cnt(vmlinux));
	} else {
		n = btf__type_cnt(btf);
		for (i = btf__type_cnt(vmlinux); i < n; i++) {
			const struct btf_type *t = btf__type_by_id(btf, i);

			if (btf_is_func(t))
				printf("%s\n", btf__name_by_offset(btf, t->name_off));
		}
	}
	btf__free(btf);
	btf__free(vmlinux);
	return ret;
}
