// SPDX-License-Identifier: GPL-2.0
/*
 * One variable of each iterator struct, so this object's BTF holds the
 * sizes that iterkit.bpf.h gives BPF programs; test_lifecycle.sh compares
 * them with the module's BTF.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iterkit.bpf.h"

struct bpf_iter_kit_num layout_kit_num;
struct bpf_iter_testmod_seq layout_testmod_seq;
struct bpf_iter_kit_task layout_kit_task;
struct bpf_iter_kit_cgroup layout_kit_cgroup;
struct bpf_iter_kit_cgroup_at layout_kit_cgroup_at;

char LICENSE[] SEC("license") = "GPL";
