// SPDX-License-Identifier: GPL-2.0
/* iterkit status: is the module loaded, with BTF, and which iterators does it carry? */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "iterkit.h"

/* The iterators iterkit can carry, and the kernel each one needs. */
static const struct {
	const char *name;
	int major, minor;
} kit_iters[] = {
	{ "kit_num", 6, 4 },
	{ "testmod_seq", 6, 4 },
	{ "kit_task", 6, 7 },
	{ "kit_cgroup", 6, 7 },
};

#define KIT_NITERS (sizeof(kit_iters) / sizeof(kit_iters[0]))

static const char *const kit_ops[] = { "new", "next", "destroy" };

static bool kernel_at_least(const char *release, int major, int minor)
{
	int ma = 0, mi = 0;

	if (sscanf(release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/* Which of an iterator's three kfuncs the module's BTF describes (bit per op). */
static unsigned int iter_kfuncs(const struct btf *btf, const char *iter)
{
	unsigned int mask = 0, i;
	char name[64];

	for (i = 0; btf && i < 3; i++) {
		snprintf(name, sizeof(name), "bpf_iter_%s_%s", iter, kit_ops[i]);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0)
			mask |= 1u << i;
	}
	return mask;
}

static int status_run(int argc, char **argv)
{
	struct btf *vmlinux = NULL, *btf = NULL;
	bool loaded, have_btf, supported, usable;
	unsigned int masks[KIT_NITERS], i;
	struct utsname u;
	int n;

	n = kit_cmd_opts(&kit_cmd_status, argc, argv);
	if (n < 0)
		return 0;
	if (n > 1)
		return kit_usage_error("status takes no arguments (got '%s')", argv[1]);

	uname(&u);
	supported = kernel_at_least(u.release, 6, 4);
	loaded = access("/sys/module/iterkit", F_OK) == 0;
	have_btf = access("/sys/kernel/btf/iterkit", R_OK) == 0;
	if (have_btf) {
		vmlinux = btf__load_vmlinux_btf();
		if (vmlinux)
			btf = btf__parse_split("/sys/kernel/btf/iterkit", vmlinux);
	}
	usable = loaded && have_btf && btf;
	for (i = 0; i < KIT_NITERS; i++) {
		masks[i] = iter_kfuncs(btf, kit_iters[i].name);
		if (i < 2 && masks[i] != 7)
			usable = false;
	}

	if (kit_json) {
		printf("{\"kernel\":");
		kit_json_str(stdout, u.release);
		printf(",\"kernel_supported\":%s,\"minimum_kernel\":\"6.4\",\"module_loaded\":%s,"
		       "\"module_btf\":%s,\"iterators\":[",
		       supported ? "true" : "false", loaded ? "true" : "false",
		       have_btf ? "true" : "false");
		for (i = 0; i < KIT_NITERS; i++) {
			unsigned int k;
			bool first = true;

			printf("%s{\"name\":\"%s\",\"needs_kernel\":\"%d.%d\",\"available\":%s,\"kfuncs\":[",
			       i ? "," : "", kit_iters[i].name, kit_iters[i].major,
			       kit_iters[i].minor, masks[i] == 7 ? "true" : "false");
			for (k = 0; k < 3; k++) {
				if (!(masks[i] & (1u << k)))
					continue;
				printf("%s\"bpf_iter_%s_%s\"", first ? "" : ",", kit_iters[i].name,
				       kit_ops[k]);
				first = false;
			}
			printf("]}");
		}
		printf("],\"usable\":%s}\n", usable ? "true" : "false");
	} else {
		printf("kernel:        %s (%s; iterkit needs 6.4+, the walkers 6.7+)\n", u.release,
		       supported ? "supported" : "NOT supported");
		printf("module:        %s\n", loaded ? "loaded" : "not loaded (modprobe iterkit)");
		printf("module BTF:    %s\n", have_btf ? "/sys/kernel/btf/iterkit" :
		       loaded ? "MISSING: kfuncs not registered" : "-");
		for (i = 0; i < KIT_NITERS; i++) {
			const char *why;

			if (masks[i] == 7)
				why = "available";
			else if (!usable && !have_btf)
				why = "-";
			else if (!kernel_at_least(u.release, kit_iters[i].major, kit_iters[i].minor))
				why = "not built: needs Linux 6.7+ (KF_RCU_PROTECTED)";
			else
				why = "missing from the module's BTF";
			printf("%-14s %s", kit_iters[i].name, why);
			if (masks[i] == 7)
				printf(" (bpf_iter_%s_new/next/destroy)", kit_iters[i].name);
			printf("\n");
		}
	}
	btf__free(btf);
	btf__free(vmlinux);
	return usable ? 0 : 1;
}

const struct kit_cmd kit_cmd_status = {
	.name = "status",
	.args = "",
	.help = "module loaded? BTF? which iterator kfuncs? kernel supported? (exit 1 if not usable)",
	.run = status_run,
};
