// SPDX-License-Identifier: GPL-2.0
/*
 * README.md: "You can also call the kfuncs directly", the snippet as the
 * README shows it (block "<!-- test: readme_direct -->"), as the body of a
 * program: it must pass the verifier and run. What it prints goes to the
 * trace buffer and is not checked here (tests/kselftest/kit_num.c checks
 * what kit_num yields).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"
#include "verifier.h"

SEC("raw_tp")
__kit_success __kit_retval(0)
int direct_calls(void *ctx)
{
#include "examples/readme_direct.c"
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
