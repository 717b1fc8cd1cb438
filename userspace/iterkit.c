// SPDX-License-Identifier: GPL-2.0
/* iterkit: main(), the command table and the demo command. */
#include <locale.h>
#include <signal.h>
#include <string.h>
#include "cli.h"
#include "module.h"
#include "iter.h"
#include "resident.h"
#include "status.h"

static int cmd_demo(int argc, char **argv);

static const struct kit_cmd kit_cmd_demo = {
	.name = "demo",
	.args = "",
	.help = "run every available iterator end to end, one verdict line each (PASS, FAIL or SKIP)",
	.run = cmd_demo,
};

/* The commands that are not an iterator's (those come from kit_iters[]). */
static const struct kit_cmd *const kit_cmds[] = {
	&kit_cmd_status, &kit_cmd_demo, &kit_cmd_load, &kit_cmd_unload, NULL,
};

static const char *const kit_verdicts[] = {
	[KIT_PASS] = "pass", [KIT_FAIL] = "fail", [KIT_SKIP] = "skip",
};

/* Exit 1 if any demo failed; a demo that is not available is skipped, not failed. */
static int cmd_demo(int argc, char **argv)
{
	struct kit_out *o = &kit_stdout;
	struct kit_json j;
	int failed = 0, rc;
	size_t i;

	rc = kit_args_simple(&kit_cmd_demo, argc, argv, 0, NULL);
	if (rc >= 0)
		return rc;
	if (kit_require_module())
		return 1;
	kit_json_init(&j, o);
	if (kit_json)
		kit_json_array(&j);
	for (i = 0; kit_iters[i]; i++) {
		const struct kit_iter *it = kit_iters[i];
		struct kit_demo d = { KIT_FAIL, "" };
		char err[512];

		if (!kit_iter_has_cmd(it))
			continue;

		/* A walk that fails says why in the verdict's detail, not on its own. */
		kit_capture_errors(err, sizeof(err));
		if (it->walker && !kit_module_has_iter(it->prog.name))
			kit_demo_set(&d, KIT_SKIP, "not in this module: the walkers need a kernel with KF_RCU_PROTECTED (mainline %s)",
				     it->prog.mainline);
		else
			it->demo(&d);
		kit_capture_errors(NULL, 0);
		if (d.verdict == KIT_FAIL && !d.detail[0])
			snprintf(d.detail, sizeof(d.detail), "%s", err[0] ? err : "failed");
		if (d.verdict == KIT_FAIL)
			failed++;
		if (kit_json) {
			kit_json_object(&j);
			kit_json_kstr(&j, "iterator", it->prog.name);
			kit_json_kstr(&j, "verdict", kit_verdicts[d.verdict]);
			kit_json_kstr(&j, "detail", d.detail);
			kit_json_object_end(&j);
		} else {
			kit_out_printf(o, "%-4s %-12s %s\n", d.verdict == KIT_PASS ? "PASS" :
				       d.verdict == KIT_SKIP ? "SKIP" : "FAIL", it->prog.name, d.detail);
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

/* The command called name, or NULL. */
static const struct kit_cmd *kit_find_cmd(const char *name)
{
	size_t i;

	for (i = 0; kit_cmds[i]; i++)
		if (!strcmp(name, kit_cmds[i]->name))
			return kit_cmds[i];
	for (i = 0; kit_iters[i]; i++)
		if (kit_iter_has_cmd(kit_iters[i]) && !strcmp(name, kit_iters[i]->cmd.name))
			return &kit_iters[i]->cmd;
	return NULL;
}

static int usage(void)
{
	struct kit_out *o = &kit_stdout;
	size_t i;

	kit_out_str(o, "usage: iterkit [-v] [--json] [--stats] COMMAND [ARGS]\n\n"
		    "Runs the iterkit module's BPF iterators inside the kernel and shows what they produce.\n\n"
		    "commands:\n");
	kit_out_printf(o, "  %-8s %s\n", kit_cmd_status.name, kit_cmd_status.help);
	for (i = 0; kit_iters[i]; i++)
		if (kit_iter_has_cmd(kit_iters[i]))
			kit_out_printf(o, "  %-8s %s\n", kit_iters[i]->cmd.name,
				       kit_iters[i]->cmd.help);
	for (i = 1; kit_cmds[i]; i++)
		kit_out_printf(o, "  %-8s %s\n", kit_cmds[i]->name, kit_cmds[i]->help);
	kit_out_str(o, "\noptions (before or after the command):\n"
		    KIT_COMMON_OPTS_HELP
		    "  --help     this text; 'iterkit COMMAND --help' for one command\n"
		    "  --version  print the version\n");
	return kit_flush();
}

int main(int argc, char **argv)
{
	static const struct option version_opt[] = {
		{ "version", no_argument, NULL, KIT_OPT_VERSION }, { NULL, 0, NULL, 0 },
	};
	/* The options before the command. */
	static const struct kit_cmd top = { .args = "", .help = "", .opts = version_opt };
	const struct kit_cmd *cmd;
	struct kit_args a;
	int c, i, rc;

	kit_stats_begin();
	/* A closed pipe is a write error (exit 1, said once), not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	/* Which bytes of a name a terminal here prints (kit_out_text). */
	setlocale(LC_CTYPE, "");
	kit_out_locale();
	/* --json anywhere makes every error JSON, even one found before it. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			kit_json = true;
	kit_args_init(&a, &top, argc, argv);
	c = kit_args_next(&a);
	if (c == KIT_ARGS_HELP)
		return usage();
	if (c == KIT_OPT_VERSION) {
		kit_out_str(&kit_stdout, "iterkit " ITERKIT_VERSION "\n");
		return kit_flush();
	}
	if (c != KIT_ARGS_END)
		return 2;
	if (optind >= argc)
		return kit_usage_error("no command given (%s)", a.see);
	cmd = kit_find_cmd(argv[optind]);
	if (!cmd)
		return kit_usage_error("unknown command '%s' (%s)", argv[optind], a.see);
	rc = cmd->run(argc - optind, argv + optind);
	kit_stats_print();
	return rc;
}
