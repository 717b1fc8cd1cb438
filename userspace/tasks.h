/* SPDX-License-Identifier: GPL-2.0 */
/* iterkit tasks: the kit_task iterator. */
#ifndef ITERKIT_TASKS_H
#define ITERKIT_TASKS_H

#include <stddef.h>
#include <linux/types.h>
#include "out.h"
#include "kit_task_record.h"
#include "iter.h"

extern const struct kit_iter kit_iter_tasks;

/*
 * Processes under their parents, pstree-like ("init(1)", then "|-" and
 * "`-" before each child): pid 0 and those whose parent is not in v are
 * roots. 0, or 1 after printing an error (out of memory).
 */
int kit_tasks_print_tree(struct kit_out *o, const struct kit_task_rec *v, size_t n);

#endif
