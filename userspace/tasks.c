// SPDX-License-Identifier: GPL-2.0
/*
 * iterkit tasks [--pid PID] [--threads] [--tree] [--json]: processes or
 * threads as one kit_task walk in the kernel sees them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "iterkit.h"
#include "shared.h"
#include "kit_task_record.h"
#include "kit_task.skel.h"

/* Mirrors KIT_TASK_* of iterkit.bpf.h. */
enum { WALK_ALL_PROCS = 0, WALK_ALL_THREADS = 1, WALK_PROC_THREADS = 2 };

#define PF_KTHREAD_BIT 0x00200000	/* PF_KTHREAD in include/linux/sched.h */

/* Ring buffer sizes to try: start small, grow when the walk did not fit. */
#define RB_FIRST (4u << 20)
#define RB_LAST (256u << 20)

struct task_list {
	struct kit_task_rec *v;
	size_t n, cap;
	int ret;		/* new()'s result */
	unsigned long long count;
};

static int collect(void *ctx, void *data, size_t size)
{
	struct task_list *l = ctx;

	if (size < sizeof(struct kit_task_rec))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		void *v = realloc(l->v, cap * sizeof(*l->v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	memcpy(&l->v[l->n++], data, sizeof(struct kit_task_rec));
	return 0;
}

/* One walk in the kernel; returns 0, or 1 after printing why not. */
static int tasks_walk(int pid, unsigned int flags, struct task_list *l)
{
	unsigned int rb_size;

	for (rb_size = RB_FIRST; ; rb_size *= 4) {
		struct ring_buffer *rb = NULL;
		struct kit_task_bpf *skel;
		int err, retval;
		bool fits;

		l->n = 0;
		skel = kit_task_bpf__open();
		if (!skel)
			return kit_load_error("kit_task", -errno);
		bpf_map__set_max_entries(skel->maps.tasks, rb_size);
		err = kit_task_bpf__load(skel);
		if (err) {
			kit_task_bpf__destroy(skel);
			return kit_load_error("kit_task", err);
		}
		skel->bss->pid = pid;
		skel->bss->flags = flags;
		err = kit_run_syscall_prog(bpf_program__fd(skel->progs.kit_task_walk), &retval);
		if (!err && retval == KIT_ERR_NO_KFUNC) {
			kit_task_bpf__destroy(skel);
			return kit_error("the kernel has no bpf_iter_kit_task kfuncs (iterkit module not loaded, or a kernel older than 6.7)");
		}
		if (!err) {
			rb = ring_buffer__new(bpf_map__fd(skel->maps.tasks), collect, l, NULL);
			err = rb ? ring_buffer__consume(rb) : -errno;
			ring_buffer__free(rb);
		}
		if (err < 0) {
			kit_task_bpf__destroy(skel);
			return kit_error("running the kit_task walk failed: %s", strerror(-err));
		}
		l->ret = skel->bss->ret;
		l->count = skel->bss->count;
		fits = !skel->bss->dropped;
		kit_task_bpf__destroy(skel);
		if (fits)
			return 0;
		if (rb_size >= RB_LAST)
			return kit_error("%llu tasks do not fit in a %u MiB ring buffer",
					 l->count, rb_size >> 20);
	}
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

static void comm_of(const struct kit_task_rec *r, char *out)
{
	memcpy(out, r->comm, sizeof(r->comm));
	out[sizeof(r->comm)] = '\0';
}

static void print_json(const struct task_list *l)
{
	size_t i;

	printf("{\"tasks\":[\n");
	for (i = 0; i < l->n; i++) {
		const struct kit_task_rec *r = &l->v[i];
		char comm[sizeof(r->comm) + 1];

		comm_of(r, comm);
		printf("{\"pid\":%d,\"tid\":%d,\"ppid\":%d,\"uid\":%u,\"state\":\"%c\",\"threads\":%d,\"kthread\":%s,\"comm\":",
		       r->tgid, r->pid, r->ppid, r->uid, state_letter(r), r->nr_threads,
		       r->flags & PF_KTHREAD_BIT ? "true" : "false");
		kit_json_str(stdout, comm);
		printf("}%s\n", i + 1 < l->n ? "," : "");
	}
	printf("],\"count\":%zu}\n", l->n);
}

static void print_table(const struct task_list *l)
{
	size_t i;

	printf("%7s %7s %7s %6s S %4s COMM\n", "PID", "TID", "PPID", "UID", "THR");
	for (i = 0; i < l->n; i++) {
		const struct kit_task_rec *r = &l->v[i];
		char comm[sizeof(r->comm) + 1];

		comm_of(r, comm);
		printf("%7d %7d %7d %6u %c %4d %s%s%s\n", r->tgid, r->pid, r->ppid, r->uid,
		       state_letter(r), r->nr_threads, r->flags & PF_KTHREAD_BIT ? "[" : "",
		       comm, r->flags & PF_KTHREAD_BIT ? "]" : "");
	}
}

/* pstree-like: each process under its parent, children in walk order. */
static void print_subtree(const struct task_list *l, size_t at, char *prefix, size_t plen,
			  bool last, int depth)
{
	const struct kit_task_rec *r = &l->v[at];
	char comm[sizeof(r->comm) + 1];
	size_t i, kids = 0, seen = 0;

	comm_of(r, comm);
	if (depth)
		printf("%.*s%s", (int)plen, prefix, last ? "`-" : "|-");
	printf("%s(%d)\n", comm, r->tgid);
	for (i = 0; i < l->n; i++)
		if (l->v[i].ppid == r->tgid && l->v[i].tgid != r->tgid)
			kids++;
	if (!kids || depth > 512 || plen + 2 >= 2048)
		return;
	if (depth) {
		memcpy(prefix + plen, last ? "  " : "| ", 2);
		plen += 2;
	}
	for (i = 0; i < l->n; i++) {
		if (l->v[i].ppid != r->tgid || l->v[i].tgid == r->tgid)
			continue;
		seen++;
		print_subtree(l, i, prefix, plen, seen == kids, depth + 1);
	}
}

static void print_tree(const struct task_list *l)
{
	char prefix[2048];
	size_t i, j;

	/* Roots: pid 0, and anything whose parent was not in the walk. */
	for (i = 0; i < l->n; i++) {
		bool has_parent = false;

		for (j = 0; j < l->n && l->v[i].tgid; j++)
			if (l->v[j].tgid == l->v[i].ppid && j != i)
				has_parent = true;
		if (!has_parent)
			print_subtree(l, i, prefix, 0, true, 0);
	}
}

static int tasks_run(int argc, char **argv)
{
	bool threads = false, tree = false;
	struct task_list l = {};
	long long pid = 0;
	bool have_pid = false;
	int i, n, rc = 0;
	unsigned int flags;

	n = kit_cmd_opts(&kit_cmd_tasks, argc, argv);
	if (n < 0)
		return 0;
	for (i = 1; i < n; i++) {
		if (!strcmp(argv[i], "--threads")) {
			threads = true;
		} else if (!strcmp(argv[i], "--tree")) {
			tree = true;
		} else if (!strcmp(argv[i], "--pid")) {
			if (i + 1 >= n)
				return kit_usage_error("--pid needs a process id");
			if (!kit_parse_int(argv[++i], 1, 0x7fffffff, &pid))
				return kit_usage_error("--pid needs a process id > 0, got '%s'", argv[i]);
			have_pid = true;
		} else {
			return kit_usage_error("tasks: unknown argument '%s' (see iterkit tasks --help)",
					       argv[i]);
		}
	}
	if (tree && (threads || have_pid))
		return kit_usage_error("--tree shows processes; it does not combine with --threads or --pid");
	if (tree && kit_json)
		return kit_usage_error("--tree is a text view; --json already gives each task's ppid");
	flags = have_pid ? WALK_PROC_THREADS : threads ? WALK_ALL_THREADS : WALK_ALL_PROCS;

	if (kit_require_module() || tasks_walk(pid, flags, &l))
		return 1;
	if (l.ret == -ESRCH)
		rc = kit_error("no process with pid %lld", pid);
	else if (l.ret)
		rc = kit_error("bpf_iter_kit_task_new() failed: %s", strerror(-l.ret));
	else if (kit_json)
		print_json(&l);
	else if (tree)
		print_tree(&l);
	else
		print_table(&l);
	free(l.v);
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

static int tasks_demo(void)
{
	struct task_list l = {};
	const struct kit_task_rec *self = NULL;
	char comm[32], kcomm[17] = "";
	bool pass;
	size_t i;

	if (tasks_walk(0, WALK_ALL_PROCS, &l))
		return 1;
	for (i = 0; i < l.n; i++)
		if (l.v[i].tgid == getpid())
			self = &l.v[i];
	proc_self_comm(comm, sizeof(comm));
	if (self)
		comm_of(self, kcomm);
	pass = !l.ret && l.n > 2 && l.v[0].tgid == 0 && self && self->ppid == getppid() &&
	       !strcmp(kcomm, comm);
	kit_demo_verdict("kit_task", pass,
			 "walked %zu processes from pid %d; found itself as pid %d ppid %d comm '%s' (getpid %d, getppid %d, /proc/self/comm '%s')",
			 l.n, l.n ? l.v[0].tgid : -1, self ? self->tgid : -1, self ? self->ppid : -1,
			 kcomm, getpid(), getppid(), comm);
	free(l.v);
	return pass ? 0 : 1;
}

const struct kit_cmd kit_cmd_tasks = {
	.name = "tasks",
	.args = "[--pid PID] [--threads] [--tree]",
	.help = "list processes (or threads) from one kit_task walk in the kernel",
	.run = tasks_run,
	.demo = tasks_demo,
};
