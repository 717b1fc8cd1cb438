// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit tasks [--pid PID] [--threads] [--tree] [--repeat N] [--interval S]:
 * processes or threads as one kit_task walk in the kernel sees them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "iterkit.h"
#include "walk.h"
#include "kit_task_record.h"
#include "kit_task.lskel.h"

/* Mirrors KIT_TASK_* of iterkit.bpf.h. */
enum { WALK_ALL_PROCS = 0, WALK_ALL_THREADS = 1, WALK_PROC_THREADS = 2 };

#define PF_KTHREAD_BIT 0x00200000	/* PF_KTHREAD in include/linux/sched.h */
#define TREE_MAX_DEPTH 512

struct tasks_in {
	int pid;
	unsigned int flags;
};

static int tasks_load(struct kit_prog *p, uint32_t room)
{
	struct kit_task_bpf *s = kit_task_bpf__open();
	int err;

	if (!s)
		return -ENOMEM;
	s->maps.records.max_entries = room;
	err = KIT_LSKEL_LOAD(kit_task, s);
	if (err)
		return err;
	p->skel = s;
	p->prog_fd = s->progs.kit_task_walk.prog_fd;
	p->bss_fd = s->maps.bss.map_fd;
	p->bss = s->bss;
	p->rec[0].fd = s->maps.records.map_fd;
	return 0;
}

static void tasks_destroy(void *skel)
{
	kit_task_bpf__destroy(skel);
}

static uint64_t tasks_produced(const void *bss)
{
	return ((const struct kit_task_bpf__bss *)bss)->count;
}

/* Threads in the system now: the fourth field of /proc/loadavg ("1/123"). */
static uint32_t tasks_estimate(void)
{
	unsigned int running, total = 0;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%*s %*s %*s %u/%u", &running, &total) != 2)
			total = 0;
		fclose(f);
	}
	return total ? total + 1 /* the idle task */ : 4096;
}

const struct kit_prog_type kit_prog_tasks = {
	.name = "tasks",
	.iter = "kit_task",
	.bss_size = sizeof(struct kit_task_bpf__bss),
	.maps = { "records" },
	.rec_size = { sizeof(struct kit_task_rec) },
	.load = tasks_load,
	.destroy = tasks_destroy,
	.produced = tasks_produced,
	.estimate = tasks_estimate,
};

static void tasks_set_inputs(void *bss, const void *in)
{
	struct kit_task_bpf__bss *b = bss;
	const struct tasks_in *i = in;

	b->pid = i->pid;
	b->flags = i->flags;
}

/* One walk; the records stay mapped in p until the next walk or close. */
static int tasks_walk(struct kit_prog *p, const struct tasks_in *in)
{
	if (!kit_module_has_iter("kit_task"))
		return kit_error("the iterkit module has no kit_task kfuncs (the walkers need a kernel with KF_RCU_PROTECTED, mainline 6.7)");
	if (!p->type && kit_prog_open(p, &kit_prog_tasks, kit_room_for(tasks_estimate())))
		return 1;
	return kit_prog_walk(p, tasks_set_inputs, in);
}

static const struct kit_task_rec *tasks_recs(const struct kit_prog *p)
{
	return p->rec[0].mem;
}

static size_t tasks_count(const struct kit_prog *p)
{
	return tasks_produced(p->bss);
}

/* The one-letter state of /proc/PID/stat, from __state and exit_state. */
static char state_letter(const struct kit_task_rec *r)
{
	static const char letters[] = "RSDTtXZP";
	unsigned int s = (r->state & 0x7f) | r->exit_state;
	int bit = 0;

	if (r->state == (0x0002 | 0x0400))	/* TASK_IDLE: uninterruptible, no load */
		return 'I';
	while (s && bit < 7) {
		s >>= 1;
		bit++;
	}
	return letters[bit];
}

static size_t comm_len(const struct kit_task_rec *r)
{
	return strnlen(r->comm, sizeof(r->comm));
}

/*
 * One task per line. The records are formatted in place, in one piece each
 * (this loop is most of a walk's cost with the program loaded); a comm that
 * needs escaping goes through the JSON writer.
 */
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
		size_t clen = comm_len(r);
		char *p;

		kit_json_break(&j);
		kit_json_item(&j);
		p = kit_out_reserve(o, 192);
		if (!p)
			break;
		p = kit_fmt_i64(KIT_PUT(p, "{\"pid\":"), r->tgid);
		p = kit_fmt_i64(KIT_PUT(p, ",\"tid\":"), r->pid);
		p = kit_fmt_i64(KIT_PUT(p, ",\"ppid\":"), r->ppid);
		p = kit_fmt_u64(KIT_PUT(p, ",\"uid\":"), r->uid);
		p = KIT_PUT(p, ",\"state\":\"");
		*p++ = state_letter(r);
		p = kit_fmt_i64(KIT_PUT(p, "\",\"threads\":"), r->nr_threads);
		p = r->flags & PF_KTHREAD_BIT ? KIT_PUT(p, ",\"kthread\":true") : KIT_PUT(p, ",\"kthread\":false");
		if (kit_json_is_plain(r->comm, clen)) {
			p = KIT_PUT(p, ",\"comm\":\"");
			p = kit_put(p, r->comm, clen);
			p = KIT_PUT(p, "\"}");
			kit_out_commit(o, p);
			continue;
		}
		kit_out_commit(o, p);
		kit_json_inside_object(&j);	/* the writer adds the last member */
		kit_json_key(&j, "comm");
		kit_json_strn(&j, r->comm, clen);
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

		kit_out_i64_w(o, r->tgid, 7);
		kit_out_i64_w(o, r->pid, 8);
		kit_out_i64_w(o, r->ppid, 8);
		kit_out_i64_w(o, r->uid, 7);
		kit_out_char(o, ' ');
		kit_out_char(o, state_letter(r));
		kit_out_i64_w(o, r->nr_threads, 5);
		kit_out_char(o, ' ');
		if (kthread)
			kit_out_char(o, '[');
		kit_out_mem(o, r->comm, comm_len(r));
		if (kthread)
			kit_out_char(o, ']');
		kit_out_char(o, '\n');
	}
}

/*
 * pstree-like: each process under its parent, children in walk order.
 * Built in O(n): a hash from tgid to record, then child lists.
 */
struct tree {
	const struct kit_task_rec *v;
	size_t n;
	int32_t *first, *next, *last;	/* child lists, -1 terminated */
	char prefix[2 * TREE_MAX_DEPTH + 2];
};

static uint32_t tree_hash(int32_t tgid, uint32_t mask)
{
	return ((uint32_t)tgid * 2654435761u) & mask;
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
	kit_out_mem(o, r->comm, comm_len(r));
	kit_out_char(o, '(');
	kit_out_i64(o, r->tgid);
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

static int print_tree(struct kit_out *o, const struct kit_task_rec *v, size_t n)
{
	struct tree t = { .v = v, .n = n };
	uint32_t size = 16, mask;
	int32_t *slot;
	uint8_t *has_parent;
	size_t i;

	while (size < 2 * n)
		size *= 2;
	mask = size - 1;
	slot = malloc(size * sizeof(*slot));
	has_parent = calloc(n ? n : 1, 1);
	t.first = malloc((n ? n : 1) * sizeof(int32_t));
	t.next = malloc((n ? n : 1) * sizeof(int32_t));
	t.last = malloc((n ? n : 1) * sizeof(int32_t));
	if (!slot || !has_parent || !t.first || !t.next || !t.last) {
		free(slot);
		free(has_parent);
		free(t.first);
		free(t.next);
		free(t.last);
		return kit_error("out of memory for the tree of %zu tasks", n);
	}
	memset(slot, 0xff, size * sizeof(*slot));
	for (i = 0; i < n; i++) {
		uint32_t h = tree_hash(v[i].tgid, mask);

		while (slot[h] >= 0 && v[slot[h]].tgid != v[i].tgid)
			h = (h + 1) & mask;
		if (slot[h] < 0)
			slot[h] = i;
		t.first[i] = t.next[i] = t.last[i] = -1;
	}
	/* Each task under its parent; pid 0, and tasks whose parent was not walked, are roots. */
	for (i = 0; i < n; i++) {
		uint32_t h = tree_hash(v[i].ppid, mask);
		int32_t p;

		while (slot[h] >= 0 && v[slot[h]].tgid != v[i].ppid)
			h = (h + 1) & mask;
		p = slot[h];
		if (!v[i].tgid || p < 0 || (size_t)p == i)
			continue;
		has_parent[i] = 1;
		if (t.last[p] < 0)
			t.first[p] = i;
		else
			t.next[t.last[p]] = i;
		t.last[p] = i;
	}
	for (i = 0; i < n; i++)
		if (!has_parent[i])
			tree_print(o, &t, i, 0, true, 0);
	free(slot);
	free(has_parent);
	free(t.first);
	free(t.next);
	free(t.last);
	return 0;
}

enum { OPT_PID = 0x200, OPT_THREADS, OPT_TREE, OPT_REPEAT, OPT_INTERVAL };

static const struct option tasks_opts[] = {
	{ "pid", required_argument, NULL, OPT_PID },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "tree", no_argument, NULL, OPT_TREE },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ NULL, 0, NULL, 0 },
};

static int tasks_run(int argc, char **argv)
{
	bool threads = false, tree = false, have_pid = false;
	long long pid = 0, repeat = 1, k;
	struct tasks_in in = {};
	struct kit_prog p = {};
	double interval = 0;
	struct kit_args a;
	int c, rc = 0;

	kit_args_init(&a, &kit_cmd_tasks, argc, argv);
	while ((c = kit_args_next(&a)) >= 0) {
		switch (c) {
		case OPT_THREADS:
			threads = true;
			break;
		case OPT_TREE:
			tree = true;
			break;
		case OPT_PID:
			if (!kit_parse_int(a.arg, 1, 0x7fffffff, &pid))
				return kit_usage_error("--pid needs a process id > 0, got '%s'", a.arg);
			have_pid = true;
			break;
		case OPT_REPEAT:
			if (!kit_parse_int(a.arg, 1, 1000000000, &repeat))
				return kit_usage_error("--repeat needs a count >= 1, got '%s'", a.arg);
			break;
		case OPT_INTERVAL:
			if (!kit_parse_seconds(a.arg, &interval))
				return kit_usage_error("--interval needs seconds (e.g. 1 or 0.5), got '%s'", a.arg);
			break;
		}
	}
	if (c != KIT_ARGS_END)
		return kit_args_exit(c);
	if (a.npos)
		return kit_usage_error("tasks: unknown argument '%s' (see iterkit tasks --help)", a.pos[0]);
	if (tree && (threads || have_pid))
		return kit_usage_error("--tree shows processes; it does not combine with --threads or --pid");
	if (tree && kit_json)
		return kit_usage_error("--tree is a text view; --json already gives each task's ppid");
	in.pid = pid;
	in.flags = have_pid ? WALK_PROC_THREADS : threads ? WALK_ALL_THREADS : WALK_ALL_PROCS;

	if (kit_require_module())
		return 1;
	kit_phase("start");
	for (k = 0; k < repeat && !rc; k++) {
		const struct kit_task_bpf__bss *b;

		/* Each walk's output goes out before the next walk (and the wait). */
		if (k) {
			rc = kit_flush();
			kit_phase("write");
		}
		if (k && interval > 0) {
			kit_sleep(interval);
			kit_phase("sleep");
		}
		if (rc || tasks_walk(&p, &in)) {
			rc = 1;
			break;
		}
		b = p.bss;
		if (b->ret == -ESRCH)
			rc = kit_error("no process with pid %lld", pid);
		else if (b->ret)
			rc = kit_error("bpf_iter_kit_task_new() failed: %s", strerror(-b->ret));
		else if (kit_json)
			print_json(&kit_stdout, tasks_recs(&p), tasks_count(&p));
		else if (tree)
			rc = print_tree(&kit_stdout, tasks_recs(&p), tasks_count(&p));
		else
			print_table(&kit_stdout, tasks_recs(&p), tasks_count(&p));
		if (!rc && !kit_json && k + 1 < repeat)
			kit_out_char(&kit_stdout, '\n');
		kit_phase("format");
	}
	kit_prog_close(&p);
	if (!rc)
		rc = kit_flush();
	kit_phase("write");
	return rc;
}

/* Reads /proc/self/comm (independent of BPF) into out. */
static void proc_self_comm(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/comm", "r");

	out[0] = '\0';
	if (f) {
		if (fgets(out, len, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

static void tasks_demo(struct kit_demo *d)
{
	struct tasks_in in = { 0, WALK_ALL_PROCS };
	const struct kit_task_rec *self = NULL, *v;
	char comm[32], kcomm[17] = "";
	struct kit_prog p = {};
	size_t i, n;
	bool pass;

	if (!kit_module_has_iter("kit_task")) {
		kit_demo_set(d, KIT_SKIP, "not in this module: the walkers need a kernel with KF_RCU_PROTECTED (mainline 6.7)");
		return;
	}
	if (tasks_walk(&p, &in)) {
		kit_prog_close(&p);
		d->verdict = KIT_FAIL;
		return;
	}
	v = tasks_recs(&p);
	n = tasks_count(&p);
	for (i = 0; i < n; i++)
		if (v[i].tgid == getpid())
			self = &v[i];
	proc_self_comm(comm, sizeof(comm));
	if (self)
		memcpy(kcomm, self->comm, comm_len(self));
	pass = !((const struct kit_task_bpf__bss *)p.bss)->ret && n > 2 && v[0].tgid == 0 && self &&
	       self->ppid == getppid() && !strcmp(kcomm, comm);
	kit_demo_set(d, pass ? KIT_PASS : KIT_FAIL,
		     "walked %zu processes from pid %d; found itself as pid %d ppid %d comm '%s' (getpid %d, getppid %d, /proc/self/comm '%s')",
		     n, n ? v[0].tgid : -1, self ? self->tgid : -1, self ? self->ppid : -1,
		     kcomm, getpid(), getppid(), comm);
	kit_prog_close(&p);
}

const struct kit_cmd kit_cmd_tasks = {
	.name = "tasks",
	.args = "[--pid PID] [--threads] [--tree] [--repeat N] [--interval SECONDS]",
	.help = "list processes (or threads) from one kit_task walk in the kernel",
	.opts = tasks_opts,
	.opts_help = "  --pid PID          the threads of one process\n"
		     "  --threads          every thread, not only processes\n"
		     "  --tree             processes under their parents (text only)\n"
		     "  --repeat N         walk N times (the program is loaded once)\n"
		     "  --interval SECONDS wait between the walks of --repeat\n",
	.run = tasks_run,
	.demo = tasks_demo,
};
