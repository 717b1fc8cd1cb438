// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit: shows the iterkit module's open-coded iterators end to end. Every
 * subcommand runs a small BPF program (embedded in this binary as a light
 * skeleton, or kept loaded by `iterkit load`) in the kernel and prints what
 * the iterator produced there.
 */
#include <stdlib.h>
#include <string.h>
#include "iterkit.h"

static int cmd_demo(int argc, char **argv);

static const struct kit_cmd kit_cmd_demo = {
	.name = "demo",
	.args = "",
	.help = "run every available iterator end to end, one verdict line each (PASS, FAIL or SKIP)",
	.run = cmd_demo,
};

static const struct kit_cmd *const kit_cmds[] = {
	&kit_cmd_status,
	&kit_cmd_num,
	&kit_cmd_seq,
	&kit_cmd_tasks,
	&kit_cmd_cgroups,
	&kit_cmd_demo,
	&kit_cmd_load,
	&kit_cmd_unload,
};

#define KIT_NCMDS (sizeof(kit_cmds) / sizeof(kit_cmds[0]))

static const char *const kit_verdicts[] = {
	[KIT_PASS] = "pass", [KIT_FAIL] = "fail", [KIT_SKIP] = "skip",
};

/* Exit 1 if any demo failed; a demo that is not available is skipped, not failed. */
static int cmd_demo(int argc, char **argv)
{
	struct kit_out *o = &kit_stdout;
	struct kit_args a;
	struct kit_json j;
	int c, failed = 0;
	size_t i;

	kit_args_init(&a, &kit_cmd_demo, argc, argv);
	while ((c = kit_args_next(&a)) >= 0)
		;
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos)
		return kit_usage_error("demo takes no arguments (got '%s')", a.pos[0]);
	if (kit_require_module())
		return 1;
	kit_json_init(&j, o);
	if (kit_json)
		kit_json_array(&j);
	for (i = 0; i < KIT_NCMDS; i++) {
		const char *iter = kit_cmds[i]->name;
		struct kit_demo d = { KIT_FAIL, "" };
		char err[512];

		if (!kit_cmds[i]->demo)
			continue;
		/* A walk that fails says why in the verdict's detail, not on its own. */
		kit_capture_errors(err, sizeof(err));
		kit_cmds[i]->demo(&d);
		kit_capture_errors(NULL, 0);
		if (d.verdict == KIT_FAIL && !d.detail[0])
			snprintf(d.detail, sizeof(d.detail), "%s", err[0] ? err : "failed");
		if (!strcmp(iter, "num"))
			iter = "kit_num";
		else if (!strcmp(iter, "seq"))
			iter = "testmod_seq";
		else if (!strcmp(iter, "tasks"))
			iter = "kit_task";
		else if (!strcmp(iter, "cgroups"))
			iter = "kit_cgroup";
		if (d.verdict == KIT_FAIL)
			failed++;
		if (kit_json) {
			kit_json_object(&j);
			kit_json_kstr(&j, "iterator", iter);
			kit_json_kstr(&j, "verdict", kit_verdicts[d.verdict]);
			kit_json_kstr(&j, "detail", d.detail);
			kit_json_object_end(&j);
		} else {
			kit_out_printf(o, "%-4s %-12s %s\n", d.verdict == KIT_PASS ? "PASS" :
				       d.verdict == KIT_SKIP ? "SKIP" : "FAIL", iter, d.detail);
		}
	}
	if (kit_json) {
		kit_json_array_end(&j);
		kit_json_end(&j);
	}
	if (kit_flush())
		return 1;
	return failed ? 1 : 0;
}

static void usage(void)
{
	struct kit_out *o = &kit_stdout;
	size_t i;

	kit_out_str(o, "usage: iterkit [-v] [--json] [--stats] COMMAND [ARGS]\n\n"
		    "Runs the iterkit module's BPF iterators inside the kernel and shows what they produce.\n\n"
		    "commands:\n");
	for (i = 0; i < KIT_NCMDS; i++)
		kit_out_printf(o, "  %-8s %s\n", kit_cmds[i]->name, kit_cmds[i]->help);
	kit_out_str(o, "\noptions (before or after the command):\n"
		    "  --json     machine-readable output; errors as {\"error\": ...} on stdout\n"
		    "  --stats    time per phase, map memory and peak RSS on stderr\n"
		    "  -v         the verifier's log of the programs loaded\n"
		    "  --help     this text; 'iterkit COMMAND --help' for one command\n"
		    "  --version  print the version\n");
	kit_flush();
}

enum { OPT_VERSION = 0x300 };

static const struct option kit_main_opts[] = {
	{ "json", no_argument, NULL, KIT_OPT_JSON },
	{ "stats", no_argument, NULL, KIT_OPT_STATS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	int c, i, rc;

	kit_stats_begin();
	/* --json anywhere makes every error JSON, even one found before it. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			kit_json = true;
	opterr = 0;
	/* "+": stop at the command; its own options come after it. */
	while ((c = getopt_long(argc, argv, "+hv", kit_main_opts, NULL)) != -1) {
		switch (c) {
		case KIT_OPT_JSON:
			kit_json = true;
			break;
		case KIT_OPT_STATS:
			kit_stats = true;
			break;
		case 'v':
			kit_verbose = true;
			break;
		case 'h':
			usage();
			return 0;
		case OPT_VERSION:
			kit_out_str(&kit_stdout, "iterkit " ITERKIT_VERSION "\n");
			return kit_flush();
		default:
			return kit_usage_error("unknown option '%s' (see iterkit --help)", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return kit_usage_error("no command given (see iterkit --help)");
	for (i = 0; i < (int)KIT_NCMDS; i++) {
		if (strcmp(argv[optind], kit_cmds[i]->name))
			continue;
		rc = kit_cmds[i]->run(argc - optind, argv + optind);
		kit_stats_print();
		return rc;
	}
	return kit_usage_error("unknown command '%s' (see iterkit --help)", argv[optind]);
}
