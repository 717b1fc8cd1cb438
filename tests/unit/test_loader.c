// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the loader's pure parts above the writer and the command
 * line: the end of a verifier's log, room for records, the tasks tree,
 * cgroup paths and the iterator table. (Versions and numbers, cli.c's,
 * are in test_args.c.)
 */
#define _GNU_SOURCE	/* strverscmp */
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
#include "harness.h"

/* What o holds, as a NUL-terminated string (the buffer is not one). */
static const char *held(struct kit_out *o)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%.*s", (int)o->len, o->p ? o->p : "");
	return buf;
}

TEST_F(unit, log_tail)
{
	char log[4096], *p = log;
	int i;

	snprintf(log, sizeof(log), "one\ntwo\n\n\n");
	EXPECT_STR(kit_log_tail(log), "one\ntwo", "a short log whole, its trailing newlines cut");
	log[0] = '\0';
	EXPECT_STR(kit_log_tail(log), "", "an empty log");
	snprintf(log, sizeof(log), "\n\n");
	EXPECT_STR(kit_log_tail(log), "", "a log of newlines only");
	for (i = 1; i <= 20; i++)
		p += sprintf(p, "line %d\n", i);
	EXPECT_STR(kit_log_tail(log),
		   "line 9\nline 10\nline 11\nline 12\nline 13\nline 14\nline 15\nline 16\n"
		   "line 17\nline 18\nline 19\nline 20", "a long log: its last 12 lines");
	snprintf(log, sizeof(log), "no newline at all");
	EXPECT_STR(kit_log_tail(log), "no newline at all", "one line without a newline");
}

TEST_F(unit, room)
{
	EXPECT_EQ(64, kit_room_for(0)) TH_LOG("room for none: 64 spare");
	EXPECT_EQ(800 + 100 + 64, kit_room_for(800)) TH_LOG("room for 800: an eighth and 64 more");
	EXPECT_EQ(UINT32_MAX / 2, kit_room_for(UINT64_MAX)) TH_LOG("room is capped (a map's max_entries)");
	EXPECT_EQ(UINT32_MAX / 2, kit_room_for(UINT32_MAX)) TH_LOG("room for 2^32 - 1 is capped too");
}

static struct kit_task_rec task(int32_t tgid, int32_t ppid, const char *comm)
{
	struct kit_task_rec r = { .pid = tgid, .tgid = tgid, .ppid = ppid };

	memcpy(r.comm, comm, strnlen(comm, sizeof(r.comm)));	/* comm need not end in NUL */
	return r;
}

/* The tree of v as print_tree writes it, which must return 0. */
#define EXPECT_TREE(v, n, want, ...) do {						\
	static struct kit_out __o;							\
											\
	kit_out_reset(&__o);								\
	EXPECT_EQ(0, kit_tasks_print_tree(&__o, v, n)) TH_LOG("print_tree of %zu tasks", (size_t)(n)); \
	EXPECT_STR(held(&__o), want, __VA_ARGS__);					\
	kit_out_free(&__o);								\
} while (0)

TEST_F(unit, tree)
{
	struct kit_task_rec v[8] = {};
	size_t n = 0;

	EXPECT_TREE(v, 0, "", "no tasks: no tree");

	v[n++] = task(1, 0, "init");
	v[n++] = task(2, 0, "kthreadd");
	v[n++] = task(10, 1, "sshd");
	v[n++] = task(11, 10, "bash");
	v[n++] = task(12, 1, "cron");
	v[n++] = task(13, 2, "kworker/0:1");
	/* a task whose parent was not walked is a root of its own */
	v[n++] = task(40, 39, "orphan");
	EXPECT_TREE(v, n,
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
	EXPECT_TREE(v, n, "swapper/0(0)\n|-init(1)\n| `-sshd(10)\n`-kthreadd(2)\n",
		    "pid 0 is a root, with the ppid 0 tasks under it");

	v[0] = task(1, 0, "sixteen-chars-xy");
	EXPECT_TREE(v, 1, "sixteen-chars-xy(1)\n", "a comm of 16 bytes, without its NUL");

	n = 0;
	v[n++] = task(5, 5, "self-parent");
	v[n++] = task(7, 5, "child");
	EXPECT_TREE(v, n, "self-parent(5)\n`-child(7)\n",
		    "a task that is its own parent is a root, not a loop");

	n = 0;
	v[n++] = task(1, 0, "a\033b");
	EXPECT_TREE(v, n, "a?b(1)\n", "a comm's control bytes are escaped as elsewhere");
}

static const char *child_path(const char *parent, const char *name)
{
	static char out[256];
	size_t len = kit_cg_child_path(out, parent, strlen(parent), name, strlen(name));

	out[len] = '\0';
	return out;
}

TEST_F(unit, cg_path)
{
	char buf[64];
	size_t len;

	EXPECT_STR(child_path("/", "system.slice"), "/system.slice", "under the root: one '/'");
	EXPECT_STR(child_path("/system.slice", "ssh.service"), "/system.slice/ssh.service",
		   "under another: parent '/' name");
	EXPECT_STR(child_path("/a/b", ""), "/a/b/", "an empty name (not expected) adds only the '/'");

	/* as cg_path() does it: the parent's path earlier in the same buffer */
	memcpy(buf, "/a", 2);
	len = 2 + kit_cg_child_path(buf + 2, buf, 2, "bc", 2);
	buf[len] = '\0';
	EXPECT_STR(buf, "/a/a/bc", "the parent read from the buffer it is appended to");
}

TEST_F(unit, iters)
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
	EXPECT_EQ(4, with_cmd) TH_LOG("four iterators with a command (num, seq, tasks, cgroups)");
	EXPECT_TRUE(pins_ok) TH_LOG("every program's pin directory is its command's name");
	EXPECT_TRUE(loads_ok) TH_LOG("every command's iterator has a program and a demo");
	EXPECT_TRUE(versions_ok) TH_LOG("every iterator names a mainline kernel, 6.4 or later");
	EXPECT_STR(kit_iters_oldest_kernel(), "6.4", "the oldest kernel of the table is 6.4");
	for (i = 0; kit_iters[i] && kit_iter_has_cmd(kit_iters[i]); i++)
		;
	for (; kit_iters[i]; i++)
		if (kit_iter_has_cmd(kit_iters[i]))
			break;
	EXPECT_NULL(kit_iters[i]) TH_LOG("iterators without a command come last");
}

TEST_HARNESS_MAIN
