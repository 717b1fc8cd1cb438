// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the loader's pure parts above the writer and the command
 * line: version checks, u64 numbers, the end of a verifier's log, room
 * for records, the tasks tree, cgroup paths and the iterator table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "cli.h"
#include "prog.h"
#include "iter.h"
#include "tasks.h"
#include "cgroups.h"
#include "unit.h"

/* What o holds, as a NUL-terminated string (the buffer is not one). */
static const char *held(struct kit_out *o)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%.*s", (int)o->len, o->p ? o->p : "");
	return buf;
}

static void test_versions(void)
{
	UNIT_OK(strverscmp("0.1.9", "0.1.10") < 0, "0.1.9 is older than 0.1.10 (numbers, not text)");
	UNIT_OK(strverscmp("0.1.10", "0.1.9") > 0, "0.1.10 is newer than 0.1.9");
	UNIT_OK(strverscmp("0.1.0", "0.1.0") == 0, "a version is its own");
	UNIT_OK(strverscmp("6.4", "6.12") < 0, "kernel 6.4 is older than 6.12");
	UNIT_OK(strverscmp("0.1", "0.1.0") < 0, "a shorter version is older");
	UNIT_OK(strverscmp("", "0.1") < 0 && strverscmp("0.1", "") > 0,
		"no version is older than any");
	UNIT_OK(strverscmp("0.1.0~rc1", "0.1.0~rc2") < 0, "text between the numbers compares too");

	UNIT_OK(kit_version_speaks("0.1.0", "0.1.0"), "a loader speaks its own module");
	UNIT_OK(kit_version_speaks("0.1.0", "0.1.7"), "and another patch release of it");
	UNIT_OK(kit_version_speaks("0.1.0", "0.1"), "and MAJOR.MINOR alone");
	UNIT_OK(!kit_version_speaks("0.1.0", "0.2.0"), "not another minor version");
	UNIT_OK(!kit_version_speaks("0.1.0", "0.10.0"), "not 0.10 for 0.1 (no prefix match)");
	UNIT_OK(!kit_version_speaks("0.1.0", "1.1.0"), "not another major version");
	UNIT_OK(!kit_version_speaks("0.1.0", ""), "not an unknown version");
	UNIT_OK(!kit_version_speaks("0.1.0", NULL), "not a missing version");
	UNIT_OK(kit_version_speaks("1", "1.4.2") && !kit_version_speaks("1", "12.0"),
		"a loader version without dots: its major number");
}

static void test_numbers(void)
{
	uint64_t u;
	long long v;

	UNIT_OK(kit_parse_u64("18446744073709551615", &u) && u == UINT64_MAX, "u64: the largest cgroup id");
	UNIT_OK(!kit_parse_u64("18446744073709551616", &u), "u64: one past it is refused");
	UNIT_OK(kit_parse_u64("010", &u) && u == 10, "u64: 010 is ten");
	UNIT_OK(!kit_parse_u64("-1", &u) && !kit_parse_u64("+1", &u) && !kit_parse_u64("0x1", &u) &&
		!kit_parse_u64("", &u) && !kit_parse_u64("1 ", &u), "u64: signs, hex, empty, spaces refused");
	UNIT_OK(kit_parse_int("-2147483648", INT32_MIN, INT32_MAX, &v) && v == INT32_MIN, "int: INT_MIN");
	UNIT_OK(!kit_parse_int("2147483648", INT32_MIN, INT32_MAX, &v), "int: INT_MAX + 1 refused");
	UNIT_OK(kit_parse_int("-9223372036854775808", LLONG_MIN, LLONG_MAX, &v) && v == LLONG_MIN,
		"int: LLONG_MIN");
	UNIT_OK(!kit_parse_int("9223372036854775808", LLONG_MIN, LLONG_MAX, &v), "int: LLONG_MAX + 1 refused");
	UNIT_OK(!kit_parse_int("", 0, 1, &v) && !kit_parse_int("-", -1, 1, &v), "int: empty, a sign alone refused");
}

static void test_log_tail(void)
{
	char log[4096], *p = log;
	int i;

	snprintf(log, sizeof(log), "one\ntwo\n\n\n");
	UNIT_STREQ(kit_log_tail(log), "one\ntwo", "a short log whole, its trailing newlines cut");
	log[0] = '\0';
	UNIT_STREQ(kit_log_tail(log), "", "an empty log");
	snprintf(log, sizeof(log), "\n\n");
	UNIT_STREQ(kit_log_tail(log), "", "a log of newlines only");
	for (i = 1; i <= 20; i++)
		p += sprintf(p, "line %d\n", i);
	UNIT_STREQ(kit_log_tail(log),
		   "line 9\nline 10\nline 11\nline 12\nline 13\nline 14\nline 15\nline 16\n"
		   "line 17\nline 18\nline 19\nline 20", "a long log: its last 12 lines");
	snprintf(log, sizeof(log), "no newline at all");
	UNIT_STREQ(kit_log_tail(log), "no newline at all", "one line without a newline");
}

static void test_room(void)
{
	UNIT_OK(kit_room_for(0) == 64, "room for none: 64 spare");
	UNIT_OK(kit_room_for(800) == 800 + 100 + 64, "room for 800: an eighth and 64 more");
	UNIT_OK(kit_room_for(UINT64_MAX) == UINT32_MAX / 2, "room is capped (a map's max_entries)");
	UNIT_OK(kit_room_for(UINT32_MAX) == UINT32_MAX / 2, "room for 2^32 - 1 is capped too");
}

static struct kit_task_rec task(int32_t tgid, int32_t ppid, const char *comm)
{
	struct kit_task_rec r = { .pid = tgid, .tgid = tgid, .ppid = ppid };

	memcpy(r.comm, comm, strnlen(comm, sizeof(r.comm)));	/* comm need not end in NUL */
	return r;
}

static const char *tree_of(const struct kit_task_rec *v, size_t n)
{
	static struct kit_out o;

	kit_out_reset(&o);
	UNIT_OK(kit_tasks_print_tree(&o, v, n) == 0, "print_tree of %zu tasks returns 0", n);
	return held(&o);
}

static void test_tree(void)
{
	struct kit_task_rec v[8] = {};
	size_t n = 0;

	UNIT_STREQ(tree_of(v, 0), "", "no tasks: no tree");

	v[n++] = task(1, 0, "init");
	v[n++] = task(2, 0, "kthreadd");
	v[n++] = task(10, 1, "sshd");
	v[n++] = task(11, 10, "bash");
	v[n++] = task(12, 1, "cron");
	v[n++] = task(13, 2, "kworker/0:1");
	/* a task whose parent was not walked is a root of its own */
	v[n++] = task(40, 39, "orphan");
	UNIT_STREQ(tree_of(v, n),
		   "init(1)\n"
		   "|-sshd(10)\n"
		   "| `-bash(11)\n"
		   "`-cron(12)\n"
		   "kthreadd(2)\n"
		   "`-kworker/0:1(13)\n"
		   "orphan(40)\n",
		   "children under their parents in walk order, the unparented as roots");

	/* pid 0, when walked, is the parent of those whose ppid is 0 */
	n = 0;
	v[n++] = task(0, 0, "swapper/0");
	v[n++] = task(1, 0, "init");
	v[n++] = task(2, 0, "kthreadd");
	v[n++] = task(10, 1, "sshd");
	UNIT_STREQ(tree_of(v, n), "swapper/0(0)\n|-init(1)\n| `-sshd(10)\n`-kthreadd(2)\n",
		   "pid 0 is a root, with the ppid 0 tasks under it");

	v[0] = task(1, 0, "sixteen-chars-xy");
	UNIT_STREQ(tree_of(v, 1), "sixteen-chars-xy(1)\n", "a comm of 16 bytes, without its NUL");

	n = 0;
	v[n++] = task(5, 5, "self-parent");
	v[n++] = task(7, 5, "child");
	UNIT_STREQ(tree_of(v, n), "self-parent(5)\n`-child(7)\n",
		   "a task that is its own parent is a root, not a loop");

	n = 0;
	v[n++] = task(1, 0, "a\033b");
	UNIT_STREQ(tree_of(v, n), "a?b(1)\n", "a comm's control bytes are escaped as elsewhere");
}

static const char *child_path(const char *parent, const char *name)
{
	static char out[256];
	size_t len = kit_cg_child_path(out, parent, strlen(parent), name, strlen(name));

	out[len] = '\0';
	return out;
}

static void test_cg_path(void)
{
	char buf[64];
	size_t len;

	UNIT_STREQ(child_path("/", "system.slice"), "/system.slice", "under the root: one '/'");
	UNIT_STREQ(child_path("/system.slice", "ssh.service"), "/system.slice/ssh.service",
		   "under another: parent '/' name");
	UNIT_STREQ(child_path("/a/b", ""), "/a/b/", "an empty name (not expected) adds only the '/'");

	/* as cg_path() does it: the parent's path earlier in the same buffer */
	memcpy(buf, "/a", 2);
	len = 2 + kit_cg_child_path(buf + 2, buf, 2, "bc", 2);
	buf[len] = '\0';
	UNIT_STREQ(buf, "/a/a/bc", "the parent read from the buffer it is appended to");
}

static void test_iters(void)
{
	size_t i, with_cmd = 0;
	bool pins_ok = true, loads_ok = true, versions_ok = true;

	for (i = 0; kit_iters[i]; i++) {
		const struct kit_iter *it = kit_iters[i];

		if (!it->prog.mainline || strverscmp(it->prog.mainline, "6.4") < 0)
			versions_ok = false;
		if (!kit_iter_has_cmd(it))
			continue;
		with_cmd++;
		/* resident programs are found by their command's name */
		if (!it->prog.pin || strcmp(it->prog.pin, it->cmd.name))
			pins_ok = false;
		if (!it->prog.skel.load || !it->prog.skel.destroy || !it->prog.produced || !it->demo)
			loads_ok = false;
	}
	UNIT_OK(with_cmd == 4, "four iterators with a command (num, seq, tasks, cgroups)");
	UNIT_OK(pins_ok, "every program's pin directory is its command's name");
	UNIT_OK(loads_ok, "every command's iterator has a program and a demo");
	UNIT_OK(versions_ok, "every iterator names a mainline kernel, 6.4 or later");
	UNIT_STREQ(kit_iters_oldest_kernel(), "6.4", "the oldest kernel of the table is 6.4");
	for (i = 0; kit_iters[i] && kit_iter_has_cmd(kit_iters[i]); i++)
		;
	for (; kit_iters[i]; i++)
		if (kit_iter_has_cmd(kit_iters[i]))
			break;
	UNIT_OK(!kit_iters[i], "iterators without a command come last");
}

int main(void)
{
	test_versions();
	test_numbers();
	test_log_tail();
	test_room();
	test_tree();
	test_cg_path();
	test_iters();
	return unit_done();
}
