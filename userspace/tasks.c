// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit tasks: processes or threads as one kit_task walk in the kernel sees
 * them, with the ids of the caller's pid namespace (--host: the initial one's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "prog.h"
#include "iter.h"
#include "tasks.h"
#include "iterkit.bpf.h"
#include "kit_task_record.h"
#include "task_state.h"
#include KIT_SKEL_H(kit_task)

#define PF_KTHREAD_BIT 0x00200000	/* PF_KTHREAD in include/linux/sched.h */
#define TREE_MAX_DEPTH 512

struct tasks_in {
	int pid;
	unsigned int flags;
	unsigned int host;
	bool tree;
};

static uint64_t tasks_produced(const void *bss, int i)
{
	return ((const struct kit_task_bpf__bss *)bss)->count;
}

/* Threads in the system now: the fourth field of /proc/loadavg ("1/123"). */
static uint32_t tasks_estimate(void)
{
	unsigned int running, total;

	if (kit_scan_file("/proc/loadavg", "%*s %*s %*s %u/%u", &running, &total) != 2)
		total = 0;
	return total ? total + 1 /* the idle task */ : 4096;
}

static void tasks_set_inputs(void *bss, const void *in)
{
	struct kit_task_bpf__bss *b = bss;
	const struct tasks_in *i = in;

	b->pid = i->pid;
	b->flags = i->flags;
	b->host = i->host;
}

static size_t comm_len(const struct kit_task_rec *r)
{
	return strnlen(r->comm, sizeof(r->comm));
}

/* One task per line. */
static void print_json(struct kit_out *o, const struct kit_task_rec *v, size_t n)
{
	struct kit_json j;
	size_t i;

	kit_out_hint(o, n * 128);
	kit_json_init(&j, o);
	kit_json_object(&j);
	kit_json_key(&j, "tasks");
	kit_json_array(&j);
	for (i = 0; i < n; i++) {
		const struct kit_task_rec *r = &v[i];
		char state = kit_task_state(r->state, r->exit_state);

		kit_json_break(&j);
		kit_json_object(&j);
		kit_json_kint(&j, "pid", r->tgid);
		kit_json_kint(&j, "tid", r->pid);
		kit_json_kint(&j, "ppid", r->ppid);
		kit_json_kuint(&j, "uid", r->uid);
		kit_json_kmem(&j, "state", &state, 1);
		kit_json_kint(&j, "threads", r->nr_threads);
		kit_json_kbool(&j, "kthread", r->flags & PF_KTHREAD_BIT);
		kit_json_kstrn(&j, "comm", r->comm, sizeof(r->comm));
		kit_json_object_end(&j);
	}
	kit_json_break(&j);
	kit_json_array_end(&j);
	kit_json_kuint(&j, "count", n);
	kit_json_object_end(&j);
	kit_json_end(&j);
}

static void print_table(struct kit_out *o, const struct kit_task_rec *v, size_t n)
{
	size_t i;

	kit_out_hint(o, n * 64);
	kit_out_str(o, "    PID     TID    PPID    UID S  THR COMM\n");
	for (i = 0; i < n; i++) {
		const struct kit_task_rec *r = &v[i];
		bool kthread = r->flags & PF_KTHREAD_BIT;

		kit_out_i64(o, r->tgid, 7);
		kit_out_i64(o, r->pid, 8);
		kit_out_i64(o, r->ppid, 8);
		kit_out_i64(o, r->uid, 7);
		kit_out_char(o, ' ');
		kit_out_char(o, kit_task_state(r->state, r->exit_state));
		kit_out_i64(o, r->nr_threads, 5);
		kit_out_char(o, ' ');
		if (kthread)
			kit_out_char(o, '[');
		kit_out_text(o, r->comm, comm_len(r));
		if (kthread)
			kit_out_char(o, ']');
		kit_out_char(o, '\n');
	}
}

/* The tree (tasks.h) in O(n): a hash from tgid to record, then child lists in walk order. */
struct tree {
	const struct kit_task_rec *v;
	int32_t *first, *next, *last;	/* child lists, -1 terminated */
	char prefix[2 * TREE_MAX_DEPTH + 2];
};

/* The slot of tgid in the hash: where it is, or the free one where it would go. */
static uint32_t tree_slot(const int32_t *slot, uint32_t mask, const struct kit_task_rec *v,
			  int32_t tgid)
{
	uint32_t h = ((uint32_t)tgid * 2654435761u) & mask;

	while (slot[h] >= 0 && v[slot[h]].tgid != tgid)
		h = (h + 1) & mask;
	return h;
}

static void tree_print(struct kit_out *o, struct tree *t, int32_t at, size_t plen, bool last,
		       int depth)
{
	const struct kit_task_rec *r = &t->v[at];
	int32_t c;

	if (depth) {
		kit_out_mem(o, t->prefix, plen);
		kit_out_str(o, last ? "`-" : "|-");
	}
	kit_out_text(o, r->comm, comm_len(r));
	kit_out_char(o, '(');
	kit_out_i64(o, r->tgid, 0);
	kit_out_str(o, ")\n");
	if (t->first[at] < 0 || depth >= TREE_MAX_DEPTH)
		return;
	if (depth) {
		memcpy(t->prefix + plen, last ? "  " : "| ", 2);
		plen += 2;
	}
	for (c = t->first[at]; c >= 0; c = t->next[c])
		tree_print(o, t, c, plen, t->next[c] < 0, depth + 1);
}

int kit_tasks_print_tree(struct kit_out *o, const struct kit_task_rec *v, size_t n)
{
	struct tree t = { .v = v };
	uint32_t size = 16, mask;
	int32_t *slot, *parent;
	size_t i;

	while (size < 2 * n)
		size *= 2;
	mask = size - 1;
	/* One block, all -1: the tgid hash, then each task's parent and child lists. */
	slot = malloc((size + 4 * n) * sizeof(*slot));
	if (!slot)
		return kit_error("out of memory for the tree of %zu tasks", n);
	memset(slot, 0xff, (size + 4 * n) * sizeof(*slot));
	parent = slot + size;
	t.first = parent + n;
	t.next = t.first + n;
	t.last = t.next + n;
	for (i = 0; i < n; i++) {
		uint32_t h = tree_slot(slot, mask, v, v[i].tgid);

		if (slot[h] < 0)
			slot[h] = i;
	}
	/* Each task under its parent; pid 0, and tasks whose parent was not walked, are roots. */
	for (i = 0; i < n; i++) {
		int32_t p = slot[tree_slot(slot, mask, v, v[i].ppid)];

		if (!v[i].tgid || p < 0 || (size_t)p == i)
			continue;
		parent[i] = p;
		if (t.last[p] < 0)
			t.first[p] = i;
		else
			t.next[t.last[p]] = i;
		t.last[p] = i;
	}
	for (i = 0; i < n; i++)
		if (parent[i] < 0)
			tree_print(o, &t, i, 0, true, 0);
	free(slot);
	return 0;
}

enum { OPT_PID = 0x200, OPT_THREADS, OPT_TREE };

static const struct option tasks_opts[] = {
	{ "pid", required_argument, NULL, OPT_PID },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "tree", no_argument, NULL, OPT_TREE },
	KIT_WALK_OPTS,
	{ NULL, 0, NULL, 0 },
};

static int tasks_show(struct kit_prog *p, const void *in, void *ctx)
{
	const struct kit_task_bpf__bss *b = p->out;
	const struct kit_task_rec *v = p->rec[0].mem;
	const struct tasks_in *i = in;

	if (b->ret == -ESRCH)
		return kit_error("no process with pid %d%s", i->pid,
				 b->ns_level ? " in this pid namespace" : "");
	if (b->ret)
		return kit_error("bpf_iter_kit_task_new() failed: %s", strerror(-b->ret));
	if (kit_json)
		print_json(&kit_stdout, v, b->count);
	else if (i->tree)
		return kit_tasks_print_tree(&kit_stdout, v, b->count);
	else
		print_table(&kit_stdout, v, b->count);
	return 0;
}

static int tasks_run(int argc, char **argv)
{
	struct tasks_in in = {};
	struct kit_walk_cmd w = {
		.desc = &kit_iter_tasks.prog, .set_inputs = tasks_set_inputs, .in = &in,
		.show = tasks_show, .repeat = 1,
	};
	bool threads = false, host = false;
	long long pid = 0;
	struct kit_args a;
	int c;

	kit_args_init(&a, &kit_iter_tasks.cmd, argc, argv);
	while ((c = kit_walk_args_next(&a, &w, &host)) >= 0) {
		switch (c) {
		case OPT_THREADS:
			threads = true;
			break;
		case OPT_TREE:
			in.tree = true;
			break;
		case OPT_PID:
			if (!kit_parse_dec(a.arg, 1, 0x7fffffff, &pid))
				return kit_usage_error("--pid needs a decimal process id > 0, got '%s'", a.arg);
			break;
		}
	}
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos)
		return kit_usage_error("unknown argument '%s' (%s)", a.pos[0], a.see);
	if (in.tree && (threads || pid))
		return kit_usage_error("--tree shows processes; it does not combine with --threads or --pid");
	if (in.tree && kit_json)
		return kit_usage_error("--tree is a text view; --json already gives each task's ppid");
	in.pid = pid;
	in.flags = pid ? KIT_TASK_PROC_THREADS : threads ? KIT_TASK_ALL_THREADS : KIT_TASK_ALL_PROCS;
	in.host = host;
	return kit_walk_run(&w);
}

static void tasks_demo(struct kit_demo *d)
{
	struct tasks_in in = { 0, KIT_TASK_ALL_PROCS, 0, false };
	const struct kit_task_rec *self = NULL, *v;
	const struct kit_task_bpf__bss *b;
	char comm[32] = "", kcomm[17] = "";
	struct kit_prog p;
	size_t i, n;
	bool pass;

	kit_prog_init(&p);
	if (kit_prog_walk(&p, &kit_iter_tasks.prog, tasks_set_inputs, &in)) {
		kit_prog_close(&p);
		d->verdict = KIT_FAIL;
		return;
	}
	b = p.out;
	v = p.rec[0].mem;
	n = b->count;
	for (i = 0; i < n; i++)
		if (v[i].tgid == getpid())
			self = &v[i];
	/* independent of BPF */
	kit_scan_file("/proc/self/comm", "%31[^\n]", comm);
	if (self)
		memcpy(kcomm, self->comm, comm_len(self));
	/* In the initial pid namespace the idle task comes first, as pid 0. */
	pass = !b->ret && n > 2 && self && (b->ns_level || v[0].tgid == 0) &&
	       self->ppid == getppid() && !strcmp(kcomm, comm);
	kit_demo_set(d, pass ? KIT_PASS : KIT_FAIL,
		     "walked %zu processes from pid %d; found itself as pid %d ppid %d comm '%s' (getpid %d, getppid %d, /proc/self/comm '%s')",
		     n, n ? v[0].tgid : -1, self ? self->tgid : -1, self ? self->ppid : -1,
		     kcomm, getpid(), getppid(), comm);
	kit_prog_close(&p);
}

KIT_SKEL_FNS(kit_task, kit_task_walk, &skel->maps.records, NULL)

const struct kit_iter kit_iter_tasks = {
	.prog = {
		.name = "kit_task",
		.mainline = "6.7",
		.pin = "tasks",
		.skel = KIT_SKEL(kit_task, KIT_SKEL_MAP(0, records, struct kit_task_rec)),
		.produced = tasks_produced,
		.estimate = tasks_estimate,
	},
	.feature = "bpf_iter_task_new",
	.cmd = {
		.name = "tasks",
		.args = "[--pid PID] [--threads] [--tree] [--host] [--repeat N] [--interval SECONDS]",
		.help = "list processes (or threads) from one kit_task walk in the kernel",
		.opts = tasks_opts,
		.opts_help = "  --pid PID          the threads of one process (a pid of this pid namespace)\n"
			     "  --threads          every thread, not only processes\n"
			     "  --tree             processes under their parents (text only)\n"
			     "  --host             every task, with the initial pid namespace's ids\n"
			     KIT_WALK_OPTS_HELP,
		.run = tasks_run,
	},
	.demo = tasks_demo,
	.resident_min = 16384,
	.walker = true,
};
