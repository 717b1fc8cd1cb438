/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The iterator table: every iterator of the module, with its command, its
 * program, its demo and the kernel it needs. The commands, load, demo and
 * status all read it, so that each is written down once.
 */
#ifndef ITERKIT_ITER_H
#define ITERKIT_ITER_H

#include <stdbool.h>
#include <stdint.h>
#include "cli.h"
#include "prog.h"

/* What a demo found: one verdict and one line of detail. */
enum kit_verdict { KIT_PASS, KIT_FAIL, KIT_SKIP };

struct kit_demo {
	enum kit_verdict verdict;
	char detail[512];
};

/* For the demo: the verdict of one iterator, printed by the demo command. */
void kit_demo_set(struct kit_demo *d, enum kit_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One iterator of the module: everything the loader knows about it. */
struct kit_iter {
	/* Its name, the mainline kernel it needs, and its walk program (if any). */
	struct kit_walk_prog prog;
	const char *feature;		/* a kernel kfunc that comes with what it needs */
	struct kit_cmd cmd;		/* its command (prog.pin is its name) */
	/* Shows the iterator end to end; fills d (a walk error becomes a FAIL). */
	void (*demo)(struct kit_demo *d);
	uint32_t resident_min;		/* least room `iterkit load` keeps */
	bool walker;			/* needs KF_RCU_PROTECTED (newer than the rest) */
};

/*
 * Every iterator, NULL-terminated; those a BPF program uses on its own
 * (no command, no program of the loader's) come last.
 */
extern const struct kit_iter *const kit_iters[];

/* Whether it has a command (and a program, a demo) of its own. */
static inline bool kit_iter_has_cmd(const struct kit_iter *it) { return it->cmd.name; }
/* The oldest mainline kernel any iterator of the table needs ("6.4"). */
const char *kit_iters_oldest_kernel(void);

#endif
