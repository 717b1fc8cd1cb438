/* SPDX-License-Identifier: GPL-2.0 */
/* What iterkit_main.c, which registers the kfunc set, gives the walkers. */
#ifndef _ITERKIT_MAIN_H
#define _ITERKIT_MAIN_H

#include <linux/compiler.h>
#include <linux/types.h>

/*
 * The max_steps module parameter (iterkit_main.c): 0, or a cap on every
 * walk of the task and cgroup walkers. new() reads it once, so a walk in
 * progress keeps the cap it started with.
 */
extern unsigned int iterkit_max_steps;

/* The cap of a walk starting now: the smaller of max_steps and @builtin. */
static inline u32 iterkit_walk_cap(u32 builtin)
{
	u32 max = READ_ONCE(iterkit_max_steps);

	return max && max < builtin ? max : builtin;
}

#endif /* _ITERKIT_MAIN_H */
