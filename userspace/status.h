/* SPDX-License-Identifier: GPL-2.0 */
/* iterkit status: the kernel, the module, its iterators and the resident programs. */
#ifndef ITERKIT_STATUS_H
#define ITERKIT_STATUS_H

#include "cli.h"

extern const struct kit_cmd kit_cmd_status;

#endif
