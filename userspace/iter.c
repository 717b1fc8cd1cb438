// SPDX-License-Identifier: GPL-2.0
/* The iterator table (iter.h). */
#define _GNU_SOURCE	/* strverscmp */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "iter.h"
#include "cli.h"
#include "numbers.h"
#include "tasks.h"
#include "cgroups.h"

/*
 * An iterator of the module that no command walks (a BPF program's own:
 * kit_cgroup_at starts from a cgroup pointer). Only `status` shows it.
 */
static const struct kit_iter kit_iter_cgroup_at = {
	.prog = { .name = "kit_cgroup_at", .mainline = "6.7" },
	.feature = "bpf_iter_task_new",
	.walker = true,
};

/* The iterators, in the order every list shows them. */
const struct kit_iter *const kit_iters[] = {
	&kit_iter_num,
	&kit_iter_seq,
	&kit_iter_tasks,
	&kit_iter_cgroups,
	&kit_iter_cgroup_at,
	NULL,
};

const char *kit_iters_oldest_kernel(void)
{
	const char *oldest = NULL;
	size_t i;

	for (i = 0; kit_iters[i]; i++)
		if (!oldest || strverscmp(kit_iters[i]->prog.mainline, oldest) < 0)
			oldest = kit_iters[i]->prog.mainline;
	return oldest;
}

void kit_demo_set(struct kit_demo *d, enum kit_verdict v, const char *fmt, ...)
{
	va_list ap;

	d->verdict = v;
	va_start(ap, fmt);
	vsnprintf(d->detail, sizeof(d->detail), fmt, ap);
	va_end(ap);
}
