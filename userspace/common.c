// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the loader's subcommands. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iterkit.h"
#include "shared.h"

bool kit_json;
bool kit_verbose;

static int kit_verror(int rc, const char *fmt, va_list ap)
{
	fputs("iterkit: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return rc;
}

int kit_usage_error(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = kit_verror(2, fmt, ap);
	va_end(ap);
	return rc;
}

int kit_error(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = kit_verror(1, fmt, ap);
	va_end(ap);
	return rc;
}

bool kit_parse_int(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int kit_require_module(void)
{
	if (access("/sys/kernel/btf/iterkit", R_OK) == 0)
		return 0;
	if (access("/sys/module/iterkit", F_OK) == 0)
		return kit_error("the iterkit module is loaded but has no BTF (/sys/kernel/btf/iterkit), so its kfuncs are not registered; rebuild it against headers that ship vmlinux");
	return kit_error("the iterkit module is not loaded (no /sys/kernel/btf/iterkit); load it with: modprobe iterkit");
}

int kit_run_syscall_prog(int prog_fd, int *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int err;

	err = bpf_prog_test_run_opts(prog_fd, &opts);
	if (err)
		return -errno;
	*retval = (int)opts.retval;
	return 0;
}

int kit_run_walk(struct bpf_program *prog, const char *iter)
{
	int err, retval = 0;

	err = kit_run_syscall_prog(bpf_program__fd(prog), &retval);
	if (err)
		return kit_error("running the %s program failed: %s", iter, strerror(-err));
	if (retval == KIT_ERR_NO_KFUNC)
		return kit_error("the kernel has no bpf_iter_%s kfuncs (is the iterkit module loaded?)",
				 iter);
	return 0;
}

int kit_load_error(const char *what, int err)
{
	if (err < 0)
		err = -err;
	if (err == EPERM)
		return kit_error("loading the %s program: %s (run as root, or with CAP_BPF and CAP_SYS_ADMIN)",
				 what, strerror(err));
	return kit_error("loading the %s program failed: %s (run with -v for the verifier log)",
			 what, strerror(err));
}

const char *kit_errno_name(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case ENOMEM: return "ENOMEM";
	case EPERM: return "EPERM";
	case ENOSYS: return "ENOSYS";
	default: return NULL;
	}
}

void kit_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void kit_demo_verdict(const char *iter, bool pass, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (kit_json) {
		printf("{\"iterator\":");
		kit_json_str(stdout, iter);
		printf(",\"verdict\":\"%s\",\"detail\":", pass ? "pass" : "fail");
		kit_json_str(stdout, detail);
		printf("}");
	} else {
		printf("%-4s %-12s %s\n", pass ? "PASS" : "FAIL", iter, detail);
	}
}

void kit_cmd_help(const struct kit_cmd *cmd)
{
	printf("usage: iterkit %s%s%s [--json]\n  %s\n", cmd->name,
	       cmd->args[0] ? " " : "", cmd->args, cmd->help);
}

int kit_cmd_opts(const struct kit_cmd *cmd, int argc, char **argv)
{
	int i, j = 1;

	/* Keep positional arguments in order, drop the options we know. */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			kit_json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			kit_cmd_help(cmd);
			return -1;
		} else {
			argv[j++] = argv[i];
		}
	}
	argv[j] = NULL;
	return j;
}
