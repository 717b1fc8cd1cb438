/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line: commands and their arguments, errors, numbers,
 * versions, interrupts, locks and --stats. Everything above the writer
 * (out.h) that knows nothing of the module or of BPF.
 */
#ifndef ITERKIT_CLI_H
#define ITERKIT_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "out.h"

/* One subcommand of the loader (bpftool's shape: a name and what runs it). */
struct kit_cmd {
	const char *name;
	const char *args;		/* synopsis after the name */
	const char *help;		/* one line */
	const struct option *opts;	/* its own long options (0-terminated), or NULL */
	const char *opts_help;		/* lines about them for --help, or NULL */
	int (*run)(int argc, char **argv);
};

/* Options every command takes, before or after its name. */
extern bool kit_json;		/* --json */
extern bool kit_verbose;	/* -v: the verifier's log */
extern bool kit_stats;	/* --stats: time per phase and memory, on stderr */
extern double kit_lock_timeout;	/* --lock-timeout: seconds, < 0 to wait as long as it takes */
/* The command being run, which errors name ("iterkit: tasks: ..."); NULL before one is known. */
extern const char *kit_cmd_name;

/* The options every command takes, for --help. */
#define KIT_COMMON_OPTS_HELP								\
	"  --json     machine-readable output; errors as {\"error\": ...} on stdout\n"	\
	"  --stats    time per phase, map memory and peak RSS on stderr\n"		\
	"  -v         the verifier's log of the programs loaded\n"			\
	"  --lock-timeout SECONDS  give up (exit 1) after waiting this long for a lock\n"

/*
 * A command's arguments, read with getopt_long: options anywhere, the
 * common ones handled here. The arguments are read here, not by getopt,
 * which sees only the options: a word without a leading '-', "-", or a
 * negative number before the first "--" ("num -3 3") is an argument;
 * "--" ends the options; with POSIXLY_CORRECT the first argument does too.
 * A command without a name is the command line before the command: its
 * options stop at the first argument (then at optind), and --help is left
 * to the caller.
 */
#define KIT_MAX_POS 8
struct kit_args {
	const struct kit_cmd *cmd;
	int argc;
	char **argv;
	char *arg;			/* the current option's value */
	char *pos[KIT_MAX_POS];		/* positional arguments, in order */
	int npos;
	bool too_many;			/* more than KIT_MAX_POS of them */
	int dashdash;			/* the first "--" word (argc if none) */
	bool in_order;			/* POSIXLY_CORRECT */
	struct option longopts[24];
	bool done;
	char see[48];			/* "see iterkit CMD --help", for errors */
};

enum { KIT_ARGS_END = -1, KIT_ARGS_HELP = -2, KIT_ARGS_BAD = -3 };
/* Values for the common long options (commands use values from 0x200 up). */
enum { KIT_OPT_JSON = 0x100, KIT_OPT_STATS, KIT_OPT_HELP, KIT_OPT_VERBOSE, KIT_OPT_VERSION,
       KIT_OPT_LOCK_TIMEOUT };

void kit_args_init(struct kit_args *a, const struct kit_cmd *cmd, int argc, char **argv);
/*
 * The next option of the command's own: its value (.val of its struct
 * option), with its argument in a->arg. KIT_ARGS_END when all are read (the
 * positional ones are then in a->pos), KIT_ARGS_HELP after printing the
 * help, KIT_ARGS_BAD after printing a usage error.
 */
int kit_args_next(struct kit_args *a);
/*
 * Writes what is buffered for stdout: 0, or 1 after saying why not, once,
 * on stderr: "iterkit: <command>: write error: <strerror>" (every write
 * error, EPIPE included, stops the command; SIGPIPE is ignored).
 */
int kit_flush(void);
/* The exit status for KIT_ARGS_HELP (0, or 1 when the help could not be written) / KIT_ARGS_BAD. */
static inline int kit_args_exit(int c) { return c == KIT_ARGS_HELP ? kit_flush() : 2; }
/*
 * A command without options of its own: reads them all and checks that
 * there are npos positional arguments. -1 when all is well, else the exit
 * status (the error or the help printed).
 */
int kit_args_simple(const struct kit_cmd *cmd, int argc, char **argv, int npos, char ***pos);
/* The name of the option getopt just read, as the user wrote it ("--json", "-x"). */
const char *kit_opt_name(const struct kit_args *a, int c);

/*
 * Errors: one line, "iterkit: <command>: <msg>" on stderr ("iterkit: <msg>"
 * before a command is known); with --json, {"error": <msg>} on stdout
 * instead (as bpftool does), replacing whatever was about to be printed.
 * Returns rc: 2 for kit_usage_error(), 1 for kit_error(). After an
 * interrupt nothing is printed.
 */
int kit_fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define kit_error(...) kit_fail(1, __VA_ARGS__)
#define kit_usage_error(...) kit_fail(2, __VA_ARGS__)
/*
 * While set, the next errors carry these lines (the end of a verifier log):
 * under the error line, or as "verifier_log" in the JSON error.
 */
extern const char *kit_error_log;
/* While buf is set, errors are kept there instead of printed (the demo). */
void kit_capture_errors(char *buf, size_t len);

/*
 * Numbers: decimal (leading zeros are decimal too: 010 is ten), or
 * hexadecimal with 0x; the whole string, in range, else false. For the
 * arguments of num and seq.
 */
bool kit_parse_int(const char *s, long long min, long long max, long long *out);
/* Decimal only, an optional sign: the values of options. */
bool kit_parse_dec(const char *s, long long min, long long max, long long *out);
/* Decimal digits only, the full range of a u64 (cgroup ids). */
bool kit_parse_u64(const char *s, uint64_t *out);
/* Seconds: decimal digits with an optional fraction ("0.5"), at most a day. */
bool kit_parse_seconds(const char *s, double *out);

/* Whether a loader of version mine speaks a module of version: the same MAJOR.MINOR. */
bool kit_version_speaks(const char *mine, const char *version);

/*
 * SIGINT and SIGTERM set kit_interrupted (the signal) instead of killing:
 * the command cleans up and exits 128 + the signal.
 */
extern volatile sig_atomic_t kit_interrupted;
void kit_catch_interrupts(void);

/*
 * Takes the exclusive flock of fd. When another holds it, says so once on
 * stderr ("waiting for <what> held by pid N (comm)") and waits, at most
 * --lock-timeout seconds. 0, or 1 after printing why not.
 */
int kit_lock_wait(int fd, const char *what);
/* The pid holding fd's flock (its comm in comm), from /proc/locks; 0 if unknown. */
pid_t kit_lock_holder(int fd, char *comm, size_t len);

/* Waits between two walks of --repeat (--interval). */
void kit_sleep(double seconds);
/* CLOCK_MONOTONIC in milliseconds. */
double kit_now_ms(void);

/* fscanf() of the file at path: the fields read (0 if it is empty), -1 if it cannot be opened. */
int kit_scan_file(const char *path, const char *fmt, ...) __attribute__((format(scanf, 2, 3)));

/* --stats: the clock starts (main() calls it first). */
void kit_stats_begin(void);
/* --stats: ends the current phase under this name (times add up per name). */
void kit_phase(const char *name);
/* --stats: counts the kernel memory of a map (its memlock). */
void kit_stats_map(int map_fd);
/* --stats: programs loaded (not found resident), walks run, records they gave. */
extern struct kit_counters {
	unsigned int loads, walks;
	uint64_t records;
} kit_counters;
/* Prints the stats line on stderr if --stats was given. */
void kit_stats_print(void);

#endif
