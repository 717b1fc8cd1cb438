/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resident programs: `iterkit load` pins them under /sys/fs/bpf/iterkit,
 * `iterkit unload` removes them, `iterkit status` lists them.
 */
#ifndef ITERKIT_RESIDENT_H
#define ITERKIT_RESIDENT_H

#include <stdbool.h>
#include "cli.h"

#define KIT_MAX_RESIDENT 16
#define KIT_MAX_RESIDENT_PROGS 8

/* One pin directory (one build's programs). */
struct kit_resident {
	char dir[320];
	bool this_build;
	char progs[KIT_MAX_RESIDENT_PROGS][32];	/* its program directories */
	unsigned int nprogs;
};

/* Every pin directory under KIT_PIN_ROOT, this build's first; how many. */
int kit_resident_list(struct kit_resident *res, int max);

/* iterkit load, iterkit unload: pin this build's programs, remove every pin. */
extern const struct kit_cmd kit_cmd_load, kit_cmd_unload;

#endif
