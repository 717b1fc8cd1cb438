/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the loader's BPF programs and the loader. */
#ifndef __ITERKIT_SHARED_H
#define __ITERKIT_SHARED_H

/* How many elements a walk reports one by one (the rest are only counted). */
#define KIT_MAX_SHOWN 64

#endif
