/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences that iterkit builds across (6.4 and newer).
 */
#ifndef _ITERKIT_COMPAT_H
#define _ITERKIT_COMPAT_H

#include <linux/version.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#error "iterkit needs Linux 6.4 or newer (open-coded BPF iterators)"
#endif

/* 6.9 added BTF_KFUNCS_START and made register_btf_kfunc_id_set() demand it. */
#ifndef BTF_KFUNCS_START
#define BTF_KFUNCS_START(name) BTF_SET8_START(name)
#define BTF_KFUNCS_END(name) BTF_SET8_END(name)
#endif

/* 6.7 added the kfunc definition brackets; older kernels open-code the pragmas. */
#ifndef __bpf_kfunc_start_defs
#define __bpf_kfunc_start_defs()					\
	__diag_push()							\
	__diag_ignore_all("-Wmissing-prototypes",			\
			  "kfuncs are only called from BPF programs")
#define __bpf_kfunc_end_defs() __diag_pop()
#endif

/*
 * Kbuild defines ITERKIT_WALKERS on 6.7+: the walkers need KF_RCU_PROTECTED,
 * with which the verifier keeps a whole walk inside one RCU read-side section.
 */
#if defined(ITERKIT_WALKERS) && !defined(KF_RCU_PROTECTED)
#error "the task and cgroup walkers need KF_RCU_PROTECTED (Linux 6.7 or newer)"
#endif

/* 6.12 lets a plain kfunc take a live iterator through an "__iter" argument. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define ITERKIT_HAVE_ITER_ARGS 1
#endif

/* Upstream made trusted arguments the default after 6.18 and dropped the flag. */
#ifndef KF_TRUSTED_ARGS
#define KF_TRUSTED_ARGS 0
#endif

/* Every new(), next() and destroy() of one iterator, for the kfunc set. */
#define ITERKIT_ITER_KFUNCS(type, new_flags)				\
	BTF_ID_FLAGS(func, bpf_iter_##type##_new, KF_ITER_NEW | (new_flags))	\
	BTF_ID_FLAGS(func, bpf_iter_##type##_next, KF_ITER_NEXT | KF_RET_NULL)	\
	BTF_ID_FLAGS(func, bpf_iter_##type##_destroy, KF_ITER_DESTROY)

#endif /* _ITERKIT_COMPAT_H */
