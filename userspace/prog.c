// SPDX-License-Identifier: GPL-2.0
/* Walk programs: fresh light-skeleton loads, resident pins, runs (see prog.h). */
#define _GNU_SOURCE	/* strerrorname_np */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "cli.h"
#include "module.h"
#include "prog.h"
#include "progs_id.h"

/* How many times a walk is repeated when tasks keep appearing faster than room grows. */
#define KIT_WALK_TRIES 4
/* Lines of the verifier's log shown when it rejects a program (-v: all). */
#define KIT_LOG_TAIL 12
#define KIT_LOG_SIZE (16u << 20)

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

const char *kit_pin_dir(void)
{
	return KIT_PIN_ROOT "/" KIT_PROGS_ID;
}

static size_t kit_page_up(size_t n)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

void kit_prog_init(struct kit_prog *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->prog_fd = p->bss_fd = p->dir_fd = -1;
	for (i = 0; i < KIT_MAX_RECORD_MAPS; i++)
		p->rec[i].fd = -1;
}

static void kit_records_drop(struct kit_prog *p)
{
	int i;

	for (i = 0; i < KIT_MAX_RECORD_MAPS; i++) {
		struct kit_records *r = &p->rec[i];

		if (r->mem && r->mapped)
			munmap(r->mem, r->mapped);
		else
			free(r->mem);
		r->mem = NULL;
		r->mapped = 0;
	}
}

void kit_prog_close(struct kit_prog *p)
{
	int i;

	kit_records_drop(p);
	if (p->resident) {
		for (i = 0; i < KIT_MAX_RECORD_MAPS; i++)
			if (p->rec[i].fd >= 0)
				close(p->rec[i].fd);
		if (p->bss)
			munmap(p->bss, kit_page_up(p->desc->skel.bss_size));
		free(p->out);
		if (p->bss_fd >= 0)
			close(p->bss_fd);
		if (p->prog_fd >= 0)
			close(p->prog_fd);
		if (p->dir_fd >= 0)
			close(p->dir_fd);
	} else if (p->skel) {
		p->desc->skel.destroy(p->skel);
	}
	kit_prog_init(p);
}

/* Every map's memory, for --stats. */
static void kit_prog_count_maps(const struct kit_prog *p)
{
	int i;

	kit_stats_map(p->bss_fd);
	for (i = 0; i < KIT_MAX_RECORD_MAPS; i++)
		if (p->rec[i].fd >= 0)
			kit_stats_map(p->rec[i].fd);
}

static uint32_t kit_map_room(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_map_get_info_by_fd(fd, &info, &len) ? 0 : info.max_entries;
}

/* The capabilities loading needs that this process lacks ("" if none). */
static const char *kit_missing_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	unsigned long inside = 0, outside = 0, count = 0;
	bool admin, bpf, perfmon;

	/* In a user namespace of its own, no capability reaches bpf(2). */
	if (kit_scan_file("/proc/self/uid_map", "%lu %lu %lu", &inside, &outside, &count) >= 0 &&
	    (inside || outside || count != 4294967295UL))
		return "CAP_BPF and CAP_PERFMON in the initial user namespace";
	if (syscall(SYS_capget, &h, d))
		return "";
#define KIT_HAS(cap) (d[(cap) / 32].effective & (1u << ((cap) % 32)))
	admin = KIT_HAS(CAP_SYS_ADMIN);
	bpf = admin || KIT_HAS(CAP_BPF);
	perfmon = admin || KIT_HAS(CAP_PERFMON);
#undef KIT_HAS
	if (!bpf && !perfmon)
		return "CAP_BPF and CAP_PERFMON";
	if (!bpf)
		return "CAP_BPF";
	if (!perfmon)
		return "CAP_PERFMON";
	return "";
}

/* Loads the skeleton with room entries in its first record array: 0 or -errno. */
static int kit_skel_load(struct kit_prog *p, const struct kit_walk_prog *desc, uint32_t room,
			 char *log)
{
	int err, i;

	err = desc->skel.load(p, room, log, KIT_LOG_SIZE);
	for (i = 0; !err && i < KIT_MAX_RECORD_MAPS && desc->skel.map_names[i]; i++)
		p->rec[i].room = kit_map_room(p->rec[i].fd);
	return err;
}

const char *kit_log_tail(char *log)
{
	char *end = log + strlen(log), *p;
	int lines = 0;

	while (end > log && end[-1] == '\n')
		*--end = '\0';
	for (p = end; p > log && lines < KIT_LOG_TAIL; p--)
		if (p[-1] == '\n')
			lines++;
	return *p == '\n' ? p + 1 : p;
}

/* Why a load failed, in one line, the end of the verifier's log under it. */
static int kit_load_error(const struct kit_walk_prog *desc, int err, char *log)
{
	const char *caps = kit_missing_caps();
	bool has_log = log && log[0];

	if (!kit_module_has_iter(desc->name))
		return kit_error("the iterkit module has no %s kfuncs (the walkers need a kernel with KF_RCU_PROTECTED, mainline %s)",
				 desc->name, desc->mainline);
	/* With -v the whole log is already out. */
	kit_error_log = has_log && !kit_verbose ? kit_log_tail(log) : NULL;
	if (caps[0])
		kit_error("loading the %s program: %s: this needs %s (or CAP_SYS_ADMIN); run as root%s",
			  desc->name, strerror(-err), caps, kit_error_log ?
			  "; the end of the verifier's log:" : "");
	else if (has_log)
		kit_error("the verifier rejected the %s program (%s: %s)%s", desc->name,
			  strerrorname_np(-err) ?: "?", strerror(-err),
			  kit_error_log ? "; the end of its log (all of it with -v):" : "");
	else
		kit_error("loading the %s program failed: %s", desc->name, strerror(-err));
	kit_error_log = NULL;
	return 1;
}

int kit_prog_load(struct kit_prog *p, const struct kit_walk_prog *desc, uint32_t room)
{
	static char *log;
	int err;

	kit_prog_init(p);
	p->desc = desc;
	if (kit_verbose && !log)
		log = calloc(1, KIT_LOG_SIZE);
	err = kit_skel_load(p, desc, room ? room : 1, kit_verbose ? log : NULL);
	if (err && !kit_verbose && !kit_interrupted) {
		/* Again, for the verifier's log (logging slows every load down). */
		if (!log)
			log = calloc(1, KIT_LOG_SIZE);
		if (log && kit_skel_load(p, desc, room ? room : 1, log) == 0)
			err = 0;	/* it loaded this time */
	}
	if (kit_verbose && log)
		fprintf(stderr, "%s", log);
	kit_phase("load");
	kit_counters.loads++;
	if (err)
		return kit_load_error(desc, err, log);
	kit_prog_count_maps(p);
	return 0;
}

static bool kit_same_dir(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/*
 * The resident program, if `iterkit load` pinned one with room enough: 0
 * if found. Its pins are taken under its directory's lock, and then the
 * directory at its path must still be the one locked: `iterkit load` may
 * have replaced it meanwhile.
 */
static int kit_prog_resident(struct kit_prog *p, const struct kit_walk_prog *desc, uint32_t room)
{
	char dir[256], path[320];
	int i, tries;

	snprintf(dir, sizeof(dir), "%s/%s", kit_pin_dir(), desc->pin);
	for (tries = 0; tries < 3; tries++) {
		kit_prog_init(p);
		p->desc = desc;
		p->resident = true;
		p->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (p->dir_fd < 0)
			return -1;
		if (kit_lock_wait(p->dir_fd, "the resident program's lock"))
			goto fail_said;
		snprintf(path, sizeof(path), "%s/prog", dir);
		p->prog_fd = bpf_obj_get(path);
		snprintf(path, sizeof(path), "%s/bss", dir);
		p->bss_fd = bpf_obj_get(path);
		for (i = 0; i < KIT_MAX_RECORD_MAPS && desc->skel.map_names[i]; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, desc->skel.map_names[i]);
			p->rec[i].fd = bpf_obj_get(path);
			p->rec[i].room = p->rec[i].fd < 0 ? 0 : kit_map_room(p->rec[i].fd);
		}
		if (kit_same_dir(p->dir_fd, dir))
			break;
		kit_prog_close(p);	/* replaced while we took it: again */
	}
	if (tries == 3 || p->prog_fd < 0 || p->bss_fd < 0)
		goto fail;
	for (i = 0; i < KIT_MAX_RECORD_MAPS && desc->skel.map_names[i]; i++)
		if (p->rec[i].fd < 0)
			goto fail;
	if (desc->skel.map_names[0] && p->rec[0].room < room)
		goto fail;	/* too small for this walk: a fresh load instead */
	p->bss = mmap(NULL, kit_page_up(desc->skel.bss_size), PROT_READ | PROT_WRITE, MAP_SHARED,
		      p->bss_fd, 0);
	p->out = malloc(desc->skel.bss_size);
	if (p->bss == MAP_FAILED || !p->out) {
		if (p->bss == MAP_FAILED)
			p->bss = NULL;
		goto fail;
	}
	flock(p->dir_fd, LOCK_UN);
	kit_prog_count_maps(p);
	return 0;
fail:
	kit_prog_close(p);
	return -1;
fail_said:
	kit_prog_close(p);
	return -2;
}

int kit_prog_open(struct kit_prog *p, const struct kit_walk_prog *desc, uint32_t room)
{
	int rc = kit_prog_resident(p, desc, room);

	if (rc == 0) {
		kit_phase("open");
		return 0;
	}
	if (rc == -2)
		return 1;	/* its lock timed out, or the wait was interrupted: said */
	return kit_prog_load(p, desc, room);
}

/*
 * Sets the program's inputs, runs it once and takes its outputs: 0, or 1
 * after printing why not. A resident program's .bss and records are shared
 * by every iterkit that runs it: its lock is held from the inputs to the
 * copy of the outputs, so that no other run's inputs or results get between.
 */
static int kit_prog_run(struct kit_prog *p, void (*set_inputs)(void *bss, const void *in),
			const void *in)
{
	const struct kit_skel *sk = &p->desc->skel;
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int i, err = 0;

	kit_records_drop(p);
	if (p->resident && kit_lock_wait(p->dir_fd, "the resident program's lock"))
		return 1;
	set_inputs(p->bss, in);
	if (bpf_prog_test_run_opts(p->prog_fd, &opts) < 0) {
		err = kit_error("running the %s program failed: %s", p->desc->name, strerror(errno));
		goto out;
	}
	kit_phase("walk");
	kit_counters.walks++;
	if (p->resident)
		memcpy(p->out, p->bss, sk->bss_size);
	for (i = 0; i < KIT_MAX_RECORD_MAPS && sk->map_names[i]; i++) {
		struct kit_records *r = &p->rec[i];
		uint64_t n = p->desc->produced(p->out, i);
		size_t len, map_len;
		void *mem;

		len = (n < r->room ? n : r->room) * sk->rec_size[i];
		if (!len)
			continue;
		map_len = kit_page_up(len);
		/* populated at once: one fault per page would cost more than the walk */
		mem = mmap(NULL, map_len, PROT_READ, MAP_SHARED | MAP_POPULATE, r->fd, 0);
		if (mem == MAP_FAILED) {
			err = kit_error("mapping the %s records failed: %s", p->desc->name,
					strerror(errno));
			goto out;
		}
		if (!p->resident) {
			r->mem = mem;
			r->mapped = map_len;
			continue;
		}
		/* Resident: a copy, so that the lock is not held while the output is written. */
		r->mem = malloc(len);
		if (r->mem)
			memcpy(r->mem, mem, len);
		munmap(mem, map_len);
		if (!r->mem) {
			err = kit_error("out of memory for %zu bytes of %s records", len, p->desc->name);
			goto out;
		}
	}
out:
	if (p->resident)
		flock(p->dir_fd, LOCK_UN);
	return err ? 1 : 0;
}

uint32_t kit_room_for(uint64_t n)
{
	uint64_t room = n + n / 8 + 64;

	return room > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)room;
}

int kit_prog_walk(struct kit_prog *p, const struct kit_walk_prog *desc,
		  void (*set_inputs)(void *bss, const void *in), const void *in)
{
	uint64_t got = 0;
	uint32_t room = 0;
	int try;

	if (!p->desc && kit_prog_open(p, desc, desc->estimate ? kit_room_for(desc->estimate()) : 0))
		return 1;
	for (try = 1; ; try++) {
		if (kit_prog_run(p, set_inputs, in))
			return 1;
		got = desc->produced(p->out, 0);
		room = p->rec[0].room;
		if (!desc->skel.map_names[0] || got <= room) {
			kit_counters.records += got;
			return 0;
		}
		if (try == KIT_WALK_TRIES)
			break;
		/* More than fit, and nothing is shown from a cut walk: again, with room. */
		kit_prog_close(p);
		if (kit_prog_load(p, desc, kit_room_for(got)))
			return 1;
	}
	return kit_error("the %s walk was cut short %d times (last: %llu records, room for %u): the system changes faster than the walk; try again",
			 desc->name, KIT_WALK_TRIES, (unsigned long long)got, room);
}

int kit_walk_args_next(struct kit_args *a, struct kit_walk_cmd *w, bool *host)
{
	int c;

	while ((c = kit_args_next(a)) >= 0) {
		switch (c) {
		case KIT_OPT_REPEAT:
			if (!kit_parse_dec(a->arg, 1, 1000000000, &w->repeat))
				return kit_usage_error("--repeat needs a decimal count >= 1, got '%s'",
						       a->arg), KIT_ARGS_BAD;
			w->stream = true;
			break;
		case KIT_OPT_INTERVAL:
			if (!kit_parse_seconds(a->arg, &w->interval))
				return kit_usage_error("--interval needs decimal seconds (e.g. 1 or 0.5), got '%s'",
						       a->arg), KIT_ARGS_BAD;
			break;
		case KIT_OPT_HOST:
			*host = true;
			break;
		default:
			return c;
		}
	}
	return c;
}

int kit_walk_run(const struct kit_walk_cmd *w)
{
	struct kit_prog p;
	long long k;
	int rc = 0;

	if (kit_require_module())
		return 1;
	kit_prog_init(&p);
	kit_phase("start");
	/* NDJSON: a stream of documents that line-oriented readers (jq -c, ...) take one by one */
	kit_stdout.compact = kit_json && w->stream;
	for (k = 0; k < w->repeat && !rc; k++) {
		/* Each walk's output goes out before the next walk (and the wait). */
		if (k) {
			rc = kit_flush();
			kit_phase("write");
			if (rc)
				break;
		}
		if (k && w->interval > 0) {
			kit_sleep(w->interval);
			kit_phase("sleep");
		}
		rc = kit_prog_walk(&p, w->desc, w->set_inputs, w->in);
		if (!rc)
			rc = w->show(&p, w->in, w->ctx);
		if (!rc && !kit_json && k + 1 < w->repeat)
			kit_out_char(&kit_stdout, '\n');
		kit_phase("format");
	}
	kit_prog_close(&p);
	if (!rc)
		rc = kit_flush();
	kit_phase("write");
	return rc;
}
