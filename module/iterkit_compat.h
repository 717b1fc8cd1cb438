/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences that iterkit builds across (6.4 and newer).
 * Feature macros are tested where the kernel has them; Kbuild passes the
 * rest (ITERKIT_WALKERS, ITERKIT_ITER_ARGS) from the kernel version.
 */
#ifndef _ITERKIT_COMPAT_H
#define _ITERKIT_COMPAT_H

#include <linux/btf.h>
#include <linux/btf_ids.h>

/* Kbuild stops older builds first; this catches a kernel that lacks them anyway. */
#ifndef KF_ITER_NEW
#error "iterkit needs Linux 6.4 or newer (open-coded BPF iterators)"
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
 * ITERKIT_WALKERS (6.7+): the walkers need KF_RCU_PROTECTED, with which the
 * verifier keeps a whole walk inside one RCU read-side section.
 */
#if defined(ITERKIT_WALKERS) && !defined(KF_RCU_PROTECTED)
#error "the task and cgroup walkers need KF_RCU_PROTECTED (Linux 6.7 or newer)"
#endif

/* Upstream made trusted arguments the default after 6.18 and dropped the flag. */
#ifndef KF_TRUSTED_ARGS
#define KF_TRUSTED_ARGS 0
#endif

#endif /* _ITERKIT_COMPAT_H */
