// SPDX-License-Identifier: GPL-2.0
/*
 * README.md, "Writing a BPF program": the example program as
 * the README shows it, taken from README.md at build time (the block marked
 * "<!-- test: readme_example -->", tests/verifier/example.sh). The
 * expectations sit on a declaration ahead of it.
 *
 * The values it computes are checked: 0 + 1 + ... + 9 = 45, plus 3 from
 * kit_repeat(3), and values[i] = i * i. Without the module the example
 * returns early (its bpf_ksym_exists() guard) and these fail.
 */
#include "verifier.h"

__kit_success __kit_retval(0)
__kit_global("sum == 48")
__kit_global("values[0] == 0")
__kit_global("values[7] == 49")
__kit_global("values[15] == 225")
int walk(void *ctx);

#include "examples/readme_example.c"
