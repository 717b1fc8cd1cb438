/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel features the module under test was built with, as
 * scripts/build-module.sh decided them: its features file
 * (ITERKIT_<FEATURE>=y lines) is copied next to the test binaries
 * (build/tests/features, /iterkit/tests/features in the VM). Tests gate on
 * it, never on the kernel's version string.
 */
#ifndef ITERKIT_KSFT_FEATURES_H
#define ITERKIT_KSFT_FEATURES_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 1 when the module has FEATURE ("ITER_ARGS", ...), 0 when not, -1 when the file is missing. */
static inline int kit_feature(const char *feature)
{
	char path[PATH_MAX], line[128], want[96];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - sizeof("/features"));
	char *slash;
	int found = 0;
	FILE *f;

	if (n <= 0)
		return -1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return -1;
	strcpy(slash, "/features");
	f = fopen(path, "r");
	if (!f)
		return -1;
	snprintf(want, sizeof(want), "ITERKIT_%s=y\n", feature);
	while (fgets(line, sizeof(line), f))
		if (!strcmp(line, want))
			found = 1;
	fclose(f);
	return found;
}

#endif /* ITERKIT_KSFT_FEATURES_H */
