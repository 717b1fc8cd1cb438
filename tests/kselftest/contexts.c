// SPDX-License-Identifier: GPL-2.0
/*
 * Every program type the UNSPEC kfunc set reaches, each attached where the
 * kernel runs it in a context of its own (tests/progs/contexts.bpf.c), and
 * a workload that makes them all fire while they walk: reads (the fentry
 * hot path), sleeps (kprobe, sched_switch), forks and exits (tasklist_lock),
 * cgroup creation and migration (cgroup_mutex, css_set_lock, kernfs_rwsem,
 * RCU callbacks), CPU time (perf_event), sysrq-l (NMI), UDP packets on lo
 * (TC egress) and a bpf_timer (softirq). Each walk's result is checked
 * in BPF. One test runs the workload with every program attached and
 * checks the kernel log; then each attach point is a test of its own
 * (point.<name>.in_context): it must have fired, in the context it stands
 * for, with no result against the contract. A point this kernel cannot
 * check is reported as skipped, with the reason: a function its compiler
 * inlined (only where expected_drops[] lists it; anywhere else that
 * fails), no PMU, a preempt count that does not show held spinlocks.
 *
 *   CONTEXT_SECS   how long the workload runs (default 5)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "harness.h"
#include "kmsg.h"
#include "contexts.h"
#include "contexts.skel.h"

#define CGDIR "/sys/fs/cgroup/kit_contexts"
#define NR_CPUS_MAX 8
#define SYSRQ_MAX 20

static const char *const where_name[CTX_NR] = {
	[CTX_FENTRY_HOT] = "fentry/vfs_read (hot path)",
	[CTX_KPROBE] = "kprobe/do_nanosleep",
	[CTX_RAW_TP] = "raw_tp/sys_enter",
	[CTX_SCHED_SWITCH] = "tp/sched_switch (runqueue lock)",
	[CTX_TASKLIST_LOCK] = "fentry/do_notify_parent (tasklist_lock)",
	[CTX_CGROUP_MUTEX] = "tp/cgroup_mkdir (cgroup_mutex)",
	[CTX_CGROUP_ATTACH] = "tp/cgroup_attach_task (cgroup_mutex)",
	[CTX_CSS_SET_LOCK] = "tp/cgroup_notify_populated (css_set_lock)",
	[CTX_KERNFS_RWSEM] = "fentry/kernfs_activate_one (kernfs_rwsem)",
	[CTX_SOFTIRQ] = "fentry/kernfs_free_rcu (softirq)",
	[CTX_PERF_EVENT] = "perf_event cpu-clock (hard IRQ)",
#if defined(__aarch64__)
	/* NMIs only as pseudo-NMIs: see arm64_pseudo_nmis() */
	[CTX_PERF_HW] = "perf_event cycles (PMU interrupt)",
	[CTX_NMI] = "fentry/cpu_in_idle (backtrace IPI)",
	[CTX_NMI_TP] = "tp/irq/irq_handler_entry (IPIs)",
#else
	[CTX_PERF_HW] = "perf_event cycles (NMI)",
	[CTX_NMI] = "fentry/nmi_cpu_backtrace_handler (NMI)",
	[CTX_NMI_TP] = "tp/nmi/nmi_handler (NMI)",
#endif
	[CTX_TC_EGRESS] = "tcx egress on lo (rcu_read_lock_bh)",
	[CTX_TIMER] = "bpf_timer callback (softirq)",
};

#if defined(__aarch64__)
/*
 * arm64 has NMIs only as pseudo-NMIs (GICv3 priority masking), in kernels
 * built with CONFIG_ARM64_PSEUDO_NMI and booted with
 * irqchip.gicv3_pseudo_nmi=1 (tests/vm/run asks for them); the GICv3
 * driver says at boot when it enabled them. Without them sysrq-l's
 * backtrace IPI and the PMU interrupt are hard IRQs. 1 when the kernel
 * log says they are on, 0 when not, -1 when the log cannot be read.
 */
static int arm64_pseudo_nmis(void)
{
	return kmsg_contains("Pseudo-NMIs enabled");
}

/*
 * Whether the kernel counts preempt_disable() (and so held spinlocks) in
 * the preempt count: CONFIG_PREEMPT_COUNT, which Debian's 6.12 arm64
 * kernels (PREEMPT_VOLUNTARY) do not set. From the kernel's config, as
 * Debian installs it (tests/vm/run puts it there too): 1, 0, or -1 when
 * there is none.
 */
static int arm64_preempt_count(void)
{
	char path[128], line[256];
	struct utsname u;
	int on = 0;
	FILE *f;

	uname(&u);
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strcmp(line, "CONFIG_PREEMPT_COUNT=y\n"))
			on = 1;
	fclose(f);
	return on;
}
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int perf_open(__u32 type, __u64 config, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.sample_period = type == PERF_TYPE_SOFTWARE ? 1000000 : 1000000,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		/* The workload only needs the attempt. */
		ssize_t done = write(fd, text, strlen(text));

		(void)done;
		close(fd);
	}
}

/* One UDP datagram to the discard port on lo: out through TC egress. */
static void send_udp(void)
{
	struct sockaddr_in to = {
		.sin_family = AF_INET,
		.sin_port = htons(9),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0) {
		/* Nobody listens; the packet only has to go out. */
		ssize_t sent = sendto(fd, "kit", 3, 0, (struct sockaddr *)&to, sizeof(to));

		(void)sent;
		close(fd);
	}
}

/* One round of everything that makes the programs fire. */
static void workload_round(int round)
{
	char buf[512], path[256];
	pid_t child;
	int fd;
	double t;

	send_udp();
	fd = open("/proc/self/stat", O_RDONLY);
	if (fd >= 0) {
		ssize_t got = read(fd, buf, sizeof(buf));

		(void)got;
		close(fd);
	}
	usleep(100);
	snprintf(path, sizeof(path), CGDIR "/r%d", round % 4);
	mkdir(path, 0755);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	if (child > 0) {
		snprintf(path, sizeof(path), CGDIR "/r%d/cgroup.procs", round % 4);
		snprintf(buf, sizeof(buf), "%d\n", child);
		write_file(path, buf);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	snprintf(path, sizeof(path), CGDIR "/r%d", round % 4);
	rmdir(path);
	/* A little CPU time for the cpu-clock samples. */
	for (t = now(); now() - t < 0.002;)
		;
}

/* 1 when /proc/kallsyms has a text symbol named exactly @name. */
static int in_kallsyms(const char *name)
{
	char line[512], sym[256], type;
	int found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 1;	/* cannot tell: leave it to the load */
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %c %255s", &type, sym) == 2 &&
			(type == 't' || type == 'T') && !strcmp(sym, name);
	fclose(f);
	return found;
}

/*
 * The fentry and kprobe points a kernel is known not to have: its compiler
 * inlined or renamed the function. Keyed by release (an fnmatch() pattern
 * of uname -r, which names the architecture too). A point left out of a
 * kernel not listed here fails its test, so that a compiler that inlines
 * one more function does not quietly take a context away; add a line once
 * the kernel has been looked at.
 */
static const struct expected_drop {
	const char *release;
	const char *function;
	const char *why;
} expected_drops[] = {
	{ "6.12.117+deb13-cloud-amd64", "kernfs_activate_one", "gcc-14 inlines it" },
	{ "7.3.4+deb13-cloud-arm64", "kernfs_activate_one", "in its BTF but inlined: no symbol" },
};

/*
 * What the workload test leaves for the per-point tests. The harness runs
 * every test in a process of its own, so this is memory shared by them
 * all, mapped before the first fork.
 */
struct results {
	int ran;			/* the workload ran to its end */
	int hw, hw_errno;		/* hardware perf events exist; if not, why */
	int counted;			/* the preempt count shows held spinlocks */
	int nmis;			/* arm64: pseudo-NMIs are on */
	int timer_err;
	int rt;				/* uname -v says PREEMPT_RT */
	char timer_refused[128];	/* the verifier's refusal of bpf_timer, or "" */
	char dropped[CTX_NR][64];	/* the section of a point left out, or "" */
	int drop_rule[CTX_NR];		/* its line of expected_drops[], or -1 */
	struct ctx_stats stats[CTX_NR];
};
static struct results *res;

static void __attribute__((constructor)) results_map(void)
{
	res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		perror("mmap");
		exit(KSFT_FAIL);
	}
	/* Tests end with _exit(): what they print must be out by then. */
	setvbuf(stdout, NULL, _IOLBF, 0);
}

/* The program of each point attached by itself (not perf_event, TC or the timer). */
static void point_programs(struct contexts_bpf *skel, struct bpf_program **progs)
{
	memset(progs, 0, CTX_NR * sizeof(*progs));
	progs[CTX_FENTRY_HOT] = skel->progs.hot_vfs_read;
	progs[CTX_KPROBE] = skel->progs.kprobe_nanosleep;
	progs[CTX_RAW_TP] = skel->progs.raw_tp_sys_enter;
	progs[CTX_SCHED_SWITCH] = skel->progs.tp_sched_switch;
	progs[CTX_TASKLIST_LOCK] = skel->progs.tasklist_locked;
	progs[CTX_CGROUP_MUTEX] = skel->progs.tp_cgroup_mkdir;
	progs[CTX_CGROUP_ATTACH] = skel->progs.tp_cgroup_attach;
	progs[CTX_CSS_SET_LOCK] = skel->progs.tp_cgroup_populated;
	progs[CTX_KERNFS_RWSEM] = skel->progs.kernfs_rwsem_held;
	progs[CTX_SOFTIRQ] = skel->progs.rcu_callback;
	progs[CTX_NMI] = skel->progs.nmi_backtrace;
	progs[CTX_NMI_TP] = skel->progs.tp_nmi_handler;
}

/*
 * Leaves out the fentry and kprobe programs whose function this kernel does
 * not have as such (inlined or renamed by its compiler: 6.12.117's gcc-14
 * inlines kernfs_activate_one(), for one; arm64 7.3.4's keeps it in BTF but
 * has no symbol of that name), and notes each in res with its line of
 * expected_drops[], if there is one.
 */
static void drop_missing_targets(struct bpf_program **progs)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct utsname u;
	unsigned int r;
	int i;

	uname(&u);
	for (i = 0; i < CTX_NR; i++) {
		const char *sec, *fn;

		res->dropped[i][0] = '\0';
		res->drop_rule[i] = -1;
		if (!vmlinux || !progs[i])
			continue;
		sec = bpf_program__section_name(progs[i]);
		fn = strchr(sec, '/');
		if (!fn || (strncmp(sec, "fentry/", 7) && strncmp(sec, "kprobe/", 7)))
			continue;
		fn++;
		if (btf__find_by_name_kind(vmlinux, fn, BTF_KIND_FUNC) >= 0 && in_kallsyms(fn))
			continue;
		bpf_program__set_autoload(progs[i], false);
		snprintf(res->dropped[i], sizeof(res->dropped[i]), "%s", sec);
		for (r = 0; r < ARRAY_SIZE(expected_drops); r++)
			if (!strcmp(expected_drops[r].function, fn) &&
			    !fnmatch(expected_drops[r].release, u.release, 0))
				res->drop_rule[i] = r;
		printf("# %s: no such function in %s, attach point left out (%s)\n", sec, u.release,
		       res->drop_rule[i] < 0 ? "not expected here" : expected_drops[res->drop_rule[i]].why);
	}
	btf__free(vmlinux);
}

FIXTURE(contexts) {
	struct contexts_bpf *skel;
	struct bpf_program *progs[CTX_NR];
	struct bpf_link *links[CTX_NR + 2 * NR_CPUS_MAX + 1];
	int nr_links;
	char marker[64];
};

#define TIMER_REFUSED_RT "bpf_timer cannot be used for PREEMPT_RT."

/*
 * Opens and loads contexts.bpf.o, with or without the bpf_timer TC arms.
 * A load that fails only because the verifier refuses bpf_timer on this
 * PREEMPT_RT kernel notes the refusal in res (the caller loads again
 * without timers) and is not an error.
 */
static int open_and_load(struct __test_metadata *_metadata, FIXTURE_DATA(contexts) *self,
			 bool timers)
{
	static char log[1 << 16];
	struct utsname u;
	int err;

	uname(&u);
	res->rt = !!strstr(u.version, "PREEMPT_RT");
	self->skel = contexts_bpf__open();
	if (!self->skel) {
		TH_LOG("opening contexts.bpf.o failed");
		return -1;
	}
	self->skel->rodata->timers_allowed = timers;
	point_programs(self->skel, self->progs);
	drop_missing_targets(self->progs);
	log[0] = '\0';
	bpf_program__set_log_buf(self->skel->progs.tc_egress, log, sizeof(log));
	err = contexts_bpf__load(self->skel);
	if (!err)
		return 0;
	if (timers && err == -EOPNOTSUPP && res->rt && strstr(log, TIMER_REFUSED_RT)) {
		snprintf(res->timer_refused, sizeof(res->timer_refused), "%s", TIMER_REFUSED_RT);
		printf("# %s: the verifier says \"%s\": the bpf_timer point is left out\n",
		       u.release, TIMER_REFUSED_RT);
		return 0;
	}
	TH_LOG("loading contexts.bpf.o failed: %s", strerror(-err));
	return -1;
}

FIXTURE_SETUP(contexts)
{
	snprintf(self->marker, sizeof(self->marker), "iterkit contexts start %d", getpid());
	ASSERT_EQ(0, kmsg_mark(self->marker));
	rmdir(CGDIR);
	ASSERT_EQ(0, mkdir(CGDIR, 0755));
	ASSERT_EQ(0, open_and_load(_metadata, self, true));
	if (res->timer_refused[0]) {
		/* That kernel's verifier: TC walks without arming the timer. */
		contexts_bpf__destroy(self->skel);
		ASSERT_EQ(0, open_and_load(_metadata, self, false));
	}
}

FIXTURE_TEARDOWN(contexts)
{
	int i;

	if (self->skel)
		self->skel->bss->enabled = 0;
	for (i = 0; i < self->nr_links; i++)
		bpf_link__destroy(self->links[i]);
	contexts_bpf__destroy(self->skel);
	for (i = 0; i < 4; i++) {
		char path[64];

		snprintf(path, sizeof(path), CGDIR "/r%d", i);
		rmdir(path);
	}
	rmdir(CGDIR);
}

/*
 * Every program attached, the workload run, the results kept for the
 * point tests below; and no kernel report meanwhile.
 */
TEST_F_TIMEOUT(contexts, every_program_type, 1200)
{
	const char *env = getenv("CONTEXT_SECS");
	double secs = env ? atof(env) : 5, end;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, i, round, sysrqs = 0, hw = 1, hw_errno = 0, points = 0;
#if defined(__aarch64__)
	int nmis = arm64_pseudo_nmis(), counted = arm64_preempt_count();

	ASSERT_LE(0, nmis) TH_LOG("cannot read the kernel log");
	printf("# arm64: %s\n", nmis ? "pseudo-NMIs enabled: the backtrace IPI and the PMU interrupt are NMIs" :
	       "no pseudo-NMIs in this kernel (CONFIG_ARM64_PSEUDO_NMI, irqchip.gicv3_pseudo_nmi=1): "
	       "no NMI context to test; the backtrace IPI and the PMU interrupt must run as hard IRQs");
	ASSERT_LE(0, counted) TH_LOG("no /boot/config-<release>: cannot tell whether this kernel "
				     "counts preemption");
#else
	int nmis = 1, counted = 1;
#endif
	unsigned long long total_walks = 0, total_fires = 0;
	double next_sysrq;

	if (ncpu > NR_CPUS_MAX)
		ncpu = NR_CPUS_MAX;
	for (i = 0; i < CTX_NR; i++) {
		if (!self->progs[i] || !bpf_program__autoload(self->progs[i]))
			continue;
		self->links[self->nr_links] = bpf_program__attach(self->progs[i]);
		ASSERT_NE(NULL, self->links[self->nr_links])
			TH_LOG("attaching %s: %s", where_name[i], strerror(errno));
		self->nr_links++;
	}
	self->links[self->nr_links] = bpf_program__attach_tcx(self->skel->progs.tc_egress, 1, NULL);
	ASSERT_NE(NULL, self->links[self->nr_links])
		TH_LOG("attaching %s: %s", where_name[CTX_TC_EGRESS], strerror(errno));
	self->nr_links++;
	for (cpu = 0; cpu < ncpu; cpu++) {
		int fd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, cpu);

		ASSERT_GE(fd, 0) TH_LOG("perf_event_open(cpu-clock, cpu %d): %s", cpu, strerror(errno));
		self->links[self->nr_links] =
			bpf_program__attach_perf_event(self->skel->progs.perf_sample, fd);
		ASSERT_NE(NULL, self->links[self->nr_links]);
		self->nr_links++;
		fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, cpu);
		if (fd < 0) {
			if (hw) {
				hw_errno = errno;
				TH_LOG("no hardware perf events here (%s): perf NMIs not tested; "
				       "NMI context comes from sysrq-l", strerror(errno));
			}
			hw = 0;
			continue;
		}
		self->links[self->nr_links] =
			bpf_program__attach_perf_event(self->skel->progs.perf_sample_hw, fd);
		ASSERT_NE(NULL, self->links[self->nr_links]);
		self->nr_links++;
	}

	self->skel->bss->enabled = 1;
	end = now() + secs;
	next_sysrq = now();
	for (round = 0; now() < end; round++) {
		workload_round(round);
		if (sysrqs < SYSRQ_MAX && now() >= next_sysrq) {
			/* NMI backtraces of all CPUs: nmi_cpu_backtrace() in NMI. */
			write_file("/proc/sysrq-trigger", "l");
			sysrqs++;
			next_sysrq = now() + secs / SYSRQ_MAX;
		}
	}
	self->skel->bss->enabled = 0;

	memcpy(res->stats, self->skel->bss->stats, sizeof(res->stats));
	res->timer_err = self->skel->bss->timer_err;
	res->hw = hw;
	res->hw_errno = hw_errno;
	res->counted = counted;
	res->nmis = nmis;
	for (i = 0; i < CTX_NR; i++) {
		if ((i == CTX_PERF_HW && !hw) || res->dropped[i][0] ||
		    (i == CTX_TIMER && res->timer_refused[0]))
			continue;
		points++;
		total_walks += res->stats[i].walks;
		total_fires += res->stats[i].fires;
	}
	printf("# program types: %llu walks in %llu program runs across %d attach points, "
	       "%d sysrq-l NMI rounds\n", total_walks, total_fires, points, sysrqs);
	res->ran = 1;
	EXPECT_EQ(0, kmsg_reports_since(self->marker, kmsg_print));
}

/*
 * Each attach point, one test each: it fired, walked to the end, never
 * against the contract, in the context it stands for.
 */
FIXTURE(point) {
	const struct ctx_stats *st;
};

FIXTURE_VARIANT(point) {
	enum ctx_where where;
};

FIXTURE_VARIANT_ADD(point, fentry_hot) { .where = CTX_FENTRY_HOT };
FIXTURE_VARIANT_ADD(point, kprobe) { .where = CTX_KPROBE };
FIXTURE_VARIANT_ADD(point, raw_tp) { .where = CTX_RAW_TP };
FIXTURE_VARIANT_ADD(point, sched_switch) { .where = CTX_SCHED_SWITCH };
FIXTURE_VARIANT_ADD(point, tasklist_lock) { .where = CTX_TASKLIST_LOCK };
FIXTURE_VARIANT_ADD(point, cgroup_mutex) { .where = CTX_CGROUP_MUTEX };
FIXTURE_VARIANT_ADD(point, cgroup_attach) { .where = CTX_CGROUP_ATTACH };
FIXTURE_VARIANT_ADD(point, css_set_lock) { .where = CTX_CSS_SET_LOCK };
FIXTURE_VARIANT_ADD(point, kernfs_rwsem) { .where = CTX_KERNFS_RWSEM };
FIXTURE_VARIANT_ADD(point, softirq) { .where = CTX_SOFTIRQ };
FIXTURE_VARIANT_ADD(point, perf_event) { .where = CTX_PERF_EVENT };
FIXTURE_VARIANT_ADD(point, perf_hw) { .where = CTX_PERF_HW };
FIXTURE_VARIANT_ADD(point, nmi) { .where = CTX_NMI };
FIXTURE_VARIANT_ADD(point, nmi_tp) { .where = CTX_NMI_TP };
FIXTURE_VARIANT_ADD(point, tc_egress) { .where = CTX_TC_EGRESS };
FIXTURE_VARIANT_ADD(point, timer) { .where = CTX_TIMER };

FIXTURE_SETUP(point)
{
	self->st = &res->stats[variant->where];
}

FIXTURE_TEARDOWN(point)
{
}

/* Skipped, with the reason, unless a check already failed the test (SKIP() would hide that). */
#define SKIP_UNLESS_FAILED(fmt, ...) do { \
	if (_metadata->exit_code == KSFT_PASS) \
		SKIP(return, fmt, ##__VA_ARGS__); \
	return; \
} while (0)

#define WALKED_ONLY "fired and walked within the contract; its context not checked: "

TEST_F(point, in_context)
{
	const struct ctx_stats *st = self->st;
	enum ctx_where i = variant->where;
	struct utsname u;

	ASSERT_TRUE(res->ran) TH_LOG("no results: contexts.every_program_type did not run to its end");
	uname(&u);
	if (res->dropped[i][0]) {
		int rule = res->drop_rule[i];

		ASSERT_LE(0, rule) TH_LOG("%s: no such function in %s, and expected_drops[] in "
					  "tests/kselftest/contexts.c does not list it for this kernel: "
					  "%s is lost. Add it there if the kernel's compiler inlined it",
					  res->dropped[i], u.release, where_name[i]);
		SKIP(return, "%s: not in %s (%s; expected_drops[] in tests/kselftest/contexts.c)",
		     res->dropped[i], u.release, expected_drops[rule].why);
	}
	if (i == CTX_PERF_HW && !res->hw)
		SKIP(return, "no hardware perf events in this machine (%s)", strerror(res->hw_errno));
	if (i == CTX_TIMER && res->timer_refused[0])
		SKIP(return, "%s's verifier refuses bpf_timer on PREEMPT_RT (\"%s\")", u.release,
		     res->timer_refused);
	printf("# %-45s %6llu fires %7llu walks %8llu elements %4llu full; "
	       "task %llu softirq %llu hardirq %llu nmi %llu; not preemptible %llu, "
	       "bottom halves off in the task %llu%s\n",
	       where_name[i], (unsigned long long)st->fires, (unsigned long long)st->walks,
	       (unsigned long long)st->elements, (unsigned long long)st->full_walks,
	       (unsigned long long)st->in_task, (unsigned long long)st->in_softirq,
	       (unsigned long long)st->in_hardirq, (unsigned long long)st->in_nmi,
	       (unsigned long long)st->non_preemptible, (unsigned long long)st->task_bh_off,
	       st->ctx_unknown ? " (context unknown on this kernel)" : "");
	EXPECT_GT(st->fires, 0) TH_LOG("%s never fired", where_name[i]);
	EXPECT_EQ(0, st->bad) TH_LOG("%s: %llu results against the contract, last: kind %u got %d",
				     where_name[i], (unsigned long long)st->bad,
				     st->last_bad_what, st->last_bad_got);
	EXPECT_GT(st->full_walks, 0) TH_LOG("%s: no walk to the end", where_name[i]);
	if (i == CTX_TIMER)
		EXPECT_EQ(0, res->timer_err) TH_LOG("arming the bpf_timer from TC failed");
	if (st->ctx_unknown)
		SKIP_UNLESS_FAILED(WALKED_ONLY "%llu of its runs found no preempt count on %s",
				   (unsigned long long)st->ctx_unknown, u.release);
	/* It ran in the context it stands for. */
	switch (i) {
	case CTX_NMI:
	case CTX_NMI_TP:
	case CTX_PERF_HW:
#if defined(__aarch64__)
		EXPECT_EQ(st->fires, st->in_hardirq + st->in_nmi)
			TH_LOG("%s outside hard IRQ and NMI", where_name[i]);
		if (res->nmis) {
			EXPECT_GT(st->in_nmi, 0) TH_LOG("%s never ran in NMI", where_name[i]);
		} else {
			EXPECT_EQ(0, st->in_nmi) TH_LOG("%s in NMI without pseudo-NMIs", where_name[i]);
		}
#else
		EXPECT_GT(st->in_nmi, 0) TH_LOG("%s never ran in NMI", where_name[i]);
#endif
		break;
	case CTX_PERF_EVENT:
		EXPECT_EQ(st->fires, st->in_hardirq) TH_LOG("%s outside hard IRQ", where_name[i]);
		break;
	case CTX_TASKLIST_LOCK:
		if (res->rt) {
			/*
			 * A sleeping rwlock on PREEMPT_RT: held, yet the preempt
			 * count is 0 and preemptible() says yes. The case where
			 * new() must not take the id table (kit_cgroup_may_lock()).
			 */
			EXPECT_GT(st->fires - st->non_preemptible, 0)
				TH_LOG("%s never ran preemptible on PREEMPT_RT", where_name[i]);
			break;
		}
		/* fall through */
	case CTX_SCHED_SWITCH:
	case CTX_CSS_SET_LOCK:
	case CTX_CGROUP_MUTEX:
		/* A spinlock is held (or IRQs are off): never preemptible. */
		if (!res->counted)
			SKIP_UNLESS_FAILED(WALKED_ONLY "%s does not count preemption (no CONFIG_PREEMPT_COUNT): "
					   "a held spinlock does not show, so \"never preemptible\" cannot be told",
					   u.release);
		EXPECT_EQ(st->fires, st->non_preemptible)
			TH_LOG("%s ran preemptible", where_name[i]);
		break;
	case CTX_SOFTIRQ:
		/* PREEMPT_RT runs RCU callbacks in threads, bottom halves off. */
		EXPECT_GT(st->in_softirq + st->task_bh_off, 0)
			TH_LOG("%s never ran in softirq or with bottom halves off", where_name[i]);
		if (res->rt)
			EXPECT_EQ(0, st->in_softirq) TH_LOG("%s: a softirq count on PREEMPT_RT", where_name[i]);
		break;
	case CTX_TIMER:
		EXPECT_EQ(st->fires, st->in_softirq + st->task_bh_off)
			TH_LOG("%s outside softirq", where_name[i]);
		break;
	case CTX_TC_EGRESS:
		/*
		 * Bottom halves off (rcu_read_lock_bh()), in the sender's
		 * context: in the preempt count, or on PREEMPT_RT in the task's
		 * own softirq count, the preempt count staying 0.
		 */
		EXPECT_EQ(st->fires, st->non_preemptible + st->task_bh_off)
			TH_LOG("%s ran with bottom halves on", where_name[i]);
		if (res->rt)
			EXPECT_GT(st->task_bh_off, 0) TH_LOG("%s: no task softirq count on PREEMPT_RT",
							     where_name[i]);
		break;
	case CTX_KERNFS_RWSEM:
		/* A sleeping lock: the program runs preemptible, in task context. */
		EXPECT_GT(st->fires - st->non_preemptible, 0)
			TH_LOG("%s never ran preemptible", where_name[i]);
		break;
	default:
		/* fentry on vfs_read, the kprobe, raw_tp, cgroup_attach_task: any context. */
		break;
	}
}

TEST_HARNESS_MAIN
