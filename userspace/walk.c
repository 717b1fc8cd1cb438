// SPDX-License-Identifier: GPL-2.0
/* Walk programs: fresh light-skeleton loads, resident pins, runs (see walk.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "iterkit.h"
#include "walk.h"
#include "progs_id.h"

/* How many times a walk is repeated when tasks keep appearing faster than room grows. */
#define KIT_WALK_TRIES 4

static char *kit_log_buf;
#define KIT_LOG_SIZE (16u << 20)

void kit_lskel_log_setup(struct bpf_loader_ctx *ctx)
{
	if (!kit_verbose)
		return;
	if (!kit_log_buf)
		kit_log_buf = calloc(1, KIT_LOG_SIZE);
	if (!kit_log_buf)
		return;
	kit_log_buf[0] = '\0';
	ctx->log_level = 1;
	ctx->log_size = KIT_LOG_SIZE;
	ctx->log_buf = (long)kit_log_buf;
}

void kit_lskel_log_show(const struct bpf_loader_ctx *ctx)
{
	if (kit_verbose && kit_log_buf && ctx->log_level)
		fprintf(stderr, "%s", kit_log_buf);
}

const char *kit_pin_dir(void)
{
	return KIT_PIN_ROOT "/" KIT_PROGS_ID;
}

static int kit_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return skel_sys_bpf(cmd, attr, size);
}

static int kit_obj_get(const char *path)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (long)path;
	return kit_bpf(BPF_OBJ_GET, &attr, sizeof(attr));
}

static int kit_map_info(int fd, struct bpf_map_info *info)
{
	union bpf_attr attr;

	memset(info, 0, sizeof(*info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (long)info;
	return kit_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr));
}

static size_t kit_page_up(size_t n)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

static void kit_prog_reset(struct kit_prog *p, const struct kit_prog_type *t)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->type = t;
	p->prog_fd = p->bss_fd = p->lock_fd = -1;
	for (i = 0; i < KIT_MAX_RECORD_MAPS; i++)
		p->rec[i].fd = -1;
}

void kit_prog_close(struct kit_prog *p)
{
	int i;

	for (i = 0; i < KIT_MAX_RECORD_MAPS; i++) {
		if (p->rec[i].mem)
			munmap(p->rec[i].mem, p->rec[i].mapped);
		if (p->resident && p->rec[i].fd >= 0)
			close(p->rec[i].fd);
	}
	if (p->resident) {
		if (p->bss)
			munmap(p->bss, kit_page_up(p->type->bss_size));
		if (p->bss_fd >= 0)
			close(p->bss_fd);
		if (p->prog_fd >= 0)
			close(p->prog_fd);
		if (p->lock_fd >= 0)
			close(p->lock_fd);	/* drops the lock */
	} else if (p->skel) {
		p->type->destroy(p->skel);
	}
	kit_prog_reset(p, p->type);
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

int kit_prog_load(struct kit_prog *p, const struct kit_prog_type *t, uint32_t room)
{
	int err, i;

	kit_prog_reset(p, t);
	err = t->load(p, room ? room : 1);
	kit_phase("load");
	kit_stats_load();
	if (err) {
		if (err == -EPERM || err == -EACCES)
			return kit_error("loading the %s program: %s (run as root, or with CAP_BPF and CAP_SYS_ADMIN)",
					 t->iter, strerror(-err));
		return kit_error("loading the %s program failed: %s (run with -v for the verifier log)",
				 t->iter, strerror(-err));
	}
	for (i = 0; i < KIT_MAX_RECORD_MAPS && t->maps[i]; i++) {
		struct bpf_map_info info;

		if (kit_map_info(p->rec[i].fd, &info) == 0)
			p->rec[i].room = info.max_entries;
	}
	kit_prog_count_maps(p);
	return 0;
}

/* The resident program, if `iterkit load` pinned one with room enough: 0 if found. */
static int kit_prog_resident(struct kit_prog *p, const struct kit_prog_type *t, uint32_t room)
{
	char path[256];
	int i;

	kit_prog_reset(p, t);
	snprintf(path, sizeof(path), "%s/%s", kit_pin_dir(), t->name);
	p->lock_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->lock_fd < 0)
		return -1;
	p->resident = true;
	/* One walk at a time: the inputs, outputs and records are shared. */
	if (flock(p->lock_fd, LOCK_EX) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/%s/prog", kit_pin_dir(), t->name);
	p->prog_fd = kit_obj_get(path);
	snprintf(path, sizeof(path), "%s/%s/bss", kit_pin_dir(), t->name);
	p->bss_fd = kit_obj_get(path);
	if (p->prog_fd < 0 || p->bss_fd < 0)
		goto fail;
	for (i = 0; i < KIT_MAX_RECORD_MAPS && t->maps[i]; i++) {
		struct bpf_map_info info;

		snprintf(path, sizeof(path), "%s/%s/%s", kit_pin_dir(), t->name, t->maps[i]);
		p->rec[i].fd = kit_obj_get(path);
		if (p->rec[i].fd < 0 || kit_map_info(p->rec[i].fd, &info))
			goto fail;
		p->rec[i].room = info.max_entries;
	}
	if (t->maps[0] && p->rec[0].room < room)
		goto fail;	/* too small for this walk: a fresh load instead */
	p->bss = mmap(NULL, kit_page_up(t->bss_size), PROT_READ | PROT_WRITE, MAP_SHARED,
		      p->bss_fd, 0);
	if (p->bss == MAP_FAILED) {
		p->bss = NULL;
		goto fail;
	}
	kit_prog_count_maps(p);
	return 0;
fail:
	kit_prog_close(p);
	return -1;
}

int kit_prog_open(struct kit_prog *p, const struct kit_prog_type *t, uint32_t room)
{
	if (kit_prog_resident(p, t, room) == 0) {
		kit_phase("open");
		return 0;
	}
	return kit_prog_load(p, t, room);
}

int kit_prog_run(struct kit_prog *p)
{
	union bpf_attr attr;
	int i;

	for (i = 0; i < KIT_MAX_RECORD_MAPS; i++) {
		if (p->rec[i].mem)
			munmap(p->rec[i].mem, p->rec[i].mapped);
		p->rec[i].mem = NULL;
	}
	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = p->prog_fd;
	if (kit_bpf(BPF_PROG_TEST_RUN, &attr, sizeof(attr)) < 0)
		return kit_error("running the %s program failed: %s", p->type->iter, strerror(errno));
	kit_phase("walk");
	kit_stats_walk();
	for (i = 0; i < KIT_MAX_RECORD_MAPS && p->type->maps[i]; i++) {
		struct kit_records *r = &p->rec[i];

		r->mapped = kit_page_up((size_t)r->room * p->type->rec_size[i]);
		/* populated at once: one fault per page would cost more than the walk */
		r->mem = mmap(NULL, r->mapped, PROT_READ, MAP_SHARED | MAP_POPULATE, r->fd, 0);
		if (r->mem == MAP_FAILED) {
			r->mem = NULL;
			return kit_error("mapping the %s records failed: %s", p->type->iter,
					 strerror(errno));
		}
	}
	return 0;
}

uint32_t kit_room_for(uint64_t n)
{
	uint64_t room = n + n / 8 + 64;

	return room > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)room;
}

int kit_prog_walk(struct kit_prog *p, void (*set_inputs)(void *bss, const void *in),
		  const void *in)
{
	uint64_t got;
	uint32_t room;
	int try;

	for (try = 1; ; try++) {
		set_inputs(p->bss, in);
		if (kit_prog_run(p))
			return 1;
		got = p->type->produced(p->bss);
		room = p->rec[0].room;
		if (!p->type->maps[0] || got <= room) {
			kit_stats_records(got);
			return 0;
		}
		if (try == KIT_WALK_TRIES)
			break;
		/* More than fit, and nothing is shown from a cut walk: again, with room. */
		kit_prog_close(p);
		if (kit_prog_load(p, p->type, kit_room_for(got)))
			return 1;
	}
	return kit_error("the %s walk was cut short %d times (last: %llu records, room for %u): the system changes faster than the walk; try again",
			 p->type->iter, KIT_WALK_TRIES, (unsigned long long)got, room);
}
