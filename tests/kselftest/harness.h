/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kselftest harness (from Debian's linux-source), with a longer
 * default time limit per test. The harness's 30 s is for a real machine;
 * in a TCG guest on a loaded 2-core CI host, loading one BPF object can
 * take most of that. Tests that need longer still say so themselves
 * (TEST_F_TIMEOUT).
 */
#ifndef ITERKIT_KSFT_HARNESS_H
#define ITERKIT_KSFT_HARNESS_H

#include "kselftest_harness.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

#endif
