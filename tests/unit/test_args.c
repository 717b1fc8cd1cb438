// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/common.c: option parsing (options anywhere,
 * negative numbers, errors that name the option), numbers, and the task
 * state letters of userspace/task_state.h.
 */
#include <stdlib.h>
#include <unistd.h>
#include "iterkit.h"
#include "task_state.h"
#include "unit.h"

enum { OPT_PID = 0x200, OPT_FLAG };

static const struct option test_opts[] = {
	{ "pid", required_argument, NULL, OPT_PID },
	{ "flag", no_argument, NULL, OPT_FLAG },
	{ NULL, 0, NULL, 0 },
};

static const struct kit_cmd test_cmd = {
	.name = "tasks", .args = "[--pid PID]", .help = "test", .opts = test_opts,
};

/* Parses argv (NULL-terminated); the result, stderr's text in err, positionals joined by ','. */
struct parsed {
	int status;		/* KIT_ARGS_END, or the exit status */
	char err[512];
	char pos[128];
	char pid[32];
	bool flag;
};

static struct parsed parse(const char *const *args)
{
	char *argv[16], *copies[16];
	struct kit_args a;
	struct parsed r = {};
	int argc = 0, c, fds[2], saved;
	ssize_t n;

	while (args[argc]) {
		argv[argc] = copies[argc] = strdup(args[argc]);
		argc++;
	}
	argv[argc] = NULL;
	kit_json = false;
	fflush(stderr);
	saved = dup(2);
	if (pipe(fds))
		abort();
	dup2(fds[1], 2);
	kit_args_init(&a, &test_cmd, argc, argv);
	while ((c = kit_args_next(&a)) >= 0) {
		if (c == OPT_PID)
			snprintf(r.pid, sizeof(r.pid), "%s", a.arg);
		else if (c == OPT_FLAG)
			r.flag = true;
	}
	r.status = c == KIT_ARGS_END ? KIT_ARGS_END : kit_args_exit(c);
	for (c = 0; c < a.npos; c++)
		snprintf(r.pos + strlen(r.pos), sizeof(r.pos) - strlen(r.pos), "%s%s", c ? "," : "",
			 a.pos[c]);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	n = read(fds[0], r.err, sizeof(r.err) - 1);
	r.err[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	while (argc--)
		free(copies[argc]);
	return r;
}

static void test_options(void)
{
	struct parsed r;

	r = parse((const char *const[]){ "tasks", "-3", "--pid", "7", "4", "--flag", NULL });
	UNIT_OK(r.status == KIT_ARGS_END && !strcmp(r.pos, "-3,4") && !strcmp(r.pid, "7") && r.flag,
		"options anywhere; a negative number is an argument (pos '%s', pid '%s')", r.pos, r.pid);
	r = parse((const char *const[]){ "tasks", "--pid=-5", NULL });
	UNIT_STREQ(r.pid, "-5", "--pid=-5: a negative value");
	r = parse((const char *const[]){ "tasks", "--", "--flag", NULL });
	UNIT_OK(r.status == KIT_ARGS_END && !strcmp(r.pos, "--flag") && !r.flag, "after --, arguments");

	r = parse((const char *const[]){ "tasks", "--json=1", NULL });
	UNIT_OK(r.status == 2, "--json=1: exit 2");
	UNIT_STREQ(r.err, "iterkit: tasks: --json takes no value (see iterkit tasks --help)\n",
		   "--json=1: names --json, no stray byte");
	r = parse((const char *const[]){ "tasks", "--flag=yes", NULL });
	UNIT_STREQ(r.err, "iterkit: tasks: --flag takes no value (see iterkit tasks --help)\n",
		   "--flag=yes: names --flag");
	r = parse((const char *const[]){ "tasks", "-xv", NULL });
	UNIT_STREQ(r.err, "iterkit: tasks: unknown option '-x' (see iterkit tasks --help)\n",
		   "-xv: names -x");
	r = parse((const char *const[]){ "tasks", "-vx", NULL });
	UNIT_STREQ(r.err, "iterkit: tasks: unknown option '-x' (see iterkit tasks --help)\n",
		   "-vx: names -x");
	r = parse((const char *const[]){ "tasks", "--frob=3", NULL });
	UNIT_STREQ(r.err, "iterkit: tasks: unknown option '--frob' (see iterkit tasks --help)\n",
		   "--frob=3: names --frob");
	r = parse((const char *const[]){ "tasks", "--pid", NULL });
	UNIT_STREQ(r.err, "iterkit: tasks: --pid needs a value (see iterkit tasks --help)\n",
		   "--pid without a value");
	r = parse((const char *const[]){ "tasks", "1", "2", "3", "4", "5", "6", "7", "8", "9", NULL });
	UNIT_OK(r.status == 2 && strstr(r.err, "too many arguments"), "too many arguments: exit 2");
}

static void test_numbers(void)
{
	long long v = -1;
	double d;

	UNIT_OK(kit_parse_int("08", 0, 100, &v) && v == 8, "08 is eight");
	UNIT_OK(kit_parse_int("010", 0, 100, &v) && v == 10, "010 is ten, not octal");
	UNIT_OK(kit_parse_int("-010", -100, 100, &v) && v == -10, "-010 is minus ten");
	UNIT_OK(kit_parse_int("0x10", 0, 100, &v) && v == 16, "0x10 is hexadecimal");
	UNIT_OK(kit_parse_int("-0x10", -100, 100, &v) && v == -16, "-0x10");
	UNIT_OK(!kit_parse_int("0x", 0, 100, &v), "0x alone is refused");
	UNIT_OK(!kit_parse_int(" 1", 0, 100, &v), "a leading space is refused");
	UNIT_OK(!kit_parse_int("+-1", -100, 100, &v), "two signs are refused");
	UNIT_OK(!kit_parse_int("1x", 0, 100, &v), "trailing garbage is refused");
	UNIT_OK(!kit_parse_int("101", 0, 100, &v), "out of range is refused");
	UNIT_OK(!kit_parse_int("99999999999999999999", 0, 1LL << 62, &v), "overflow is refused");
	UNIT_OK(!kit_parse_int("", 0, 100, &v), "empty is refused");
	UNIT_OK(kit_parse_seconds("0.5", &d) && d == 0.5, "0.5 seconds");
	UNIT_OK(!kit_parse_seconds("-1", &d) && !kit_parse_seconds("nan", &d) &&
		!kit_parse_seconds("1e9", &d), "negative, nan, too long: refused");
}

static void test_task_state(void)
{
	UNIT_OK(kit_task_state(0, 0) == 'R', "0: R");
	UNIT_OK(kit_task_state(0x1, 0) == 'S', "TASK_INTERRUPTIBLE: S");
	UNIT_OK(kit_task_state(0x2, 0) == 'D', "TASK_UNINTERRUPTIBLE: D");
	UNIT_OK(kit_task_state(0x102, 0) == 'D', "TASK_KILLABLE: D");
	UNIT_OK(kit_task_state(0x402, 0) == 'I', "TASK_IDLE: I");
	UNIT_OK(kit_task_state(0x2402, 0) == 'I', "TASK_IDLE | TASK_FREEZABLE: I");
	UNIT_OK(kit_task_state(0x2001, 0) == 'S', "TASK_INTERRUPTIBLE | TASK_FREEZABLE: S");
	UNIT_OK(kit_task_state(0x4, 0) == 'T', "__TASK_STOPPED: T");
	UNIT_OK(kit_task_state(0x8, 0) == 't', "__TASK_TRACED: t");
	UNIT_OK(kit_task_state(0x0, 0x20) == 'Z', "EXIT_ZOMBIE: Z");
	UNIT_OK(kit_task_state(0x0, 0x10) == 'X', "EXIT_DEAD: X");
	UNIT_OK(kit_task_state(0x40, 0) == 'P', "TASK_PARKED: P");
	UNIT_OK(kit_task_state(0x1000, 0) == 'D', "TASK_RTLOCK_WAIT: D");
}

int main(void)
{
	test_options();
	test_numbers();
	test_task_state();
	return unit_done();
}
