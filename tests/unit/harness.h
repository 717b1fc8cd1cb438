/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kselftest harness (from Debian's linux-source) for the loader's unit
 * tests, which run on the host under ASan and UBSan: each file's tests
 * share a fixture whose teardown looks for leaks (the harness ends each
 * test with _exit(), where LeakSanitizer would not look), and EXPECT_STR
 * shows strings escaped (a name with a control byte must not break the
 * TAP around it).
 */
#ifndef ITERKIT_UNIT_HARNESS_H
#define ITERKIT_UNIT_HARNESS_H

#include <stdio.h>
#include <string.h>
#include <sanitizer/lsan_interface.h>
#include "kselftest_harness.h"

/* The fixture of a file's tests (TEST_F(unit, name)): a leak is a failure. */
FIXTURE(unit) {};
FIXTURE_SETUP(unit) {}
FIXTURE_TEARDOWN(unit)
{
	EXPECT_EQ(0, __lsan_do_recoverable_leak_check()) TH_LOG("memory leaked (above)");
}

/* One diagnostic line: what, then s with every byte outside printable ASCII as \xNN. */
static inline void unit_log_escaped(const char *what, const char *s)
{
	fprintf(stderr, "# %s: ", what);
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			fprintf(stderr, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, stderr);
	fputc('\n', stderr);
}

/* got and want are the same string; when not, says what (TH_LOG's arguments) and both, escaped. */
#define EXPECT_STR(got, want, ...) do {						\
	const char *__got = (got), *__want = (want);				\
										\
	EXPECT_EQ(0, strcmp(__got, __want)) {					\
		TH_LOG(__VA_ARGS__);						\
		unit_log_escaped("got ", __got);				\
		unit_log_escaped("want", __want);				\
	}									\
} while (0)

#endif
