/* SPDX-License-Identifier: GPL-2.0 */
/* iterkit num, iterkit seq: the kit_num and testmod_seq iterators. */
#ifndef ITERKIT_NUMBERS_H
#define ITERKIT_NUMBERS_H

#include "iter.h"

extern const struct kit_iter kit_iter_num, kit_iter_seq;

#endif
