/* SPDX-License-Identifier: GPL-2.0 */
/* TAP for the loader's unit tests: ok/not ok lines, and the plan at the end. */
#ifndef ITERKIT_UNIT_H
#define ITERKIT_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_n, unit_failed;

#define UNIT_OK(cond, ...) do {							\
	bool __ok = (cond);							\
	printf("%s %d ", __ok ? "ok" : "not ok", ++unit_n);			\
	printf(__VA_ARGS__);							\
	printf("\n");								\
	if (!__ok) {								\
		unit_failed++;							\
		printf("# %s:%d: %s\n", __FILE__, __LINE__, #cond);		\
	}									\
} while (0)

/* Two strings equal, both shown when not (escaped for the TAP line). */
#define UNIT_STREQ(got, want, ...) do {						\
	const char *__g = (got), *__w = (want);					\
	UNIT_OK(!strcmp(__g, __w), __VA_ARGS__);				\
	if (strcmp(__g, __w)) {							\
		unit_diag("got ", __g);						\
		unit_diag("want", __w);						\
	}									\
} while (0)

static inline void unit_diag(const char *what, const char *s)
{
	printf("# %s: ", what);
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
	putchar('\n');
}

static inline int unit_done(void)
{
	printf("1..%d\n", unit_n);
	return unit_failed ? 1 : 0;
}

#endif
