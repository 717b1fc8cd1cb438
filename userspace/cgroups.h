/* SPDX-License-Identifier: GPL-2.0 */
/* iterkit cgroups: the kit_cgroup iterator. */
#ifndef ITERKIT_CGROUPS_H
#define ITERKIT_CGROUPS_H

#include <stddef.h>
#include "iter.h"

extern const struct kit_iter kit_iter_cgroups;

/*
 * Writes the path of a cgroup named name under the cgroup at parent (plen
 * bytes, "/" for the root) to out, which has room for plen + 1 + name_len
 * bytes: "/a" and "b" give "/a/b", "/" and "b" give "/b". Not
 * NUL-terminated; returns its length.
 */
size_t kit_cg_child_path(char *out, const char *parent, size_t plen, const char *name,
			 size_t name_len);

#endif
