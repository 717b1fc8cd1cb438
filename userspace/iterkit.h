/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ITERKIT_H
#define ITERKIT_H

#include <stdbool.h>
#include <stdio.h>

/* One subcommand of the loader. A command that can show its iterator
 * end to end also has a demo() that prints one verdict line.
 */
struct kit_cmd {
	const char *name;
	const char *args;	/* synopsis after the name */
	const char *help;	/* one line */
	int (*run)(int argc, char **argv);
	/* returns 0 for a passing demo, 1 for a failing one, 2 if not available */
	int (*demo)(void);
};

extern const struct kit_cmd kit_cmd_status, kit_cmd_num, kit_cmd_seq,
	kit_cmd_tasks, kit_cmd_cgroups;

/* Global options. */
extern bool kit_json;
extern bool kit_verbose;

/* Prints "iterkit: <msg>" on stderr and returns 2 (bad usage) or 1. */
int kit_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kit_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict number parsing: the whole string, in range, else false. */
bool kit_parse_int(const char *s, long long min, long long max, long long *out);

/* Checks that the module is loaded with its BTF; prints one line if not. */
int kit_require_module(void);

/* Runs a SEC("syscall") program once; returns its return value or -errno. */
int kit_run_syscall_prog(int prog_fd, int *retval);

/* Runs a walk program of the loader (SEC("syscall"), returns 0 or
 * KIT_ERR_NO_KFUNC); returns 0, or 1 after printing one line.
 */
struct bpf_program;
int kit_run_walk(struct bpf_program *prog, const char *iter);

/* Loads a skeleton's object; on failure prints one line naming what failed. */
int kit_load_error(const char *what, int err);

/* "EINVAL"-style name for an errno value (positive), or NULL. */
const char *kit_errno_name(int err);

/* JSON output helpers. */
void kit_json_str(FILE *f, const char *s);

/* For the demo: a verdict line, or an object in --json mode. */
void kit_demo_verdict(const char *iter, bool pass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Common option scan for subcommands: handles --json and --help. Returns
 * the index of the first non-option argument, or -1 after printing help.
 */
int kit_cmd_opts(const struct kit_cmd *cmd, int argc, char **argv);
void kit_cmd_help(const struct kit_cmd *cmd);

#endif
