// SPDX-License-Identifier: GPL-2.0
/* Prints the names of the BTF FUNCs in a module's BTF (/sys/kernel/btf/<module>). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/sys/kernel/btf/iterkit";
	struct btf *vmlinux, *btf;
	unsigned int i, n;

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
	n = btf__type_cnt(btf);
	for (i = btf__type_cnt(vmlinux); i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (btf_is_func(t))
			printf("%s\n", btf__name_by_offset(btf, t->name_off));
	}
	btf__free(btf);
	btf__free(vmlinux);
	return 0;
}
