// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit: shows the iterkit module's open-coded iterators end to end. Every
 * subcommand loads a small BPF program (embedded in this binary), runs it in
 * the kernel and prints what the iterator produced there.
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "iterkit.h"

static int cmd_demo(int argc, char **argv);

static const struct kit_cmd kit_cmd_demo = {
	.name = "demo",
	.args = "",
	.help = "run every available iterator end to end, one verdict line each",
	.run = cmd_demo,
};

static const struct kit_cmd *const kit_cmds[] = {
	&kit_cmd_status,
	&kit_cmd_num,
	&kit_cmd_seq,
	&kit_cmd_tasks,
	&kit_cmd_cgroups,
	&kit_cmd_demo,
};

#define KIT_NCMDS (sizeof(kit_cmds) / sizeof(kit_cmds[0]))

static int cmd_demo(int argc, char **argv)
{
	bool first = true;
	int failed = 0;
	size_t i;

	if (kit_cmd_opts(&kit_cmd_demo, argc, argv) < 0)
		return 0;
	if (argc > 1 && argv[1])
		return kit_usage_error("demo takes no arguments (got '%s')", argv[1]);
	if (kit_require_module())
		return 1;
	if (kit_json)
		printf("[");
	for (i = 0; i < KIT_NCMDS; i++) {
		if (!kit_cmds[i]->demo)
			continue;
		if (kit_json && !first)
			printf(",");
		first = false;
		if (kit_cmds[i]->demo() == 1)
			failed++;
	}
	if (kit_json)
		printf("]\n");
	return failed ? 1 : 0;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: iterkit [-v] COMMAND [ARGS] [--json]\n\n"
		"Runs the iterkit module's BPF iterators inside the kernel and shows what they produce.\n\n"
		"commands:\n");
	for (i = 0; i < KIT_NCMDS; i++)
		fprintf(f, "  %-8s %-40s %s\n", kit_cmds[i]->name, kit_cmds[i]->args,
			kit_cmds[i]->help);
	fprintf(f, "\noptions:\n"
		"  --json     machine-readable output (every command)\n"
		"  -v         print libbpf and verifier messages\n"
		"  --help     this text; 'iterkit COMMAND --help' for one command\n"
		"  --version  print the version\n");
}

static int kit_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!kit_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	size_t i;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--verbose")) {
			kit_verbose = true;
		} else if (!strcmp(argv[1], "--json")) {
			kit_json = true;
		} else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[1], "--version")) {
			printf("iterkit %s\n", ITERKIT_VERSION);
			return 0;
		} else {
			return kit_usage_error("unknown option '%s' (see iterkit --help)", argv[1]);
		}
		argc--;
		argv++;
	}
	if (argc < 2)
		return kit_usage_error("no command given (see iterkit --help)");

	libbpf_set_print(kit_libbpf_print);
	for (i = 0; i < KIT_NCMDS; i++)
		if (!strcmp(argv[1], kit_cmds[i]->name))
			return kit_cmds[i]->run(argc - 1, argv + 1);
	return kit_usage_error("unknown command '%s' (see iterkit --help)", argv[1]);
}
