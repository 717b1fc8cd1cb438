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
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli.h"
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

/* The options before the command: a command without a name. */
static const struct kit_cmd top_cmd = { .args = "", .help = "" };

/* The command parse() reads argv for. */
static const struct kit_cmd *parse_cmd = &test_cmd;

/* What goes to stderr between capture_begin() and capture_end() (at most 64 KiB). */
static int capture_saved, capture_fds[2];

static void capture_begin(void)
{
	fflush(stderr);
	capture_saved = dup(2);
	if (pipe(capture_fds))
		abort();
	dup2(capture_fds[1], 2);
}

static void capture_end(char *buf, size_t len)
{
	ssize_t n;

	fflush(stderr);
	dup2(capture_saved, 2);
	close(capture_saved);
	close(capture_fds[1]);
	n = read(capture_fds[0], buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(capture_fds[0]);
}

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
	int argc = 0, c;

	while (args[argc]) {
		argv[argc] = copies[argc] = strdup(args[argc]);
		argc++;
	}
	argv[argc] = NULL;
	kit_json = false;
	capture_begin();
	kit_args_init(&a, parse_cmd, argc, argv);
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
	capture_end(r.err, sizeof(r.err));
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
	r = parse((const char *const[]){ "tasks", "-1", "-2", "-3", "-4", "-5", "-6", "-7", "-8", "-9", NULL });
	UNIT_STREQ(r.err, "iterkit: tasks: too many arguments (see iterkit tasks --help)\n",
		   "nine negative numbers: too many arguments, not an option '-9'");
	r = parse((const char *const[]){ "tasks", "--", "-9", "-1", NULL });
	UNIT_OK(r.status == KIT_ARGS_END && !strcmp(r.pos, "-9,-1") && !r.err[0],
		"-- -9 -1: two arguments (pos '%s', err '%s')", r.pos, r.err);
	r = parse((const char *const[]){ "tasks", "--flag", "--", "-x", "--pid", NULL });
	UNIT_OK(r.status == KIT_ARGS_END && !strcmp(r.pos, "-x,--pid") && r.flag && !r.pid[0],
		"after --, what looks like options are arguments (pos '%s')", r.pos);
	kit_lock_timeout = -1;
	r = parse((const char *const[]){ "tasks", "--lock-timeout", "2.5", NULL });
	UNIT_OK(r.status == KIT_ARGS_END && kit_lock_timeout == 2.5, "--lock-timeout 2.5");
	r = parse((const char *const[]){ "tasks", "--lock-timeout", "0x10", NULL });
	UNIT_STREQ(r.err, "iterkit: tasks: --lock-timeout needs seconds (e.g. 5 or 0.5), got '0x10'\n",
		   "--lock-timeout 0x10: refused, named");
	kit_lock_timeout = -1;
}

static void test_top_options(void)
{
	struct parsed r;

	parse_cmd = &top_cmd;
	r = parse((const char *const[]){ "iterkit", "--stats", "tasks", "-3", "--bogus", NULL });
	UNIT_OK(r.status == KIT_ARGS_END && kit_stats && !r.pos[0] && !r.err[0] && optind == 2,
		"before the command: its options, then a stop at the command (optind %d, err '%s')",
		optind, r.err);
	r = parse((const char *const[]){ "iterkit", "-3", "tasks", NULL });
	UNIT_STREQ(r.err, "iterkit: unknown option '-3' (see iterkit --help)\n",
		   "-3 before the command: an unknown option, errors without a command's name");
	r = parse((const char *const[]){ "iterkit", "--lock-timeout", NULL });
	UNIT_STREQ(r.err, "iterkit: --lock-timeout needs a value (see iterkit --help)\n",
		   "--lock-timeout without a value, before the command");
	r = parse((const char *const[]){ "iterkit", "--json=1", "tasks", NULL });
	UNIT_STREQ(r.err, "iterkit: --json takes no value (see iterkit --help)\n",
		   "--json=1 before the command");
	r = parse((const char *const[]){ "iterkit", "-h", "--bogus", NULL });
	UNIT_OK(r.status == 0 && !r.err[0], "-h: left to the caller, nothing printed (err '%s')",
		r.err);
	r = parse((const char *const[]){ "iterkit", "--", "-3", NULL });
	UNIT_OK(r.status == KIT_ARGS_END && !r.err[0] && optind == 2,
		"-- before the command: the command comes next (optind %d)", optind);
	kit_stats = false;
	parse_cmd = &test_cmd;
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
	UNIT_OK(kit_parse_seconds("010", &d) && d == 10, "seconds: 010 is ten");
	UNIT_OK(!kit_parse_seconds("0x10", &d) && !kit_parse_seconds("1e3", &d) &&
		!kit_parse_seconds("1 ", &d) && !kit_parse_seconds(".5", &d),
		"seconds: decimal only (0x10, 1e3, a trailing space, .5 refused)");

	UNIT_OK(kit_parse_dec("010", 0, 100, &v) && v == 10, "option values: 010 is ten");
	UNIT_OK(kit_parse_dec("-7", -10, 10, &v) && v == -7, "option values: -7");
	UNIT_OK(!kit_parse_dec("0x10", 0, 100, &v) && !kit_parse_dec("1x", 0, 100, &v) &&
		!kit_parse_dec(" 1", 0, 100, &v) && !kit_parse_dec("", 0, 100, &v) &&
		!kit_parse_dec("--1", -100, 100, &v), "option values: decimal only");

	{
		uint64_t u = 0;

		UNIT_OK(kit_parse_u64("18446744073709551615", &u) && u == UINT64_MAX,
			"ids: 2^64 - 1 (above LLONG_MAX) taken");
		UNIT_OK(kit_parse_u64("9223372036854775808", &u) && u == 9223372036854775808ull,
			"ids: LLONG_MAX + 1 taken");
		UNIT_OK(!kit_parse_u64("18446744073709551616", &u), "ids: 2^64 refused");
		UNIT_OK(!kit_parse_u64("3rdparty", &u) && !kit_parse_u64("-1", &u) &&
			!kit_parse_u64("0x10", &u) && !kit_parse_u64("", &u) && !kit_parse_u64("+1", &u),
			"ids: digits only (3rdparty, -1, 0x10, empty, +1 refused)");
		UNIT_OK(kit_parse_u64("010", &u) && u == 10, "ids: 010 is ten");
	}
}

static void test_versions(void)
{
	UNIT_OK(kit_version_speaks("0.1.0", "0.1.0") && kit_version_speaks("0.1.0", "0.1.7") &&
		kit_version_speaks("0.1.0", "0.1"), "0.1.0 speaks 0.1.x and 0.1");
	UNIT_OK(!kit_version_speaks("0.1.0", "0.2.0") && !kit_version_speaks("0.1.0", "0.10.0") &&
		!kit_version_speaks("0.1.0", "0.1x") && !kit_version_speaks("0.1.0", "") &&
		!kit_version_speaks("0.1.0", NULL), "0.1.0 does not speak 0.2.0, 0.10.0, 0.1x, empty");
	/* fewer than two dots in the loader's own version */
	UNIT_OK(kit_version_speaks("1.0", "1.0.3") && kit_version_speaks("1.0", "1.0") &&
		!kit_version_speaks("1.0", "1.1") && !kit_version_speaks("1.0", "1.00"),
		"a loader 1.0 speaks 1.0.x only");
	UNIT_OK(kit_version_speaks("1", "1.4.2") && !kit_version_speaks("1", "2.0") &&
		!kit_version_speaks("1", "10.0"), "a loader 1 speaks 1.x");
	UNIT_OK(!kit_version_speaks("", "0.1.0"), "an empty loader version speaks nothing");
	UNIT_OK(strverscmp("0.1.0", "0.1.1") < 0 && strverscmp("0.1.1", "0.1.0") > 0 &&
		strverscmp("0.1.1", "0.1.1") == 0, "0.1.0 < 0.1.1, and the same version is equal");
	UNIT_OK(strverscmp("0.1.9", "0.1.10") < 0 && strverscmp("0.10.0", "0.9.9") > 0,
		"fields compare as numbers: 0.1.9 < 0.1.10, 0.10.0 > 0.9.9");
	UNIT_OK(strverscmp("0.1", "0.1.0") < 0 && strverscmp("1.0.0", "") > 0,
		"a version with more fields is newer; anything is newer than nothing");
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

static void test_lock_wait(void)
{
	char dir[] = "/tmp/iterkit-unit-lock.XXXXXX", err[1024], want[512], comm[32];
	pid_t pid;
	int fd, rc;

	if (!mkdtemp(dir)) {
		UNIT_OK(false, "lock: a temporary directory");
		return;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	kit_cmd_name = "tasks";

	/* free: taken at once, not a word */
	capture_begin();
	rc = kit_lock_wait(fd, "the test lock");
	capture_end(err, sizeof(err));
	UNIT_OK(rc == 0 && !err[0], "lock: a free lock is taken without a word ('%s')", err);
	flock(fd, LOCK_UN);

	/* held, with a timeout: one line naming the holder, then a clear error */
	pid = hold_lock(dir, 30);
	UNIT_OK(pid > 0 && kit_lock_holder(fd, comm, sizeof(comm)) == pid && !strcmp(comm, "holder"),
		"lock: /proc/locks names the holder (pid %d, comm '%s')", (int)pid, comm);
	kit_lock_timeout = 0.2;
	capture_begin();
	rc = kit_lock_wait(fd, "the test lock");
	capture_end(err, sizeof(err));
	snprintf(want, sizeof(want),
		 "iterkit: tasks: waiting for the test lock held by pid %d (holder)\n"
		 "iterkit: tasks: gave up waiting for the test lock held by pid %d (holder) after 0.2 s (--lock-timeout)\n",
		 (int)pid, (int)pid);
	UNIT_OK(rc == 1, "lock: --lock-timeout 0.2 gives up (1)");
	UNIT_STREQ(err, want, "lock: says who holds it, then gives up");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	/* held, no timeout: waits until the holder lets go */
	kit_lock_timeout = -1;
	pid = hold_lock(dir, 0.3);
	capture_begin();
	rc = kit_lock_wait(fd, "the test lock");
	capture_end(err, sizeof(err));
	snprintf(want, sizeof(want), "iterkit: tasks: waiting for the test lock held by pid %d (holder)\n",
		 (int)pid);
	UNIT_OK(rc == 0, "lock: without a timeout, taken once the holder is gone");
	UNIT_STREQ(err, want, "lock: one line while waiting");
	waitpid(pid, NULL, 0);
	flock(fd, LOCK_UN);
	close(fd);
	rmdir(dir);
	kit_cmd_name = NULL;
}

/* A write error: exit 1 and one line naming the command, the first time only. */
static void test_write_error(void)
{
	int full = open("/dev/full", O_WRONLY), saved = dup(1), rc1, rc2;
	char err[512];

	if (full < 0 || saved < 0) {
		UNIT_OK(false, "write error: /dev/full");
		return;
	}
	kit_cmd_name = "status";
	fflush(stdout);
	dup2(full, 1);
	capture_begin();
	kit_out_str(&kit_stdout, "hello\n");
	rc1 = kit_flush();
	kit_out_str(&kit_stdout, "again\n");
	rc2 = kit_flush();
	capture_end(err, sizeof(err));
	dup2(saved, 1);
	close(saved);
	close(full);
	kit_cmd_name = NULL;
	UNIT_OK(rc1 == 1 && rc2 == 1, "write error: kit_flush() says 1, every time");
	UNIT_STREQ(err, "iterkit: status: write error: No space left on device\n",
		   "write error: one line, named, once");
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
	test_top_options();
	test_numbers();
	test_versions();
	test_lock_wait();
	test_write_error();
	test_task_state();
	return unit_done();
}
