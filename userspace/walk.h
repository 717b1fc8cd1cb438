/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the loader gets a walk program: freshly loaded from its light
 * skeleton (relocations and kfunc lookups done in the kernel, no userspace
 * BTF parsing), or resident, pinned by `iterkit load` under
 * /sys/fs/bpf/iterkit. Records come back in memory-mapped arrays sized
 * before the load, never in per-record messages.
 */
#ifndef ITERKIT_WALK_H
#define ITERKIT_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/skel_internal.h>

#define KIT_PIN_ROOT "/sys/fs/bpf/iterkit"
#define KIT_MAX_RECORD_MAPS 2

/* A record array of a walk program, mapped read-only once it is filled. */
struct kit_records {
	int fd;
	uint32_t room;		/* max_entries */
	void *mem;
	size_t mapped;
};

struct kit_prog;

/* What the loader knows about one walk program. */
struct kit_prog_type {
	const char *name;		/* pin directory, e.g. "tasks" */
	const char *iter;		/* its iterator, e.g. "kit_task" */
	size_t bss_size;		/* sizeof its skeleton's bss struct */
	const char *maps[KIT_MAX_RECORD_MAPS];	/* record arrays, NULL-terminated */
	size_t rec_size[KIT_MAX_RECORD_MAPS];
	/* Loads the light skeleton with room entries in maps[0]; 0 or -errno. */
	int (*load)(struct kit_prog *p, uint32_t room);
	void (*destroy)(void *skel);
	/* Records the walk produced, from its bss (0 for programs without records). */
	uint64_t (*produced)(const void *bss);
	/* How many records a walk would give now (an estimate, before the load). */
	uint32_t (*estimate)(void);
};

struct kit_prog {
	const struct kit_prog_type *type;
	int prog_fd;
	int bss_fd;
	void *bss;		/* the program's globals */
	struct kit_records rec[KIT_MAX_RECORD_MAPS];
	void *skel;		/* a fresh load: its light skeleton */
	int lock_fd;		/* resident: the pin directory, locked while in use */
	bool resident;
};

/* The loader's programs, for `iterkit load`. */
extern const struct kit_prog_type kit_prog_num, kit_prog_seq, kit_prog_tasks, kit_prog_cgroups;

/*
 * Gets p ready to run: the resident program if there is one with room for
 * at least `room` records, else a fresh load with that room. 0, or 1
 * after printing why not.
 */
int kit_prog_open(struct kit_prog *p, const struct kit_prog_type *t, uint32_t room);
/* A fresh load, never the resident one (iterkit load). */
int kit_prog_load(struct kit_prog *p, const struct kit_prog_type *t, uint32_t room);
void kit_prog_close(struct kit_prog *p);
/* Runs the walk once: 0, or 1 after printing why not. */
int kit_prog_run(struct kit_prog *p);

/*
 * Runs the walk until everything it produced fit: when it found more
 * records than room, reloads with room to spare and walks again (tasks
 * may fork meanwhile; a few tries). Calls set_inputs(p->bss, in) before
 * each run. 0 with the records mapped, or 1 after printing why not.
 */
int kit_prog_walk(struct kit_prog *p, void (*set_inputs)(void *bss, const void *in),
		  const void *in);

/* Room for n records and some more for what starts meanwhile. */
uint32_t kit_room_for(uint64_t n);

/* The light skeleton's loader: verifier log on -v, error messages. */
void kit_lskel_log_setup(struct bpf_loader_ctx *ctx);
void kit_lskel_log_show(const struct bpf_loader_ctx *ctx);

/*
 * Loads the light skeleton s of NAME_bpf (its verifier log on -v); on
 * failure destroys it. 0 or -errno.
 */
#define KIT_LSKEL_LOAD(name, s)							\
	({									\
		int __err;							\
										\
		kit_lskel_log_setup(&(s)->ctx);					\
		__err = name##_bpf__load(s);					\
		kit_lskel_log_show(&(s)->ctx);					\
		if (__err)							\
			name##_bpf__destroy(s);					\
		__err < 0 ? __err : -__err;					\
	})

/* The pin directory of this build's programs (KIT_PIN_ROOT/<build id>). */
const char *kit_pin_dir(void);

#endif
