/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the loader gets a walk program and runs it: freshly loaded from its
 * skeleton (a light one: relocations and kfunc lookups done in the kernel), or
 * resident, pinned by `iterkit load` under /sys/fs/bpf/iterkit. Records
 * come back in memory-mapped arrays sized before the load.
 */
#ifndef ITERKIT_PROG_H
#define ITERKIT_PROG_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/skel_internal.h>
#include "cli.h"

#define KIT_PIN_ROOT "/sys/fs/bpf/iterkit"

#define KIT_MAX_RECORD_MAPS 2

/* Each walk program's light skeleton header, made from bpf/<name>.bpf.c. */
#define KIT_STRING(x) #x
#define KIT_XSTRING(x) KIT_STRING(x)
#define KIT_SKEL_H(name) KIT_XSTRING(name.lskel.h)

struct kit_prog;

/*
 * A walk program's skeleton (bpf/<name>.bpf.c), reached through functions
 * KIT_SKEL_FNS() writes for it: the skeleton's own names, checked by the
 * compiler, whatever layout bpftool gives the skeleton struct.
 */
struct kit_skel {
	/*
	 * Opens the skeleton, gives its first record array room entries and
	 * loads it into p (its skel, fds, bss and record fds), the verifier's
	 * log in log if not NULL: 0 or -errno.
	 */
	int (*load)(struct kit_prog *p, uint32_t room, char *log, uint32_t log_size);
	void (*destroy)(void *skel);
	const char *map_names[KIT_MAX_RECORD_MAPS];	/* the record arrays' (NULL: none) */
	size_t rec_size[KIT_MAX_RECORD_MAPS];
	size_t bss_size;
};

/*
 * Writes name_skel_load() and name_skel_destroy() for the skeleton struct
 * name_bpf, whose program is progname. rec0 and rec1 are its record
 * arrays, as expressions of the skeleton `skel` (&skel->maps.records), or
 * NULL; rec0 gets room entries.
 */
#define KIT_SKEL_FNS(name, progname, rec0, rec1)				\
	static int name##_skel_load(struct kit_prog *p, uint32_t room,	\
				    char *log, uint32_t log_size)		\
	{									\
		struct name##_bpf *skel = name##_bpf__open();			\
		struct bpf_map_desc *recs[KIT_MAX_RECORD_MAPS];			\
		int err, i;							\
										\
		if (!skel)							\
			return -ENOMEM;						\
		recs[0] = rec0;							\
		recs[1] = rec1;							\
		if (recs[0])							\
			recs[0]->max_entries = room;				\
		if (log) {	/* from the skeleton's loader program */	\
			log[0] = '\0';						\
			skel->ctx.log_level = 1;				\
			skel->ctx.log_size = log_size;				\
			skel->ctx.log_buf = (long)log;				\
		}								\
		err = name##_bpf__load(skel);					\
		if (err) {							\
			name##_bpf__destroy(skel);				\
			return err < 0 ? err : -err;				\
		}								\
		p->skel = skel;							\
		p->prog_fd = skel->progs.progname.prog_fd;			\
		p->bss_fd = skel->maps.bss.map_fd;				\
		p->bss = p->out = skel->bss;					\
		for (i = 0; i < KIT_MAX_RECORD_MAPS; i++)			\
			p->rec[i].fd = recs[i] ? recs[i]->map_fd : -1;		\
		return 0;							\
	}									\
	static void name##_skel_destroy(void *skel)				\
	{									\
		name##_bpf__destroy(skel);					\
	}

/* The struct kit_skel of a skeleton KIT_SKEL_FNS() wrote functions for. */
#define KIT_SKEL(name, ...) {							\
	.load = name##_skel_load,						\
	.destroy = name##_skel_destroy,						\
	.bss_size = sizeof(struct name##_bpf__bss),				\
	__VA_ARGS__								\
}
/* Names record array i (for its pin) and its record type. */
#define KIT_SKEL_MAP(i, map, rec)						\
	.map_names[i] = #map, .rec_size[i] = sizeof(rec)

/* A walk program: what loading, pinning and running it needs. */
struct kit_walk_prog {
	const char *name;		/* the iterator's: bpf_iter_<name>_new */
	const char *mainline;		/* the mainline kernel its kfuncs need */
	const char *pin;		/* its pin directory (its command's name) */
	struct kit_skel skel;
	/* Records a walk produced in record array i, from its bss (0 without records). */
	uint64_t (*produced)(const void *bss, int i);
	/* How many records a walk would give now (before a load), or NULL. */
	uint32_t (*estimate)(void);
};

/* A record array of a walk program. */
struct kit_records {
	int fd;
	uint32_t room;		/* max_entries */
	void *mem;		/* the records of the last walk */
	size_t mapped;		/* bytes of mem mapped from the map (0: a private copy) */
};

struct kit_prog {
	const struct kit_walk_prog *desc;
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
int kit_prog_open(struct kit_prog *p, const struct kit_walk_prog *desc, uint32_t room);
/* A fresh load, never the resident one (iterkit load). */
int kit_prog_load(struct kit_prog *p, const struct kit_walk_prog *desc, uint32_t room);
void kit_prog_close(struct kit_prog *p);

/*
 * One walk: sets the inputs (set_inputs(p->bss, in)), runs the program,
 * and leaves its outputs in p->out and the records in p->rec[].mem. When
 * it found more records than room, it loads again with room to spare and
 * walks again (a few tries). A resident program is locked for the run alone:
 * concurrent walks never see each other's. Opens p if it is not. 0, or 1
 * after printing why not.
 */
int kit_prog_walk(struct kit_prog *p, const struct kit_walk_prog *desc,
		  void (*set_inputs)(void *bss, const void *in), const void *in);

/* Room for n records and some more for what starts meanwhile. */
uint32_t kit_room_for(uint64_t n);

/* The last lines of a verifier's log, for an error (its trailing newlines are cut off). */
const char *kit_log_tail(char *log);

/*
 * The walk commands (tasks, cgroups): `repeat` walks, `interval` seconds
 * apart, each walk's output written before the wait; show() formats one
 * walk (0, or 1 after printing an error, which stops the command). With
 * --repeat and --json the documents are NDJSON: one line each. First
 * checks the module (kit_require_module()).
 */
struct kit_walk_cmd {
	const struct kit_walk_prog *desc;
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

#endif
