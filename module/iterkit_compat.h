/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels iterkit builds for: mainline 6.4 and
 * newer, and distribution kernels that backported open-coded iterators
 * under older version numbers. Everything is keyed on features, never on
 * LINUX_VERSION_CODE. Which iterators a kernel gets is decided once, by
 * scripts/build-module.sh (ITERKIT_WALKERS, ITERKIT_ITER_ARGS from Kbuild);
 * here are only the spellings that differ between kernels.
 */
#ifndef _ITERKIT_COMPAT_H
#define _ITERKIT_COMPAT_H

#include <linux/btf.h>
#include <linux/btf_ids.h>

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

#endif /* _ITERKIT_COMPAT_H */
