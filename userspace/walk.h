/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the loader gets a walk program and runs it: freshly loaded from its
 * light skeleton (relocations and kfunc lookups done in the kernel), or
 * resident, pinned by `iterkit load` under /sys/fs/bpf/iterkit. Records
 * come back in memory-mapped arrays sized before the load.
 */
#ifndef ITERKIT_WALK_H
#define ITERKIT_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/skel_internal.h>
#include "cli.h"
#include "iter.h"

#define KIT_PIN_ROOT "/sys/fs/bpf/iterkit"

/*
 * The adapter between a light skeleton NAME_bpf (program PROG) and struct
 * kit_skel: its functions and where its parts are. KIT_LSKEL_MAP() names
 * a record array (in .skel.maps / .skel.map_names / .skel.rec_size).
 */
#define KIT_LSKEL_FNS(name)							\
	static void *name##_skel_open(void) { return name##_bpf__open(); }	\
	static int name##_skel_load(void *s) { return name##_bpf__load(s); }	\
	static void name##_skel_destroy(void *s) { name##_bpf__destroy(s); }

#define KIT_LSKEL(name, progname, ...) {					\
	.open = name##_skel_open,						\
	.load = name##_skel_load,						\
	.destroy = name##_skel_destroy,						\
	.prog = offsetof(struct name##_bpf, progs.progname),			\
	.bss_map = offsetof(struct name##_bpf, maps.bss),			\
	.bss = offsetof(struct name##_bpf, bss),				\
	.bss_size = sizeof(struct name##_bpf__bss),				\
	__VA_ARGS__								\
}
#define KIT_LSKEL_MAP(i, name, map, rec)					\
	.maps[i] = offsetof(struct name##_bpf, maps.map),			\
	.map_names[i] = #map, .rec_size[i] = sizeof(rec)

/* A record array of a walk program. */
struct kit_records {
	int fd;
	uint32_t room;		/* max_entries */
	void *mem;		/* the records of the last walk */
	size_t mapped;		/* bytes of mem mapped from the map (0: a private copy) */
};

struct kit_prog {
	const struct kit_iter *it;
	int prog_fd;
	int bss_fd;
	void *bss;		/* the program's globals, mapped */
	void *out;		/* the last walk's globals: bss, or a private copy of it */
	struct kit_records rec[KIT_MAX_RECORD_MAPS];
	void *skel;		/* a fresh load: its light skeleton */
	int dir_fd;		/* resident: the pin directory, locked around each walk */
	bool resident;
};

/* No program yet (kit_prog_close() makes it so again). */
void kit_prog_init(struct kit_prog *p);
/*
 * Gets p ready to run: the resident program if there is one with room for
 * at least `room` records, else a fresh load with that room. 0, or 1
 * after printing why not.
 */
int kit_prog_open(struct kit_prog *p, const struct kit_iter *it, uint32_t room);
/* A fresh load, never the resident one (iterkit load). */
int kit_prog_load(struct kit_prog *p, const struct kit_iter *it, uint32_t room);
void kit_prog_close(struct kit_prog *p);

/*
 * One walk: sets the inputs (set_inputs(p->bss, in)), runs the program,
 * and leaves its outputs in p->out and the records in p->rec[].mem. When
 * it found more records than room, it loads again with room to spare and
 * walks again (a few tries). A resident program is locked for this walk
 * only, from the inputs to the copy of its outputs, which is taken before
 * the lock is dropped: concurrent walks never see each other's. Opens p if
 * it is not. 0, or 1 after printing why not.
 */
int kit_prog_walk(struct kit_prog *p, const struct kit_iter *it,
		  void (*set_inputs)(void *bss, const void *in), const void *in);

/* Room for n records and some more for what starts meanwhile. */
uint32_t kit_room_for(uint64_t n);

/*
 * The walk commands (tasks, cgroups): `repeat` walks, `interval` seconds
 * apart, each walk's output written before the wait; show() formats one
 * walk (0, or 1 after printing an error, which stops the command). With
 * --repeat and --json the documents are NDJSON: one line each.
 */
struct kit_walk_cmd {
	const struct kit_iter *it;
	void (*set_inputs)(void *bss, const void *in);
	const void *in;
	int (*show)(struct kit_prog *p, const void *in, void *ctx);
	void *ctx;
	long long repeat;
	double interval;
	bool stream;		/* --repeat given: with --json, one compact document per line */
};
int kit_walk_run(const struct kit_walk_cmd *w);

/* The options the walk commands share: --repeat, --interval, --host. */
enum { KIT_OPT_REPEAT = 0x180, KIT_OPT_INTERVAL, KIT_OPT_HOST };
#define KIT_WALK_OPTS								\
	{ "repeat", required_argument, NULL, KIT_OPT_REPEAT },			\
	{ "interval", required_argument, NULL, KIT_OPT_INTERVAL },		\
	{ "host", no_argument, NULL, KIT_OPT_HOST }
#define KIT_WALK_OPTS_HELP							\
	"  --repeat N         walk N times (the program is loaded once)\n"	\
	"  --interval SECONDS wait between the walks of --repeat\n"
/*
 * kit_args_next() that reads the KIT_WALK_OPTS itself, into w and *host:
 * the next other option, KIT_ARGS_END, or another KIT_ARGS_* after an error.
 */
int kit_walk_args_next(struct kit_args *a, struct kit_walk_cmd *w, bool *host);

/* The pin directory of this build's programs (KIT_PIN_ROOT/<build id>). */
const char *kit_pin_dir(void);
/* The build id of this loader's programs. */
const char *kit_progs_id(void);

#endif
