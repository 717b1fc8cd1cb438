/* SPDX-License-Identifier: GPL-2.0 */
/* The iterkit module's max_steps parameter, which caps every walk. */
#ifndef ITERKIT_KSFT_MAX_STEPS_H
#define ITERKIT_KSFT_MAX_STEPS_H

#include <stdio.h>

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

#endif /* ITERKIT_KSFT_MAX_STEPS_H */
