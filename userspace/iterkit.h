/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ITERKIT_H
#define ITERKIT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "outbuf.h"
#include "json.h"

/* What a demo found: one verdict and one line of detail. */
enum kit_verdict { KIT_PASS, KIT_FAIL, KIT_SKIP };

struct kit_demo {
	enum kit_verdict verdict;
	char detail[512];
};

/* One subcommand of the loader. */
struct kit_cmd {
	const char *name;
	const char *args;		/* synopsis after the name */
	const char *help;		/* one line */
	const struct option *opts;	/* its own long options (0-terminated), or NULL */
	const char *opts_help;		/* lines about them for --help, or NULL */
	int (*run)(int argc, char **argv);
	/* Shows the iterator end to end; fills d (a walk error becomes a FAIL). */
	void (*demo)(struct kit_demo *d);
};

extern const struct kit_cmd kit_cmd_status, kit_cmd_num, kit_cmd_seq, kit_cmd_tasks,
	kit_cmd_cgroups, kit_cmd_load, kit_cmd_unload;

/* Options every command takes, before or after its name. */
extern bool kit_json;		/* --json */
extern bool kit_verbose;	/* -v: the verifier's log */
extern bool kit_stats;		/* --stats: time per phase and memory, on stderr */

/*
 * A command's arguments, read with getopt_long: options anywhere, the
 * common ones handled here. A negative number ("num -3 3") is an argument,
 * not an option.
 */
#define KIT_MAX_POS 8
struct kit_args {
	const struct kit_cmd *cmd;
	int argc;
	char **argv;
	char *arg;			/* the current option's value */
	const char *name;		/* the current option as written */
	char *pos[KIT_MAX_POS];		/* positional arguments, in order */
	int npos;
	struct option longopts[24];
	char *masked[KIT_MAX_POS];	/* negative numbers hidden from getopt */
	int nmasked;
	bool done;
};

enum { KIT_ARGS_END = -1, KIT_ARGS_HELP = -2, KIT_ARGS_BAD = -3 };
/* Values for the common long options (commands use values from 0x200 up). */
enum { KIT_OPT_JSON = 0x100, KIT_OPT_STATS, KIT_OPT_HELP, KIT_OPT_VERBOSE };

void kit_args_init(struct kit_args *a, const struct kit_cmd *cmd, int argc, char **argv);
/*
 * The next option of the command's own: its value (.val of its struct
 * option), with its argument in a->arg. KIT_ARGS_END when all are read (the
 * positional ones are then in a->pos), KIT_ARGS_HELP after printing the
 * help, KIT_ARGS_BAD after printing a usage error.
 */
int kit_args_next(struct kit_args *a);
/* The exit status for KIT_ARGS_HELP / KIT_ARGS_BAD. */
static inline int kit_args_exit(int c) { return c == KIT_ARGS_HELP ? 0 : 2; }

/*
 * Errors: one line, "iterkit: <msg>" on stderr; with --json, {"error": <msg>}
 * on stdout instead (as bpftool does), replacing whatever was about to be
 * printed. kit_usage_error() returns 2, kit_error() 1.
 */
int kit_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kit_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While buf is set, errors are kept there instead of printed (the demo). */
void kit_capture_errors(char *buf, size_t len);

/* Strict number parsing: the whole string, in range, else false. */
bool kit_parse_int(const char *s, long long min, long long max, long long *out);
/* Seconds with an optional fraction ("0.5"), >= 0. */
bool kit_parse_seconds(const char *s, double *out);

/* Waits between two walks of --repeat (--interval). */
void kit_sleep(double seconds);

/* Checks that the module is loaded with its BTF; prints one line if not. */
int kit_require_module(void);

/* Whether the module's BTF has this function (so its kfunc is registered). */
bool kit_module_has_func(const char *name);
bool kit_kernel_has_func(const char *name);
/* The iterator's three kfuncs are all there. */
bool kit_module_has_iter(const char *iter);

/* "EINVAL"-style name for an errno value (positive), or NULL. */
const char *kit_errno_name(int err);

/* For the demo: the verdict of one iterator, printed by the demo command. */
void kit_demo_set(struct kit_demo *d, enum kit_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* --stats: the clock starts (main() calls it first). */
void kit_stats_begin(void);
/* --stats: ends the current phase under this name (times add up per name). */
void kit_phase(const char *name);
/* --stats: counts the kernel memory of a map (its memlock). */
void kit_stats_map(int map_fd);
void kit_stats_records(uint64_t n);
/* --stats: a program was loaded (not found resident) / a walk ran. */
void kit_stats_load(void);
void kit_stats_walk(void);
/* Prints the stats line on stderr if --stats was given. */
void kit_stats_print(void);

/* Output: the command's result, written at exit (or before waiting in --interval). */
int kit_flush(void);

#endif
