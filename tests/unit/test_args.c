// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/cli.c: option parsing (options anywhere,
 * negative numbers, errors that name the option), numbers, versions, the
 * lock wait, write errors, and the task state letters of
 * userspace/task_state.h.
 */
#define _GNU_SOURCE	/* strverscmp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli.h"
#include "task_state.h"
#include "harness.h"

enum { OPT_PID = 0x200, OPT_FLAG };

static const struct option test_opts[] = {
	{ "pid", required_argument, NULL, OPT_PID },
	{ "flag", no_argument, NULL, OPT_FLAG },
	{ NULL, 0, NULL, 0 },
};

static const struct kit_cmd test_cmd = {
	.name = "tasks", .args = "[--pid PID]", .help = "test", .opts = test_opts,
};

/* The options before the command: a command without a name. */
static const struct kit_cmd top_cmd = { .args = "", .help = "" };

/* What goes to fd (1 or 2) between capture_begin() and capture_end() (at most 64 KiB). */
static int capture_saved[3], capture_fds[3][2];

static void capture_begin(int fd)
{
	fflush(fd == 1 ? stdout : stderr);
	capture_saved[fd] = dup(fd);
	if (pipe(capture_fds[fd]))
		abort();
	dup2(capture_fds[fd][1], fd);
}

static void capture_end(int fd, char *buf, size_t len)
{
	ssize_t n;

	fflush(fd == 1 ? stdout : stderr);
	dup2(capture_saved[fd], fd);
	close(capture_saved[fd]);
	close(capture_fds[fd][1]);
	n = read(capture_fds[fd][0], buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(capture_fds[fd][0]);
}

/*
 * Parses args (NULL-terminated) for cmd: the result, what went to stdout
 * and stderr, the positionals joined by ','.
 */
struct parsed {
	int status;		/* KIT_ARGS_END, or the exit status */
	char out[2048];
	char err[512];
	char pos[128];
	char pid[32];
	bool flag;
	bool argv_kept;		/* argv as it was: the same strings, in the same order */
	int optind;
};

static struct parsed parse_for(const struct kit_cmd *cmd, const char *const *args)
{
	char *argv[96], *copies[96];
	struct kit_args a;
	struct parsed r = {};
	int argc = 0, c;

	while (args[argc]) {
		argv[argc] = copies[argc] = strdup(args[argc]);
		argc++;
	}
	argv[argc] = NULL;
	kit_json = false;
	capture_begin(1);
	capture_begin(2);
	kit_args_init(&a, cmd, argc, argv);
	while ((c = kit_args_next(&a)) >= 0) {
		if (c == OPT_PID)
			snprintf(r.pid, sizeof(r.pid), "%s", a.arg);
		else if (c == OPT_FLAG)
			r.flag = true;
	}
	r.status = c == KIT_ARGS_END ? KIT_ARGS_END : kit_args_exit(c);
	r.optind = optind;
	for (c = 0; c < a.npos; c++)
		snprintf(r.pos + strlen(r.pos), sizeof(r.pos) - strlen(r.pos), "%s%s", c ? "," : "",
			 a.pos[c]);
	capture_end(2, r.err, sizeof(r.err));
	capture_end(1, r.out, sizeof(r.out));
	r.argv_kept = true;
	for (c = 0; c < argc; c++)
		r.argv_kept &= argv[c] == copies[c] && !strcmp(copies[c], args[c]);
	while (argc--)
		free(copies[argc]);
	return r;
}

static struct parsed parse(const char *const *args)
{
	return parse_for(&test_cmd, args);
}

/* args: "tasks", then n negative numbers from -1 down, then last (or NULL). */
static struct parsed parse_negatives(int n, const char *last)
{
	static char nums[90][8];
	const char *args[96] = { "tasks" };
	int i;

	for (i = 0; i < n; i++) {
		snprintf(nums[i], sizeof(nums[i]), "%d", -(i + 1));
		args[i + 1] = nums[i];
	}
	args[n + 1] = last;
	return parse(args);
}

TEST_F(unit, options_anywhere)
{
	struct parsed r;

	r = parse((const char *const[]){ "tasks", "-3", "--pid", "7", "4", "--flag", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && !strcmp(r.pos, "-3,4") && !strcmp(r.pid, "7") && r.flag)
		TH_LOG("options anywhere; a negative number is an argument (pos '%s', pid '%s')", r.pos, r.pid);
	EXPECT_TRUE(r.argv_kept) TH_LOG("argv is left as it was (nothing masked, nothing moved)");
	r = parse((const char *const[]){ "tasks", "--pid=-5", NULL });
	EXPECT_STR(r.pid, "-5", "--pid=-5: a negative value");
	r = parse((const char *const[]){ "tasks", "--pid", "-5", "-6", NULL });
	EXPECT_STR(r.pid, "-5", "--pid -5: a negative value, the next word");
	EXPECT_STR(r.pos, "-6", "--pid -5 -6: then an argument");
	r = parse((const char *const[]){ "tasks", "--", "--flag", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && !strcmp(r.pos, "--flag") && !r.flag) TH_LOG("after --, arguments");
	r = parse((const char *const[]){ "tasks", "a", "--flag", "b", "-1", "-", "c", "--pid", "2", "d", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && r.flag && !strcmp(r.pid, "2")) TH_LOG("options between arguments");
	EXPECT_STR(r.pos, "a,b,-1,-,c,d", "the arguments in their order, '-' one of them");
	EXPECT_TRUE(r.argv_kept) TH_LOG("argv is left as it was");
	r = parse((const char *const[]){ "tasks", "-5v", "-0x10", "-1e3", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && !r.err[0]) TH_LOG("err '%s'", r.err);
	EXPECT_STR(r.pos, "-5v,-0x10,-1e3", "a word of '-' and a digit is an argument, whatever follows");
	r = parse((const char *const[]){ "tasks", "-v5", NULL });
	EXPECT_STR(r.err, "iterkit: tasks: unknown option '-5' (see iterkit tasks --help)\n",
		   "-v5: options, the second unknown");
	kit_verbose = false;
}

TEST_F(unit, option_errors)
{
	struct parsed r;

	r = parse((const char *const[]){ "tasks", "--json=1", NULL });
	EXPECT_EQ(2, r.status) TH_LOG("--json=1: exit 2");
	EXPECT_STR(r.err, "iterkit: tasks: --json takes no value (see iterkit tasks --help)\n",
		   "--json=1: names --json, no stray byte");
	r = parse((const char *const[]){ "tasks", "--flag=yes", NULL });
	EXPECT_STR(r.err, "iterkit: tasks: --flag takes no value (see iterkit tasks --help)\n",
		   "--flag=yes: names --flag");
	r = parse((const char *const[]){ "tasks", "-xv", NULL });
	EXPECT_STR(r.err, "iterkit: tasks: unknown option '-x' (see iterkit tasks --help)\n",
		   "-xv: names -x");
	r = parse((const char *const[]){ "tasks", "-vx", NULL });
	EXPECT_STR(r.err, "iterkit: tasks: unknown option '-x' (see iterkit tasks --help)\n",
		   "-vx: names -x");
	r = parse((const char *const[]){ "tasks", "--frob=3", NULL });
	EXPECT_STR(r.err, "iterkit: tasks: unknown option '--frob' (see iterkit tasks --help)\n",
		   "--frob=3: names --frob");
	r = parse((const char *const[]){ "tasks", "--pid", NULL });
	EXPECT_STR(r.err, "iterkit: tasks: --pid needs a value (see iterkit tasks --help)\n",
		   "--pid without a value");
	kit_lock_timeout = -1;
	r = parse((const char *const[]){ "tasks", "--lock-timeout", "2.5", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && kit_lock_timeout == 2.5) TH_LOG("--lock-timeout 2.5");
	r = parse((const char *const[]){ "tasks", "--lock-timeout", "0x10", NULL });
	EXPECT_STR(r.err, "iterkit: tasks: --lock-timeout needs seconds (e.g. 5 or 0.5), got '0x10'\n",
		   "--lock-timeout 0x10: refused, named");
	kit_lock_timeout = -1;
	r = parse((const char *const[]){ "tasks", "1", "--help", NULL });
	EXPECT_TRUE(r.status == 0 && !strncmp(r.out, "usage: iterkit tasks [--pid PID] [--json]", 41) &&
		    !r.err[0]) TH_LOG("--help after an argument: the help, exit 0 (out '%s')", r.out);
}

TEST_F(unit, too_many_arguments)
{
	struct parsed r;

	r = parse((const char *const[]){ "tasks", "1", "2", "3", "4", "5", "6", "7", "8", "9", NULL });
	EXPECT_TRUE(r.status == 2 && strstr(r.err, "too many arguments")) TH_LOG("too many arguments: exit 2");
	r = parse_negatives(9, NULL);
	EXPECT_STR(r.err, "iterkit: tasks: too many arguments (see iterkit tasks --help)\n",
		   "nine negative numbers: too many arguments, not an option '-9'");
	r = parse_negatives(80, NULL);
	EXPECT_STR(r.err, "iterkit: tasks: too many arguments (see iterkit tasks --help)\n",
		   "80 negative numbers: too many arguments");
	/* said once every option is read: an option's error comes first, and --help wins */
	r = parse((const char *const[]){ "tasks", "1", "2", "3", "4", "5", "6", "7", "8", "9", "--frob", NULL });
	EXPECT_STR(r.err, "iterkit: tasks: unknown option '--frob' (see iterkit tasks --help)\n",
		   "nine arguments and --frob: --frob named");
	r = parse_negatives(70, "--flag");
	EXPECT_TRUE(r.status == 2 && r.flag) TH_LOG("70 negative numbers, then --flag: read, then too many");
	r = parse_negatives(70, "--help");
	EXPECT_TRUE(r.status == 0 && !r.err[0] && strstr(r.out, "usage: iterkit tasks"))
		TH_LOG("70 negative numbers and --help: the help (err '%s')", r.err);
}

TEST_F(unit, dashdash)
{
	struct parsed r;

	r = parse((const char *const[]){ "tasks", "--", "-9", "-1", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && !strcmp(r.pos, "-9,-1") && !r.err[0])
		TH_LOG("-- -9 -1: two arguments (pos '%s', err '%s')", r.pos, r.err);
	r = parse((const char *const[]){ "tasks", "--flag", "--", "-x", "--pid", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && !strcmp(r.pos, "-x,--pid") && r.flag && !r.pid[0])
		TH_LOG("after --, what looks like options are arguments (pos '%s')", r.pos);
	r = parse((const char *const[]){ "tasks", "1", "--", "-2", NULL });
	EXPECT_STR(r.pos, "1,-2", "arguments before and after --, in order");
	/* "--" as a value: a negative number after it is read as an option, as getopt reads it */
	r = parse((const char *const[]){ "tasks", "--pid", "--", "-5", NULL });
	EXPECT_STR(r.pid, "--", "--pid --: the value '--'");
	EXPECT_STR(r.err, "iterkit: tasks: unknown option '-5' (see iterkit tasks --help)\n",
		   "--pid -- -5: -5 past the first '--' word is an option");
	r = parse((const char *const[]){ "tasks", "--pid", "--", "1", "--", "--flag", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && !strcmp(r.pos, "1,--flag") && !r.flag)
		TH_LOG("--pid --, then a second -- ends the options (pos '%s')", r.pos);
}

/* With POSIXLY_CORRECT, getopt's options stop at the first argument: here too. */
TEST_F(unit, posixly_correct)
{
	struct parsed r;

	setenv("POSIXLY_CORRECT", "1", 1);
	r = parse((const char *const[]){ "tasks", "--flag", "1", "--pid", "2", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && r.flag && !r.pid[0]) TH_LOG("err '%s'", r.err);
	EXPECT_STR(r.pos, "1,--pid,2", "options up to the first argument");
	r = parse((const char *const[]){ "tasks", "-3", "--", "4", NULL });
	EXPECT_STR(r.pos, "-3,--,4", "a negative number is the first argument; '--' after it too");
	r = parse((const char *const[]){ "tasks", "--", "-3", "--flag", NULL });
	EXPECT_STR(r.pos, "-3,--flag", "-- first: what follows");
	unsetenv("POSIXLY_CORRECT");
}

TEST_F(unit, top_options)
{
	struct parsed r;

	r = parse_for(&top_cmd, (const char *const[]){ "iterkit", "--stats", "tasks", "-3", "--bogus", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && kit_stats && !r.pos[0] && !r.err[0] && r.optind == 2)
		TH_LOG("before the command: its options, then a stop at the command (optind %d, err '%s')",
		       r.optind, r.err);
	r = parse_for(&top_cmd, (const char *const[]){ "iterkit", "-3", "tasks", NULL });
	EXPECT_STR(r.err, "iterkit: unknown option '-3' (see iterkit --help)\n",
		   "-3 before the command: an unknown option, errors without a command's name");
	r = parse_for(&top_cmd, (const char *const[]){ "iterkit", "--lock-timeout", NULL });
	EXPECT_STR(r.err, "iterkit: --lock-timeout needs a value (see iterkit --help)\n",
		   "--lock-timeout without a value, before the command");
	r = parse_for(&top_cmd, (const char *const[]){ "iterkit", "--json=1", "tasks", NULL });
	EXPECT_STR(r.err, "iterkit: --json takes no value (see iterkit --help)\n",
		   "--json=1 before the command");
	r = parse_for(&top_cmd, (const char *const[]){ "iterkit", "-h", "--bogus", NULL });
	EXPECT_TRUE(r.status == 0 && !r.err[0] && !r.out[0])
		TH_LOG("-h: left to the caller, nothing printed (err '%s')", r.err);
	r = parse_for(&top_cmd, (const char *const[]){ "iterkit", "--", "-3", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && !r.err[0] && r.optind == 2)
		TH_LOG("-- before the command: the command comes next (optind %d)", r.optind);
	r = parse_for(&top_cmd, (const char *const[]){ "iterkit", "-v", "num", "-3", "--json", NULL });
	EXPECT_TRUE(r.status == KIT_ARGS_END && kit_verbose && !kit_json && r.optind == 2)
		TH_LOG("-v num: the command's options are its own (optind %d)", r.optind);
	kit_stats = kit_verbose = false;
}

/*
 * After a parse that stopped inside "-xv" (getopt still pointing at its
 * "v"), the next starts afresh. The words stay valid across both parses
 * (parse() frees its copies), so that a stale "v" would be read.
 */
TEST_F(unit, parse_afresh)
{
	char tasks[] = "tasks", xv[] = "-xv", flag[] = "--flag", one[] = "1", err[512];
	char *first[] = { tasks, xv, NULL }, *second[] = { tasks, flag, one, NULL };
	struct kit_args a;
	int c1, c2, c3;

	capture_begin(2);
	kit_args_init(&a, &test_cmd, 2, first);
	c1 = kit_args_next(&a);
	kit_args_init(&a, &test_cmd, 3, second);
	c2 = kit_args_next(&a);
	c3 = kit_args_next(&a);
	capture_end(2, err, sizeof(err));
	EXPECT_EQ(KIT_ARGS_BAD, c1) TH_LOG("-xv: -x refused");
	EXPECT_TRUE(c2 == OPT_FLAG && c3 == KIT_ARGS_END && !kit_verbose && a.npos == 1)
		TH_LOG("then --flag and 1, no -v (%#x, %d, verbose %d, %d arguments)", c2, c3, kit_verbose,
		       a.npos);
}

TEST_F(unit, numbers)
{
	long long v = -1;
	double d;
	uint64_t u = 0;

	EXPECT_TRUE(kit_parse_int("08", 0, 100, &v) && v == 8) TH_LOG("08 is eight");
	EXPECT_TRUE(kit_parse_int("010", 0, 100, &v) && v == 10) TH_LOG("010 is ten, not octal");
	EXPECT_TRUE(kit_parse_int("-010", -100, 100, &v) && v == -10) TH_LOG("-010 is minus ten");
	EXPECT_TRUE(kit_parse_int("0x10", 0, 100, &v) && v == 16) TH_LOG("0x10 is hexadecimal");
	EXPECT_TRUE(kit_parse_int("-0x10", -100, 100, &v) && v == -16) TH_LOG("-0x10");
	EXPECT_FALSE(kit_parse_int("0x", 0, 100, &v)) TH_LOG("0x alone is refused");
	EXPECT_FALSE(kit_parse_int(" 1", 0, 100, &v)) TH_LOG("a leading space is refused");
	EXPECT_FALSE(kit_parse_int("+-1", -100, 100, &v)) TH_LOG("two signs are refused");
	EXPECT_FALSE(kit_parse_int("1x", 0, 100, &v)) TH_LOG("trailing garbage is refused");
	EXPECT_FALSE(kit_parse_int("101", 0, 100, &v)) TH_LOG("out of range is refused");
	EXPECT_FALSE(kit_parse_int("99999999999999999999", 0, 1LL << 62, &v)) TH_LOG("overflow is refused");
	EXPECT_FALSE(kit_parse_int("", 0, 100, &v)) TH_LOG("empty is refused");
	EXPECT_TRUE(kit_parse_int("-2147483648", INT32_MIN, INT32_MAX, &v) && v == INT32_MIN) TH_LOG("int: INT_MIN");
	EXPECT_FALSE(kit_parse_int("2147483648", INT32_MIN, INT32_MAX, &v)) TH_LOG("int: INT_MAX + 1 refused");
	EXPECT_TRUE(kit_parse_int("-9223372036854775808", LLONG_MIN, LLONG_MAX, &v) && v == LLONG_MIN)
		TH_LOG("int: LLONG_MIN");
	EXPECT_FALSE(kit_parse_int("9223372036854775808", LLONG_MIN, LLONG_MAX, &v))
		TH_LOG("int: LLONG_MAX + 1 refused");
	EXPECT_FALSE(kit_parse_int("", 0, 1, &v) || kit_parse_int("-", -1, 1, &v))
		TH_LOG("int: empty, a sign alone refused");

	EXPECT_TRUE(kit_parse_seconds("0.5", &d) && d == 0.5) TH_LOG("0.5 seconds");
	EXPECT_TRUE(!kit_parse_seconds("-1", &d) && !kit_parse_seconds("nan", &d) &&
		    !kit_parse_seconds("1e9", &d)) TH_LOG("negative, nan, too long: refused");
	EXPECT_TRUE(kit_parse_seconds("010", &d) && d == 10) TH_LOG("seconds: 010 is ten");
	EXPECT_TRUE(!kit_parse_seconds("0x10", &d) && !kit_parse_seconds("1e3", &d) &&
		    !kit_parse_seconds("1 ", &d) && !kit_parse_seconds(".5", &d))
		TH_LOG("seconds: decimal only (0x10, 1e3, a trailing space, .5 refused)");

	EXPECT_TRUE(kit_parse_dec("010", 0, 100, &v) && v == 10) TH_LOG("option values: 010 is ten");
	EXPECT_TRUE(kit_parse_dec("-7", -10, 10, &v) && v == -7) TH_LOG("option values: -7");
	EXPECT_TRUE(!kit_parse_dec("0x10", 0, 100, &v) && !kit_parse_dec("1x", 0, 100, &v) &&
		    !kit_parse_dec(" 1", 0, 100, &v) && !kit_parse_dec("", 0, 100, &v) &&
		    !kit_parse_dec("--1", -100, 100, &v)) TH_LOG("option values: decimal only");

	EXPECT_TRUE(kit_parse_u64("18446744073709551615", &u) && u == UINT64_MAX)
		TH_LOG("ids: 2^64 - 1 (above LLONG_MAX) taken");
	EXPECT_TRUE(kit_parse_u64("9223372036854775808", &u) && u == 9223372036854775808ull)
		TH_LOG("ids: LLONG_MAX + 1 taken");
	EXPECT_FALSE(kit_parse_u64("18446744073709551616", &u)) TH_LOG("ids: 2^64 refused");
	EXPECT_TRUE(!kit_parse_u64("3rdparty", &u) && !kit_parse_u64("-1", &u) &&
		    !kit_parse_u64("0x10", &u) && !kit_parse_u64("", &u) && !kit_parse_u64("+1", &u) &&
		    !kit_parse_u64("1 ", &u))
		TH_LOG("ids: digits only (3rdparty, -1, 0x10, empty, +1, a trailing space refused)");
	EXPECT_TRUE(kit_parse_u64("010", &u) && u == 10) TH_LOG("ids: 010 is ten");
}

TEST_F(unit, version_speaks)
{
	EXPECT_TRUE(kit_version_speaks("0.1.0", "0.1.0") && kit_version_speaks("0.1.0", "0.1.7") &&
		    kit_version_speaks("0.1.0", "0.1")) TH_LOG("0.1.0 speaks 0.1.0, 0.1.x and 0.1");
	EXPECT_TRUE(!kit_version_speaks("0.1.0", "0.2.0") && !kit_version_speaks("0.1.0", "0.10.0") &&
		    !kit_version_speaks("0.1.0", "1.1.0") && !kit_version_speaks("0.1.0", "0.1x") &&
		    !kit_version_speaks("0.1.0", "") && !kit_version_speaks("0.1.0", NULL))
		TH_LOG("0.1.0 does not speak 0.2.0, 0.10.0 (no prefix match), 1.1.0, 0.1x, empty, none");
	/* fewer than two dots in the loader's own version */
	EXPECT_TRUE(kit_version_speaks("1.0", "1.0.3") && kit_version_speaks("1.0", "1.0") &&
		    !kit_version_speaks("1.0", "1.1") && !kit_version_speaks("1.0", "1.00"))
		TH_LOG("a loader 1.0 speaks 1.0.x only");
	EXPECT_TRUE(kit_version_speaks("1", "1.4.2") && !kit_version_speaks("1", "2.0") &&
		    !kit_version_speaks("1", "10.0") && !kit_version_speaks("1", "12.0"))
		TH_LOG("a loader version without dots: its major number");
	EXPECT_FALSE(kit_version_speaks("", "0.1.0")) TH_LOG("an empty loader version speaks nothing");
}

/*
 * The loader compares versions (a module's with the installed one's, the
 * kernels the iterators need) with strverscmp(3): the orders it relies on.
 */
TEST_F(unit, version_order)
{
	EXPECT_LT(strverscmp("0.1.0", "0.1.1"), 0);
	EXPECT_GT(strverscmp("0.1.1", "0.1.0"), 0);
	EXPECT_EQ(0, strverscmp("0.1.1", "0.1.1")) TH_LOG("a version is its own");
	EXPECT_EQ(0, strverscmp("0.1.0", "0.1.0"));
	EXPECT_LT(strverscmp("0.1.9", "0.1.10"), 0) TH_LOG("fields compare as numbers, not text");
	EXPECT_GT(strverscmp("0.1.10", "0.1.9"), 0);
	EXPECT_GT(strverscmp("0.10.0", "0.9.9"), 0);
	EXPECT_LT(strverscmp("6.4", "6.12"), 0) TH_LOG("kernel 6.4 is older than 6.12");
	EXPECT_LT(strverscmp("6.4", "6.7"), 0);
	EXPECT_LT(strverscmp("0.1", "0.1.0"), 0) TH_LOG("a version with more fields is newer");
	EXPECT_LT(strverscmp("", "0.1"), 0) TH_LOG("no version is older than any");
	EXPECT_GT(strverscmp("0.1", ""), 0);
	EXPECT_GT(strverscmp("1.0.0", ""), 0);
	EXPECT_LT(strverscmp("0.1.0~rc1", "0.1.0~rc2"), 0) TH_LOG("text between the numbers compares too");
}

/* A child that holds dir's flock as "holder" until killed (or for hold seconds); its pid. */
static pid_t hold_lock(const char *dir, double hold)
{
	int sync[2];
	pid_t pid;
	char c;

	if (pipe(sync))
		abort();
	pid = fork();
	if (pid == 0) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY);

		prctl(PR_SET_NAME, "holder");
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(sync[1], "x", 1) != 1)
			_exit(1);
		kit_sleep(hold);
		_exit(0);
	}
	close(sync[1]);
	if (read(sync[0], &c, 1) != 1)
		c = 0;
	close(sync[0]);
	return c == 'x' ? pid : -1;
}

TEST_F(unit, lock_wait)
{
	char dir[] = "/tmp/iterkit-unit-lock.XXXXXX", err[1024], want[512], comm[32];
	pid_t pid;
	int fd, rc;

	ASSERT_NE(NULL, mkdtemp(dir)) TH_LOG("lock: a temporary directory");
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	kit_cmd_name = "tasks";

	/* free: taken at once, not a word */
	capture_begin(2);
	rc = kit_lock_wait(fd, "the test lock");
	capture_end(2, err, sizeof(err));
	EXPECT_TRUE(rc == 0 && !err[0]) TH_LOG("lock: a free lock is taken without a word ('%s')", err);
	flock(fd, LOCK_UN);

	/* held, with a timeout: one line naming the holder, then a clear error */
	pid = hold_lock(dir, 30);
	EXPECT_TRUE(pid > 0 && kit_lock_holder(fd, comm, sizeof(comm)) == pid && !strcmp(comm, "holder"))
		TH_LOG("lock: /proc/locks names the holder (pid %d, comm '%s')", (int)pid, comm);
	kit_lock_timeout = 0.2;
	capture_begin(2);
	rc = kit_lock_wait(fd, "the test lock");
	capture_end(2, err, sizeof(err));
	snprintf(want, sizeof(want),
		 "iterkit: tasks: waiting for the test lock held by pid %d (holder)\n"
		 "iterkit: tasks: gave up waiting for the test lock held by pid %d (holder) after 0.2 s (--lock-timeout)\n",
		 (int)pid, (int)pid);
	EXPECT_EQ(1, rc) TH_LOG("lock: --lock-timeout 0.2 gives up (1)");
	EXPECT_STR(err, want, "lock: says who holds it, then gives up");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	/* held, no timeout: waits until the holder lets go */
	kit_lock_timeout = -1;
	pid = hold_lock(dir, 0.3);
	capture_begin(2);
	rc = kit_lock_wait(fd, "the test lock");
	capture_end(2, err, sizeof(err));
	snprintf(want, sizeof(want), "iterkit: tasks: waiting for the test lock held by pid %d (holder)\n",
		 (int)pid);
	EXPECT_EQ(0, rc) TH_LOG("lock: without a timeout, taken once the holder is gone");
	EXPECT_STR(err, want, "lock: one line while waiting");
	waitpid(pid, NULL, 0);
	flock(fd, LOCK_UN);
	close(fd);
	rmdir(dir);
	kit_cmd_name = NULL;
}

/* A write error: exit 1 and one line naming the command, the first time only. */
TEST_F(unit, write_error)
{
	int full = open("/dev/full", O_WRONLY), saved = dup(1), rc1, rc2;
	char err[512];

	ASSERT_TRUE(full >= 0 && saved >= 0) TH_LOG("write error: /dev/full");
	kit_cmd_name = "status";
	fflush(stdout);
	dup2(full, 1);
	capture_begin(2);
	kit_out_str(&kit_stdout, "hello\n");
	rc1 = kit_flush();
	kit_out_str(&kit_stdout, "again\n");
	rc2 = kit_flush();
	capture_end(2, err, sizeof(err));
	dup2(saved, 1);
	close(saved);
	close(full);
	kit_cmd_name = NULL;
	EXPECT_TRUE(rc1 == 1 && rc2 == 1) TH_LOG("write error: kit_flush() says 1, every time");
	EXPECT_STR(err, "iterkit: status: write error: No space left on device\n",
		   "write error: one line, named, once");
	kit_out_free(&kit_stdout);
}

TEST_F(unit, task_state)
{
	EXPECT_EQ('R', kit_task_state(0, 0)) TH_LOG("0: R");
	EXPECT_EQ('S', kit_task_state(0x1, 0)) TH_LOG("TASK_INTERRUPTIBLE: S");
	EXPECT_EQ('D', kit_task_state(0x2, 0)) TH_LOG("TASK_UNINTERRUPTIBLE: D");
	EXPECT_EQ('D', kit_task_state(0x102, 0)) TH_LOG("TASK_KILLABLE: D");
	EXPECT_EQ('I', kit_task_state(0x402, 0)) TH_LOG("TASK_IDLE: I");
	EXPECT_EQ('I', kit_task_state(0x2402, 0)) TH_LOG("TASK_IDLE | TASK_FREEZABLE: I");
	EXPECT_EQ('S', kit_task_state(0x2001, 0)) TH_LOG("TASK_INTERRUPTIBLE | TASK_FREEZABLE: S");
	EXPECT_EQ('T', kit_task_state(0x4, 0)) TH_LOG("__TASK_STOPPED: T");
	EXPECT_EQ('t', kit_task_state(0x8, 0)) TH_LOG("__TASK_TRACED: t");
	EXPECT_EQ('Z', kit_task_state(0x0, 0x20)) TH_LOG("EXIT_ZOMBIE: Z");
	EXPECT_EQ('X', kit_task_state(0x0, 0x10)) TH_LOG("EXIT_DEAD: X");
	EXPECT_EQ('P', kit_task_state(0x40, 0)) TH_LOG("TASK_PARKED: P");
	EXPECT_EQ('D', kit_task_state(0x1000, 0)) TH_LOG("TASK_RTLOCK_WAIT: D");
}

TEST_HARNESS_MAIN
