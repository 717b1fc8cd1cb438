// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the loader's subcommands: arguments, errors, stats. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "cli.h"

bool kit_json;
bool kit_verbose;
bool kit_stats;
const char *kit_cmd_name;
double kit_lock_timeout = -1;
volatile sig_atomic_t kit_interrupted;

static char *kit_capture;
static size_t kit_capture_len;

void kit_capture_errors(char *buf, size_t len)
{
	kit_capture = buf;
	kit_capture_len = len;
	if (buf && len)
		buf[0] = '\0';
}

const char *kit_error_log;

int kit_fail(int rc, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* What fails after an interrupt fails because of it: the exit status says so. */
	if (kit_interrupted)
		return rc;
	if (kit_capture) {
		snprintf(kit_capture, kit_capture_len, "%s", msg);
		return rc;
	}
	if (kit_json) {
		struct kit_json j;

		/* The error is the whole answer: drop a half-built document. */
		kit_out_reset(&kit_stdout);
		kit_json_init(&j, &kit_stdout);
		kit_json_object(&j);
		kit_json_kstr(&j, "error", msg);
		if (kit_error_log)
			kit_json_kstr(&j, "verifier_log", kit_error_log);
		kit_json_object_end(&j);
		kit_json_end(&j);
		kit_out_flush(&kit_stdout);
		return rc;
	}
	fprintf(stderr, "iterkit: %s%s%s\n", kit_cmd_name ? kit_cmd_name : "",
		kit_cmd_name ? ": " : "", msg);
	if (kit_error_log) {
		const char *p = kit_error_log;

		/* under the error line, indented */
		while (*p) {
			size_t n = strcspn(p, "\n");

			fprintf(stderr, "  %.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	return rc;
}

int kit_flush(void)
{
	int err = kit_out_flush(&kit_stdout);
	static bool said;

	if (!err)
		return 0;
	/* Once: every later flush fails the same way. On stderr even with --json: stdout failed. */
	if (!said && !kit_interrupted)
		fprintf(stderr, "iterkit: %s%swrite error: %s\n", kit_cmd_name ? kit_cmd_name : "",
			kit_cmd_name ? ": " : "", strerror(-err));
	said = true;
	return 1;
}

int kit_scan_file(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "re");
	va_list ap;
	int n;

	if (!f)
		return -1;
	va_start(ap, fmt);
	n = vfscanf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	return n < 0 ? 0 : n;	/* EOF: nothing read, which is not "no file" */
}

void kit_sleep(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

bool kit_parse_int(const char *s, long long min, long long max, long long *out)
{
	const char *digits = s;
	int base = 10;
	char *end;
	long long v;

	if (!s || !*s)
		return false;
	if (*digits == '-' || *digits == '+')
		digits++;
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
		base = 16;
		digits += 2;
	}
	/* strtoll would take spaces, a second sign or a bare "0x". */
	if (!isxdigit((unsigned char)*digits) || (base == 10 && !isdigit((unsigned char)*digits)))
		return false;
	errno = 0;
	v = strtoll(s, &end, base);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool kit_parse_dec(const char *s, long long min, long long max, long long *out)
{
	/* kit_parse_int() without 0x: it takes nothing else but [+-]digits */
	return s && !strpbrk(s, "xX") && kit_parse_int(s, min, max, out);
}

bool kit_parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || s[strspn(s, "0123456789")])
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool kit_parse_seconds(const char *s, double *out)
{
	size_t n;
	char *end;
	double v;

	/* Digits, then a fraction: strtod alone would take 0x10, 1e3, inf. */
	if (!s || !isdigit((unsigned char)*s))
		return false;
	n = strspn(s, "0123456789");
	if (s[n] == '.')
		n += 1 + strspn(s + n + 1, "0123456789");
	if (s[n])
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0 || v > 86400)
		return false;
	*out = v;
	return true;
}

static const struct option kit_common_opts[] = {
	{ "json", no_argument, NULL, KIT_OPT_JSON },
	{ "stats", no_argument, NULL, KIT_OPT_STATS },
	{ "help", no_argument, NULL, KIT_OPT_HELP },
	{ "verbose", no_argument, NULL, KIT_OPT_VERBOSE },
	{ "lock-timeout", required_argument, NULL, KIT_OPT_LOCK_TIMEOUT },
};

#define KIT_NCOMMON (sizeof(kit_common_opts) / sizeof(kit_common_opts[0]))

static void kit_cmd_help(const struct kit_cmd *cmd)
{
	struct kit_out *o = &kit_stdout;

	kit_out_printf(o, "usage: iterkit %s%s%s [--json] [--stats] [-v]\n  %s\n", cmd->name,
		       cmd->args[0] ? " " : "", cmd->args, cmd->help);
	if (cmd->opts_help)
		kit_out_printf(o, "\n%s", cmd->opts_help);
	kit_out_str(o, "\n" KIT_COMMON_OPTS_HELP);
	kit_flush();
}

void kit_args_init(struct kit_args *a, const struct kit_cmd *cmd, int argc, char **argv)
{
	size_t n = 0, i, max = sizeof(a->longopts) / sizeof(a->longopts[0]) - 1;

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	kit_cmd_name = cmd->name;
	a->argc = argc;
	a->argv = argv;
	snprintf(a->see, sizeof(a->see), "see iterkit %s%s--help", cmd->name ?: "",
		 cmd->name ? " " : "");
	for (i = 0; i < KIT_NCOMMON; i++)
		a->longopts[n++] = kit_common_opts[i];
	for (i = 0; cmd->opts && cmd->opts[i].name && n < max; i++)
		a->longopts[n++] = cmd->opts[i];
	for (a->dashdash = 1; a->dashdash < argc && strcmp(argv[a->dashdash], "--"); a->dashdash++)
		;
	a->in_order = getenv("POSIXLY_CORRECT");
	/* glibc's getopt starts afresh (main has used it already), at argv[1] */
	optind = 0;
	opterr = 0;
	getopt_long(1, argv, "+", a->longopts, NULL);
}

/* Whether argv[i] is an argument, not an option. */
static bool kit_is_arg(const struct kit_args *a, int i)
{
	const char *s = a->argv[i];

	return s[0] != '-' || !s[1] ||
	       (a->cmd->name && i < a->dashdash && isdigit((unsigned char)s[1]));
}

/* Takes s as the next argument (too many are said once the options are read). */
static void kit_args_add(struct kit_args *a, char *s)
{
	if (a->npos == KIT_MAX_POS)
		a->too_many = true;
	else
		a->pos[a->npos++] = s;
}

/* The options end at argv[from]: the rest are arguments (the command's: a named one). */
static int kit_args_end(struct kit_args *a, int from)
{
	optind = from;
	for (; a->cmd->name && from < a->argc; from++)
		kit_args_add(a, a->argv[from]);
	a->done = true;
	if (!a->too_many)
		return KIT_ARGS_END;
	kit_usage_error("too many arguments (%s)", a->see);
	return KIT_ARGS_BAD;
}

const char *kit_opt_name(const struct kit_args *a, int c)
{
	static char name[64];
	const struct option *o;
	const char *w;

	if (c > 0 && c < 0x100) {
		snprintf(name, sizeof(name), "-%c", c);
		return name;
	}
	for (o = a->longopts; c && o->name; o++) {
		if (o->val == c) {
			snprintf(name, sizeof(name), "--%s", o->name);
			return name;
		}
	}
	/* Not one of ours: as written, without a value. */
	w = optind > 0 && optind <= a->argc ? a->argv[optind - 1] : "?";
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(w, "="), w);
	return name;
}

int kit_args_next(struct kit_args *a)
{
	int c;

	if (a->done)
		return KIT_ARGS_END;
	for (;;) {
		/* The arguments are read here; getopt ("+") reads the options, one at a time. */
		if (optind >= a->argc)
			return kit_args_end(a, optind);
		if (!strcmp(a->argv[optind], "--"))
			return kit_args_end(a, optind + 1);
		if (kit_is_arg(a, optind)) {
			/* The command line before the command stops at it. */
			if (!a->cmd->name || a->in_order)
				return kit_args_end(a, optind);
			kit_args_add(a, a->argv[optind++]);
			continue;
		}
		c = getopt_long(a->argc, a->argv, "+:hv", a->longopts, NULL);
		a->arg = optarg;
		switch (c) {
		case -1:
			return kit_args_end(a, optind);
		case KIT_OPT_JSON:
			kit_json = true;
			continue;
		case KIT_OPT_STATS:
			kit_stats = true;
			continue;
		case 'v':
		case KIT_OPT_VERBOSE:
			kit_verbose = true;
			continue;
		case KIT_OPT_LOCK_TIMEOUT:
			if (!kit_parse_seconds(a->arg, &kit_lock_timeout)) {
				kit_usage_error("--lock-timeout needs seconds (e.g. 5 or 0.5), got '%s'",
						a->arg);
				return KIT_ARGS_BAD;
			}
			continue;
		case 'h':
		case KIT_OPT_HELP:
			if (a->cmd->name)
				kit_cmd_help(a->cmd);
			return KIT_ARGS_HELP;
		case ':':
			kit_usage_error("%s needs a value (%s)", kit_opt_name(a, optopt), a->see);
			return KIT_ARGS_BAD;
		case '?':
			/* optopt: the short option, a long option given a value, or 0 (unknown) */
			if (optopt >= 0x100)
				kit_usage_error("%s takes no value (%s)", kit_opt_name(a, optopt),
						a->see);
			else
				kit_usage_error("unknown option '%s' (%s)", kit_opt_name(a, optopt),
						a->see);
			return KIT_ARGS_BAD;
		default:
			return c;
		}
	}
}

int kit_args_simple(const struct kit_cmd *cmd, int argc, char **argv, int npos, char ***pos)
{
	static struct kit_args a;
	int c;

	kit_args_init(&a, cmd, argc, argv);
	while ((c = kit_args_next(&a)) >= 0)
		;
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos != npos && !npos)
		return kit_usage_error("takes no arguments (got '%s')", a.pos[0]);
	if (a.npos != npos)
		return kit_usage_error("needs %s (got %d argument%s)", cmd->args,
				       a.npos, a.npos == 1 ? "" : "s");
	if (pos)
		*pos = a.pos;
	return -1;
}

#define KIT_MAX_PHASES 12

static struct {
	double start, last;
	const char *name[KIT_MAX_PHASES];
	double ms[KIT_MAX_PHASES];
	int n;
	unsigned long long map_bytes;
} kit_st;
struct kit_counters kit_counters;

double kit_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void kit_stats_begin(void)
{
	kit_st.start = kit_st.last = kit_now_ms();
}

void kit_phase(const char *name)
{
	double now = kit_now_ms();
	int i;

	if (!kit_st.start)
		kit_st.start = kit_st.last = now;
	for (i = 0; i < kit_st.n; i++)
		if (!strcmp(kit_st.name[i], name))
			break;
	if (i == kit_st.n) {
		if (kit_st.n == KIT_MAX_PHASES)
			return;
		kit_st.name[kit_st.n++] = name;
	}
	kit_st.ms[i] += now - kit_st.last;
	kit_st.last = now;
}

void kit_stats_map(int map_fd)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", map_fd);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "memlock: %llu", &v) == 1)
			kit_st.map_bytes += v;
	}
	fclose(f);
}

void kit_stats_print(void)
{
	struct rusage ru;
	int i;

	if (!kit_stats)
		return;
	kit_phase("exit");
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, "iterkit-stats:");
	for (i = 0; i < kit_st.n; i++)
		fprintf(stderr, " %s=%.3f", kit_st.name[i], kit_st.ms[i]);
	fprintf(stderr, " total=%.3f ms; loads=%u walks=%u records=%llu map_bytes=%llu peak_rss_kib=%ld\n",
		kit_st.last - kit_st.start, kit_counters.loads, kit_counters.walks,
		(unsigned long long)kit_counters.records, kit_st.map_bytes, ru.ru_maxrss);
}

bool kit_version_speaks(const char *mine, const char *version)
{
	const char *dot = strchr(mine, '.');
	size_t n;

	/* MAJOR.MINOR: mine up to its second dot, or the whole of it when it has fewer */
	dot = dot ? strchr(dot + 1, '.') : NULL;
	n = dot ? (size_t)(dot - mine) : strlen(mine);
	return version && n && !strncmp(version, mine, n) &&
	       (version[n] == '.' || version[n] == '\0');
}

static void kit_on_signal(int sig)
{
	kit_interrupted = sig;
}

void kit_catch_interrupts(void)
{
	/* No SA_RESTART: a wait (a lock) returns at once, with EINTR. */
	struct sigaction sa = { .sa_handler = kit_on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

pid_t kit_lock_holder(int fd, char *comm, size_t len)
{
	char line[256], path[64];
	struct stat st;
	pid_t pid = 0;
	FILE *f;

	if (len)
		comm[0] = '\0';
	if (fstat(fd, &st) || !(f = fopen("/proc/locks", "re")))
		return 0;
	/* "7: FLOCK  ADVISORY  WRITE 8258 fe:00:1171486 0 EOF"; a waiter's line has "->" */
	while (fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		unsigned long long ino;
		char type[16];
		int p;

		if (strstr(line, "->") ||
		    sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%llu", type, &p, &maj, &min, &ino) != 5)
			continue;
		if (!strcmp(type, "FLOCK") && ino == st.st_ino && maj == major(st.st_dev) &&
		    min == minor(st.st_dev)) {
			pid = p;
			break;
		}
	}
	fclose(f);
	if (pid <= 0 || !len)
		return pid;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, len, f))
			comm[0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	return pid;
}

int kit_lock_wait(int fd, const char *what)
{
	char comm[32], holder[80] = "";
	double deadline;
	pid_t pid;

	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK)
		return kit_error("locking %s failed: %s", what, strerror(errno));
	pid = kit_lock_holder(fd, comm, sizeof(comm));
	if (pid > 0)
		snprintf(holder, sizeof(holder), " held by pid %d (%s)", (int)pid,
			 comm[0] ? comm : "?");
	/* A line of progress, not the command's output: on stderr, --json or not. */
	if (!kit_capture && !kit_interrupted)
		fprintf(stderr, "iterkit: %s%swaiting for %s%s\n", kit_cmd_name ? kit_cmd_name : "",
			kit_cmd_name ? ": " : "", what, holder);
	deadline = kit_now_ms() + kit_lock_timeout * 1e3;
	for (;;) {
		if (kit_lock_timeout < 0 ? !flock(fd, LOCK_EX) : !flock(fd, LOCK_EX | LOCK_NB))
			return 0;
		if (kit_interrupted)
			return 1;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return kit_error("locking %s failed: %s", what, strerror(errno));
		if (kit_lock_timeout >= 0 && kit_now_ms() >= deadline)
			return kit_error("gave up waiting for %s%s after %g s (--lock-timeout)",
					 what, holder, kit_lock_timeout);
		if (kit_lock_timeout >= 0)
			kit_sleep(0.01);
	}
}
