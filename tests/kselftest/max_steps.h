/* SPDX-License-Identifier: GPL-2.0 */
/* The iterkit module's max_steps parameter, which caps every walk. */
#ifndef ITERKIT_KSFT_MAX_STEPS_H
#define ITERKIT_KSFT_MAX_STEPS_H

#include <stdio.h>
#include "kit_features.h"
#include "prog_run.h"

#define MAX_STEPS_PARAM "/sys/module/iterkit/parameters/max_steps"

/* Writes @n to the parameter; 0 or -1. */
static inline int set_max_steps(unsigned int n)
{
	FILE *f = fopen(MAX_STEPS_PARAM, "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%u\n", n) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* The parameter's value, or -1 when it cannot be read. */
static inline long get_max_steps(void)
{
	FILE *f = fopen(MAX_STEPS_PARAM, "r");
	unsigned int n;
	int got;

	if (!f)
		return -1;
	got = fscanf(f, "%u", &n);
	fclose(f);
	return got == 1 ? (long)n : -1;
}

/*
 * The start of a test of the _capped() getters (in a fixture's setup):
 * max_steps must be 0, and @prog (a walk that sets @have when the getter
 * exists) runs once. A module built with iterator arguments
 * (ITERKIT_ITER_ARGS) must have the getter; one built without them has
 * none, and the test is skipped.
 */
#define CAPPED_SETUP(prog, have) do {						\
	ASSERT_EQ(0, get_max_steps()) TH_LOG("max_steps is not 0 before the test"); \
	ASSERT_LE(0, kit_prog_run(prog));					\
	ASSERT_LE(0, kit_feature("ITER_ARGS")) TH_LOG("no features file next to the tests"); \
	if (!kit_feature("ITER_ARGS")) {					\
		ASSERT_EQ(0, have);						\
		SKIP(return, "the module was built without __iter arguments (no ITERKIT_ITER_ARGS)"); \
	}									\
	ASSERT_EQ(1, have) TH_LOG("no _capped() getter in a module built with ITERKIT_ITER_ARGS"); \
} while (0)

#endif /* ITERKIT_KSFT_MAX_STEPS_H */
