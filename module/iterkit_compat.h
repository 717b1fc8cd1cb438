/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels iterkit builds for: mainline 6.4 and
 * newer, and distribution kernels that backported open-coded iterators
 * under older version numbers. Everything is keyed on features, never on
 * LINUX_VERSION_CODE: macros are tested here, and Kbuild passes what it
 * finds in the headers (ITERKIT_WALKERS, ITERKIT_ITER_ARGS).
 */
#ifndef _ITERKIT_COMPAT_H
#define _ITERKIT_COMPAT_H

#include <linux/btf.h>
#include <linux/btf_ids.h>

/* Kbuild stops such builds first; this catches a kernel that lacks them anyway. */
#ifndef KF_ITER_NEW
#error "this kernel has no open-coded BPF iterator support (no KF_ITER_NEW)"
#endif

/* 6.9 added BTF_KFUNCS_START and made register_btf_kfunc_id_set() demand it. */
#ifndef BTF_KFUNCS_START
#define BTF_KFUNCS_START(name) BTF_SET8_START(name)
#define BTF_KFUNCS_END(name) BTF_SET8_END(name)
#endif

/*
 * 6.7 added these brackets, which silence -Wmissing-prototypes for kfuncs.
 * Before 6.8 that warning is only on with W=1, so nothing needs silencing.
 */
#ifndef __bpf_kfunc_start_defs
#define __bpf_kfunc_start_defs()
#define __bpf_kfunc_end_defs()
#endif

/*
 * ITERKIT_WALKERS (mainline 6.7+): the walkers need KF_RCU_PROTECTED, with
 * which the verifier keeps a whole walk inside one RCU read-side section.
 */
#if defined(ITERKIT_WALKERS) && !defined(KF_RCU_PROTECTED)
#error "the task and cgroup walkers need KF_RCU_PROTECTED (Linux 6.7 or newer)"
#endif

#endif /* _ITERKIT_COMPAT_H */
